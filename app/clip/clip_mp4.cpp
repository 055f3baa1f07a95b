// MP4 through FFmpeg's libraries: H.264 (libx264 when the libraries have it, at CRF 20, which
// keeps plots crisp) in yuv420p, which every browser and slide program plays; MPEG-4 part 2 when
// no H.264 encoder is there. The file is muxed into memory through a seekable AVIOContext (the
// muxer goes back to write the sample tables).
extern "C" {
#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/imgutils.h>
#include <libavutil/opt.h>
#include <libswscale/swscale.h>
}

#include <cstring>
#include <deque>
#include <stdexcept>
#include <string>

#include "clip/clip_encoder.h"

namespace kms::app::clip {
namespace {

[[noreturn]] void fail(const char* what, int code) {
  char text[AV_ERROR_MAX_STRING_SIZE] = {};
  av_strerror(code, text, sizeof text);
  throw std::runtime_error(std::string("MP4: ") + what + ": " + text);
}

/// A growing byte buffer that the muxer writes and seeks in.
struct MemoryFile {
  QByteArray bytes;
  qint64 position = 0;
};

#if LIBAVFORMAT_VERSION_MAJOR >= 61
int writeMemory(void* opaque, const std::uint8_t* data, int size) {
#else
int writeMemory(void* opaque, std::uint8_t* data, int size) {
#endif
  auto* file = static_cast<MemoryFile*>(opaque);
  if (file->position + size > file->bytes.size()) file->bytes.resize(file->position + size);
  std::memcpy(file->bytes.data() + file->position, data, std::size_t(size));
  file->position += size;
  return size;
}

std::int64_t seekMemory(void* opaque, std::int64_t offset, int whence) {
  auto* file = static_cast<MemoryFile*>(opaque);
  if (whence & AVSEEK_SIZE) return file->bytes.size();
  switch (whence & ~AVSEEK_FORCE) {
    case SEEK_SET:
      file->position = offset;
      break;
    case SEEK_CUR:
      file->position += offset;
      break;
    case SEEK_END:
      file->position = file->bytes.size() + offset;
      break;
    default:
      return -1;
  }
  return file->position;
}

class Mp4Encoder final : public ClipEncoder {
 public:
  Mp4Encoder() = default;
  /// Opens the codec and the muxer (a separate step so that the destructor frees whatever a
  /// failure left allocated).
  void open(QSize size, int framesPerSecond) {
    size_ = size;
    av_log_set_level(AV_LOG_ERROR);  // libx264 prints statistics at info level
    if (size.width() % 2 || size.height() % 2)
      throw std::invalid_argument("MP4 frames need an even width and height");
    const AVCodec* codec = avcodec_find_encoder_by_name("libx264");
    if (!codec) codec = avcodec_find_encoder(AV_CODEC_ID_H264);
    if (!codec) codec = avcodec_find_encoder(AV_CODEC_ID_MPEG4);
    if (!codec) throw std::runtime_error("MP4: FFmpeg's libraries have no H.264 or MPEG-4 encoder");
    int status = avformat_alloc_output_context2(&format_, nullptr, "mp4", nullptr);
    if (status < 0 || !format_) fail("no MP4 muxer", status);
    stream_ = avformat_new_stream(format_, nullptr);
    codec_ = avcodec_alloc_context3(codec);
    if (!stream_ || !codec_) throw std::runtime_error("MP4: out of memory");
    codec_->width = size.width();
    codec_->height = size.height();
    codec_->pix_fmt = AV_PIX_FMT_YUV420P;
    // Milliseconds: every frame keeps its own duration (the last one is held longer).
    codec_->time_base = AVRational{1, 1000};
    codec_->framerate = AVRational{framesPerSecond, 1};
    codec_->gop_size = 4 * framesPerSecond;
    // No B-frames: every player shows the first and last frames (no reordering delay for an
    // edit list to hide), and a clip of a few dozen frames gains little from them.
    codec_->max_b_frames = 0;
    if (format_->oformat->flags & AVFMT_GLOBALHEADER) codec_->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    if (std::strcmp(codec->name, "libx264") == 0) {
      av_opt_set(codec_->priv_data, "crf", "20", 0);
      av_opt_set(codec_->priv_data, "preset", "veryfast", 0);
    } else {
      codec_->bit_rate = 4'000'000;
    }
    status = avcodec_open2(codec_, codec, nullptr);
    if (status < 0) fail("could not open the encoder", status);
    status = avcodec_parameters_from_context(stream_->codecpar, codec_);
    if (status < 0) fail("codec parameters", status);
    stream_->time_base = codec_->time_base;

    constexpr int kBufferSize = 1 << 16;
    auto* buffer = static_cast<unsigned char*>(av_malloc(kBufferSize));
    io_ = avio_alloc_context(buffer, kBufferSize, 1, &file_, nullptr, writeMemory, seekMemory);
    if (!io_) throw std::runtime_error("MP4: out of memory");
    format_->pb = io_;
    status = avformat_write_header(format_, nullptr);
    if (status < 0) fail("could not write the header", status);

    frame_ = av_frame_alloc();
    packet_ = av_packet_alloc();
    if (!frame_ || !packet_) throw std::runtime_error("MP4: out of memory");
    frame_->format = AV_PIX_FMT_YUV420P;
    frame_->width = size.width();
    frame_->height = size.height();
    status = av_frame_get_buffer(frame_, 0);
    if (status < 0) fail("frame buffer", status);
    scale_ =
        sws_getContext(size.width(), size.height(), AV_PIX_FMT_BGRA, size.width(), size.height(),
                       AV_PIX_FMT_YUV420P, SWS_BICUBIC, nullptr, nullptr, nullptr);
    if (!scale_) throw std::runtime_error("MP4: no colour conversion to yuv420p");
  }

  ~Mp4Encoder() override {
    sws_freeContext(scale_);
    av_packet_free(&packet_);
    av_frame_free(&frame_);
    avcodec_free_context(&codec_);
    if (io_) {
      av_freep(&io_->buffer);
      avio_context_free(&io_);
    }
    if (format_) {
      format_->pb = nullptr;
      avformat_free_context(format_);
    }
  }

  void add(const QImage& frame, int durationMs) override {
    const QImage argb = frame.convertToFormat(QImage::Format_ARGB32);
    if (argb.size() != size_) throw std::invalid_argument("MP4: a frame of another size");
    int status = av_frame_make_writable(frame_);
    if (status < 0) fail("frame buffer", status);
    const std::uint8_t* source[1] = {argb.constBits()};
    const int stride[1] = {int(argb.bytesPerLine())};
    sws_scale(scale_, source, stride, 0, size_.height(), frame_->data, frame_->linesize);
    frame_->pts = timestamp_;
#if LIBAVUTIL_VERSION_MAJOR >= 58
    frame_->duration = durationMs;
#else
    frame_->pkt_duration = durationMs;
#endif
    timestamp_ += durationMs;
    durations_.push_back(durationMs);
    send(frame_);
  }

  QByteArray finish() override {
    send(nullptr);
    const int status = av_write_trailer(format_);
    if (status < 0) fail("could not finish the file", status);
    avio_flush(io_);
    return std::move(file_.bytes);
  }

 private:
  void send(AVFrame* frame) {
    int status = avcodec_send_frame(codec_, frame);
    if (status < 0) fail("encoding failed", status);
    while ((status = avcodec_receive_packet(codec_, packet_)) >= 0) {
      // Packets leave in frame order (no B-frames): each carries its frame's duration, or the
      // muxer's edit list would end at the last frame's start and players would drop it.
      if (!durations_.empty()) {
        packet_->duration = durations_.front();
        durations_.pop_front();
      }
      av_packet_rescale_ts(packet_, codec_->time_base, stream_->time_base);
      packet_->stream_index = stream_->index;
      status = av_interleaved_write_frame(format_, packet_);
      if (status < 0) fail("writing failed", status);
    }
    if (status != AVERROR(EAGAIN) && status != AVERROR_EOF) fail("encoding failed", status);
  }

  QSize size_;
  MemoryFile file_;
  AVFormatContext* format_ = nullptr;
  AVStream* stream_ = nullptr;
  AVCodecContext* codec_ = nullptr;
  AVIOContext* io_ = nullptr;
  AVFrame* frame_ = nullptr;
  AVPacket* packet_ = nullptr;
  SwsContext* scale_ = nullptr;
  std::int64_t timestamp_ = 0;
  std::deque<int> durations_;  // of the frames sent and not yet received as packets, in ms
};

}  // namespace

std::unique_ptr<ClipEncoder> makeMp4Encoder(QSize size, int framesPerSecond) {
  auto encoder = std::make_unique<Mp4Encoder>();
  encoder->open(size, framesPerSecond);
  return encoder;
}

}  // namespace kms::app::clip

/// The module's one entry point (clip_encoder.cpp loads the module and resolves it): an encoder
/// for frames of width × height at framesPerSecond; throws std::runtime_error as Mp4Encoder does.
extern "C" __attribute__((visibility("default"))) kms::app::clip::ClipEncoder*
kmsClipMakeMp4Encoder(int width, int height, int framesPerSecond) {
  return kms::app::clip::makeMp4Encoder(QSize(width, height), framesPerSecond).release();
}
