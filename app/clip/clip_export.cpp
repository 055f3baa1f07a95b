#include "clip/clip_export.h"

#include <QElapsedTimer>
#include <QFileInfo>

#include <algorithm>
#include <cmath>
#include <exception>
#include <stdexcept>
#include <thread>

#include "clip/clip_painter.h"
#include "clip/clip_run.h"
#include "core/dataset.h"
#include "core/parallel.h"
#include "io/save_file.h"
#include "kmeans/errors.h"

namespace kms::app::clip {

void validateClipOptions(const ClipOptions& o) {
  if (o.size.width() < 240 || o.size.height() < 180 || o.size.width() > 3840 ||
      o.size.height() > 2160)
    throw std::invalid_argument(QStringLiteral("the clip's size %1 × %2 is outside 240 × 180 to "
                                               "3840 × 2160 pixels")
                                    .arg(o.size.width())
                                    .arg(o.size.height())
                                    .toStdString());
  if (!(o.framesPerSecond >= 0.5 && o.framesPerSecond <= 60))
    throw std::invalid_argument(
        QStringLiteral("the clip's pace of %1 frames a second is outside 0.5 to 60")
            .arg(o.framesPerSecond)
            .toStdString());
  if (o.holdLastMs < 0 || o.holdLastMs > 60000)
    throw std::invalid_argument("the last frame's hold must be 0 to 60,000 ms");
}

ClipResult exportClip(const ClipJob& job, const QString& path, const ClipOptions& requested,
                      const ClipProgress& progress, const std::atomic<bool>* cancel) {
  QElapsedTimer timer;
  timer.start();
  const auto format = clipFormatOf(path);
  if (!format)
    throw ExportError(path, QStringLiteral("a clip is written as .gif, .webp or .mp4 (the name's "
                                           "suffix says which)"));
  if (!clipFormatBuilt(*format))
    throw ExportError(path, QStringLiteral("this build has no %1 encoder (install %2 and rebuild)")
                                .arg(toString(*format), clipFormatPackage(*format)));
  ClipOptions options = requested;
  try {
    validateClipOptions(options);
  } catch (const std::invalid_argument& e) {
    throw ExportError(path, QString::fromUtf8(e.what()));
  }
  if (*format == ClipFormat::Mp4)
    options.size = QSize(options.size.width() & ~1, options.size.height() & ~1);
  const auto stopped = [cancel] { return cancel && cancel->load(std::memory_order_relaxed); };

  ClipRun run(job.input, job.config, job.backend, cancel);
  const ClipPainter painter(run, options.size);
  const int total = run.frameCount(options.halfSteps);
  const int frameMs = int(std::lround(1000.0 / options.framesPerSecond));
  std::unique_ptr<ClipEncoder> encoder;
  try {
    encoder = makeClipEncoder(*format, options.size, int(std::ceil(options.framesPerSecond)));
  } catch (const std::exception& e) {
    throw ExportError(path, QString::fromUtf8(e.what()));
  }
  const bool indexed = encoder->wantsIndexedFrames();

  // Frames come from the engine one at a time (it is not thread-safe), are drawn (and, for GIF,
  // given their palettes) on every thread, and go to the encoder in order.
  // Every frame of a batch holds its labels (one per data set row): batches shrink for large
  // data so that they stay within about 512 MB.
  const std::size_t labelBytes = std::max<std::size_t>(1, job.input->dataset()->n) * 4;
  const int batch = int(
      std::clamp<std::size_t>((std::size_t(512) << 20) / labelBytes, 1,
                              std::size_t(std::max(2u, std::thread::hardware_concurrency()) * 2)));
  std::vector<ClipFrame> frames;
  std::vector<QImage> images;
  for (int first = 0; first < total; first += batch) {
    if (stopped()) throw kms::Interrupted("the clip's export was cancelled");
    const int count = std::min(batch, total - first);
    frames.clear();
    for (int i = 0; i < count; ++i)
      frames.push_back(run.frame(first + i, options.halfSteps));
    images.assign(std::size_t(count), QImage());
    std::vector<std::exception_ptr> failures(static_cast<std::size_t>(count));
    parallelRanges(std::size_t(count), 1, [&](std::size_t b, std::size_t e) {
      for (std::size_t i = b; i < e && !stopped(); ++i) {
        try {  // parallelRanges' workers must not throw: kept, rethrown after the join
          QImage image = painter.paint(frames[i], total);
          images[i] = indexed ? indexedFrame(image) : std::move(image);
        } catch (...) {
          failures[i] = std::current_exception();
        }
      }
    });
    for (const std::exception_ptr& failure : failures)
      if (failure) std::rethrow_exception(failure);
    if (stopped()) throw kms::Interrupted("the clip's export was cancelled");
    for (int i = 0; i < count; ++i) {
      const bool last = first + i == total - 1;
      try {
        encoder->add(images[std::size_t(i)], frameMs + (last ? options.holdLastMs : 0));
      } catch (const std::exception& e) {
        throw ExportError(path, QString::fromUtf8(e.what()));
      }
      if (progress) progress(first + i + 1, total);
      if (stopped()) throw kms::Interrupted("the clip's export was cancelled");
    }
  }
  QByteArray bytes;
  try {
    bytes = encoder->finish();
  } catch (const std::exception& e) {
    throw ExportError(path, QString::fromUtf8(e.what()));
  }
  if (stopped()) throw kms::Interrupted("the clip's export was cancelled");  // nothing written
  io::saveFile(path, [&](QIODevice& device) {
    if (device.write(bytes) != bytes.size()) throw ExportError(path, device.errorString());
  });
  ClipResult result;
  result.frames = total;
  result.iterations = run.iterations();
  result.bytes = bytes.size();
  result.seconds = double(timer.nsecsElapsed()) * 1e-9;
  result.size = options.size;
  return result;
}

}  // namespace kms::app::clip
