// GIF through giflib: one palette per frame (the frame's own colours, or 256 clustered from
// them), LZW by the library, looping forever (the NETSCAPE2.0 extension browsers read).
#include <gif_lib.h>

#include <QByteArray>

#include <stdexcept>
#include <string>

#include "clip/clip_encoder.h"

namespace kms::app::clip {
namespace {

int appendToBuffer(GifFileType* gif, const GifByteType* bytes, int length) {
  static_cast<QByteArray*>(gif->UserData)->append(reinterpret_cast<const char*>(bytes), length);
  return length;
}

class GifEncoder final : public ClipEncoder {
 public:
  GifEncoder() = default;
  /// Opens the stream (a separate step so that the destructor closes it after a failure).
  void open(QSize size) {
    size_ = size;
    int error = 0;
    gif_ = EGifOpen(&bytes_, appendToBuffer, &error);
    if (!gif_) fail(error);
    EGifSetGifVersion(gif_, true);  // GIF89a: delays and looping
    check(EGifPutScreenDesc(gif_, size.width(), size.height(), 8, 0, nullptr));
    check(EGifPutExtensionLeader(gif_, APPLICATION_EXT_FUNC_CODE));
    check(EGifPutExtensionBlock(gif_, 11, "NETSCAPE2.0"));
    const unsigned char loop[3] = {1, 0, 0};  // sub-block 1, loop count 0: forever
    check(EGifPutExtensionBlock(gif_, 3, loop));
    check(EGifPutExtensionTrailer(gif_));
  }
  ~GifEncoder() override {
    if (gif_) EGifCloseFile(gif_, nullptr);
  }

  bool wantsIndexedFrames() const override { return true; }

  void add(const QImage& frame, int durationMs) override {
    if (frame.format() != QImage::Format_Indexed8 || frame.size() != size_ ||
        frame.colorCount() < 1 || frame.colorCount() > 256)
      throw std::invalid_argument("GIF frames are Indexed8 images of the clip's size");
    GraphicsControlBlock control{};
    control.DisposalMode = DISPOSE_DO_NOT;
    control.UserInputFlag = false;
    control.DelayTime = std::max(2, (durationMs + 5) / 10);  // centiseconds; browsers clamp < 2
    control.TransparentColor = NO_TRANSPARENT_COLOR;
    GifByteType extension[4];
    EGifGCBToExtension(&control, extension);
    check(EGifPutExtension(gif_, GRAPHICS_EXT_FUNC_CODE, 4, extension));
    int entries = 2;  // a GIF colour table has 2^n entries
    while (entries < frame.colorCount())
      entries *= 2;
    ColorMapObject* map = GifMakeMapObject(entries, nullptr);
    if (!map) throw std::runtime_error("GIF: out of memory");
    for (int i = 0; i < entries; ++i) {
      const QRgb c = i < frame.colorCount() ? frame.color(i) : 0;
      map->Colors[i] =
          GifColorType{GifByteType(qRed(c)), GifByteType(qGreen(c)), GifByteType(qBlue(c))};
    }
    const int status = EGifPutImageDesc(gif_, 0, 0, size_.width(), size_.height(), false, map);
    GifFreeMapObject(map);
    check(status);
    for (int y = 0; y < size_.height(); ++y)
      check(EGifPutLine(gif_, const_cast<GifPixelType*>(frame.constScanLine(y)), size_.width()));
  }

  QByteArray finish() override {
    int error = 0;
    const int status = EGifCloseFile(gif_, &error);
    gif_ = nullptr;
    if (status != GIF_OK) fail(error);
    return std::move(bytes_);
  }

 private:
  void check(int status) const {
    if (status != GIF_OK) fail(gif_ ? gif_->Error : 0);
  }
  [[noreturn]] static void fail(int error) {
    const char* text = GifErrorString(error);
    throw std::runtime_error(std::string("GIF: ") + (text ? text : "giflib failed"));
  }

  QSize size_;
  QByteArray bytes_;
  GifFileType* gif_ = nullptr;
};

}  // namespace

std::unique_ptr<ClipEncoder> makeGifEncoder(QSize size) {
  auto encoder = std::make_unique<GifEncoder>();
  encoder->open(size);
  return encoder;
}

}  // namespace kms::app::clip
