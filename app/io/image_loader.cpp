#include "io/image_loader.h"

#include <QBuffer>
#include <QFileInfo>
#include <QImage>
#include <QImageReader>

#include <algorithm>
#include <climits>
#include <limits>
#include <mutex>

#include "core/format.h"
#include "io/load_support.h"

namespace kms::app::io {
namespace {

/// Qt refuses to decode images whose pixels would take more than QImageReader::allocationLimit()
/// MiB (default 256 MiB, too small for a 16k × 16k photo). Our own size check has already passed,
/// so raise the process-wide limit to what this image can need (64-bit pixels), never lower it.
void allowDecoding(QSize size) {
  static std::mutex mutex;
  const std::lock_guard lock(mutex);
  const std::uint64_t mib =
      (std::uint64_t(size.width()) * std::uint64_t(size.height()) * 8 >> 20) + 1;
  const int current = QImageReader::allocationLimit();  // 0 means no limit
  if (current != 0 && std::uint64_t(current) < mib)
    QImageReader::setAllocationLimit(int(std::min<std::uint64_t>(mib, INT_MAX)));
}

void requirePixelBudget(const InputFile& file, QSize size, std::size_t maxValues) {
  const std::uint64_t pixels = std::uint64_t(size.width()) * std::uint64_t(size.height());
  if (pixels > maxValues / 3)
    file.fail(QStringLiteral("image of %1 × %2 pixels exceeds the limit of %3 values (3 per pixel)")
                  .arg(size.width())
                  .arg(size.height())
                  .arg(groupedCount(maxValues)));
}

bool hasDeepChannels(const QImage& image) {
  const QPixelFormat format = image.pixelFormat();
  return std::max(format.redSize(), format.brightnessSize()) > 8;
}

/// Copies RGBA pixels of channel type T (uchar for RGBA8888, quint16 for RGBA64) into the data
/// set, scaling colours to [0, 1] and alpha to 0..255.
template <typename T>
void copyPixels(const QImage& image, Dataset& out, const Progress& progress) {
  constexpr float kMax = float(std::numeric_limits<T>::max());
  constexpr unsigned kAlphaShift = sizeof(T) == 1 ? 0 : 8;
  const std::size_t width = std::size_t(image.width());
  bool translucent = false;
  for (int y = 0; y < image.height(); ++y) {
    const T* row = reinterpret_cast<const T*>(image.constScanLine(y));
    float* values = out.values.data() + std::size_t(y) * width * 3;
    std::uint8_t* alpha = out.alpha.data() + std::size_t(y) * width;
    for (std::size_t x = 0; x < width; ++x) {
      values[3 * x] = float(row[4 * x]) / kMax;
      values[3 * x + 1] = float(row[4 * x + 1]) / kMax;
      values[3 * x + 2] = float(row[4 * x + 2]) / kMax;
      alpha[x] = std::uint8_t(row[4 * x + 3] >> kAlphaShift);
      translucent |= alpha[x] != 255;
    }
    if (y % 64 == 63) progress.update(double(y + 1) / image.height());
  }
  if (!translucent) out.alpha.clear();
}

}  // namespace

DatasetPtr loadImage(const QString& path, const LoadOptions& options) {
  const InputFile file(path);
  const Progress progress(file, options);
  QByteArray bytes = QByteArray::fromRawData(file.bytes().data(), qsizetype(file.size()));
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::ReadOnly);
  QImageReader reader(&buffer);
  reader.setAutoTransform(true);
  if (!reader.canRead()) file.fail(QStringLiteral("not an image Qt can read"));
  if (const QSize size = reader.size(); size.isValid()) {
    requirePixelBudget(file, size, options.maxValues);
    allowDecoding(size);
  }
  QImage image = reader.read();
  if (image.isNull()) file.fail(QStringLiteral("cannot decode the image: ") + reader.errorString());
  requirePixelBudget(file, image.size(), options.maxValues);  // when size() was unknown
  const bool deep = hasDeepChannels(image);
  image.convertTo(deep ? QImage::Format_RGBA64 : QImage::Format_RGBA8888);

  auto out = std::make_shared<Dataset>();
  const QFileInfo info(path);
  out->source = info.absoluteFilePath();
  out->displayName = info.fileName();
  out->kind = DatasetKind::Image;
  out->width = image.width();
  out->height = image.height();
  out->n = std::size_t(image.width()) * std::size_t(image.height());
  out->d = 3;
  out->dimensionNames = QStringList{QStringLiteral("R"), QStringLiteral("G"), QStringLiteral("B")};
  out->values.resize(out->n * 3);
  out->alpha.resize(out->n);
  if (deep)
    copyPixels<quint16>(image, *out, progress);
  else
    copyPixels<uchar>(image, *out, progress);
  progress.update(1.0);
  return out;
}

}  // namespace kms::app::io
