// Animated files from a clip's frames, with well-kept libraries: giflib (a palette per frame),
// libwebp's animation encoder, FFmpeg's libraries for MP4 (H.264 where the build has an H.264
// encoder, MPEG-4 part 2 otherwise). Each is optional at build time; the file is assembled in
// memory and written whole, so a failed or cancelled export leaves nothing behind.
#pragma once

#include <QByteArray>
#include <QImage>
#include <QSize>
#include <QString>

#include <memory>
#include <optional>

namespace kms::app::clip {

enum class ClipFormat { Gif, WebP, Mp4 };

/// The format a file name asks for by its suffix (.gif, .webp, .mp4), or nullopt.
std::optional<ClipFormat> clipFormatOf(const QString& path);
QString toString(ClipFormat format);
/// Whether this build has the format's encoder.
bool clipFormatBuilt(ClipFormat format);
/// The library a missing format needs, for messages ("libgif-dev").
QString clipFormatPackage(ClipFormat format);

class ClipEncoder {
 public:
  virtual ~ClipEncoder() = default;
  /// Adds a frame of the encoder's size, shown for `durationMs`. GIF takes an Indexed8 image
  /// (at most 256 colours: its palette becomes the frame's), the others ARGB32 / RGB32.
  /// Throws std::runtime_error when the library fails.
  virtual void add(const QImage& frame, int durationMs) = 0;
  /// The whole file.
  virtual QByteArray finish() = 0;
  /// GIF stores palettes: frames must come as Indexed8 (see indexedFrame).
  virtual bool wantsIndexedFrames() const { return false; }
};

/// An encoder for frames of `size` (MP4: even sizes) at `framesPerSecond` (MP4's time base).
/// Throws std::runtime_error naming the missing library when the format was not built.
std::unique_ptr<ClipEncoder> makeClipEncoder(ClipFormat format, QSize size, int framesPerSecond);

/// `frame` with at most 256 colours for GIF: its own colours when there are no more, else a
/// palette of 256 clustered from its distinct colours by KMeans Studio's exact engine (each
/// colour weighted by its pixels), every pixel its colour's nearest entry. Deterministic.
QImage indexedFrame(const QImage& frame);

}  // namespace kms::app::clip
