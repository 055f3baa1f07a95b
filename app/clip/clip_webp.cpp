// Animated WebP through libwebp's WebPAnimEncoder: each frame lossy or lossless, whichever is
// smaller (allow_mixed), so flat plots stay sharp and photographs stay small.
#include <webp/encode.h>
#include <webp/mux.h>

#include <stdexcept>

#include "clip/clip_encoder.h"

namespace kms::app::clip {
namespace {

class WebpEncoder final : public ClipEncoder {
 public:
  explicit WebpEncoder(QSize size) : size_(size) {
    WebPAnimEncoderOptions options;
    if (!WebPAnimEncoderOptionsInit(&options) || !WebPConfigInit(&config_))
      throw std::runtime_error("WebP: the library's version does not match its headers");
    options.allow_mixed = 1;
    options.anim_params.loop_count = 0;  // forever
    config_.quality = 90;
    config_.method = 2;  // fast: most of a clip's frames differ little from the one before
    encoder_ = WebPAnimEncoderNew(size.width(), size.height(), &options);
    if (!encoder_) throw std::runtime_error("WebP: could not start the animation encoder");
  }
  ~WebpEncoder() override {
    if (encoder_) WebPAnimEncoderDelete(encoder_);
  }

  void add(const QImage& frame, int durationMs) override {
    const QImage argb = frame.convertToFormat(QImage::Format_ARGB32);
    if (argb.size() != size_) throw std::invalid_argument("WebP: a frame of another size");
    WebPPicture picture;
    if (!WebPPictureInit(&picture)) throw std::runtime_error("WebP: version mismatch");
    picture.use_argb = 1;
    picture.width = size_.width();
    picture.height = size_.height();
    // QImage's ARGB32 is 0xAARRGGBB per pixel: bytes B, G, R, A on little-endian machines.
    if (!WebPPictureImportBGRA(&picture, argb.constBits(), int(argb.bytesPerLine())))
      throw std::runtime_error("WebP: out of memory");
    const int ok = WebPAnimEncoderAdd(encoder_, &picture, timestamp_, &config_);
    WebPPictureFree(&picture);
    if (!ok) throw std::runtime_error(std::string("WebP: ") + WebPAnimEncoderGetError(encoder_));
    timestamp_ += durationMs;
  }

  QByteArray finish() override {
    WebPData data;
    WebPDataInit(&data);
    if (!WebPAnimEncoderAdd(encoder_, nullptr, timestamp_, nullptr) ||
        !WebPAnimEncoderAssemble(encoder_, &data))
      throw std::runtime_error(std::string("WebP: ") + WebPAnimEncoderGetError(encoder_));
    QByteArray bytes(reinterpret_cast<const char*>(data.bytes), qsizetype(data.size));
    WebPDataClear(&data);
    return bytes;
  }

 private:
  QSize size_;
  WebPConfig config_;
  WebPAnimEncoder* encoder_ = nullptr;
  int timestamp_ = 0;
};

}  // namespace

std::unique_ptr<ClipEncoder> makeWebpEncoder(QSize size) {
  return std::make_unique<WebpEncoder>(size);
}

}  // namespace kms::app::clip
