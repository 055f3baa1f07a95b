#include "io/image_loader.h"

#include <QBuffer>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QImage>
#include <QImageReader>

#include <algorithm>
#include <climits>
#include <limits>
#include <mutex>

#include "core/format.h"
#include "io/load_support.h"
#include "kmeans/backend.h"
#include "kmeans/compact.h"
#include "kmeans/errors.h"

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
  // Pictures stay within 2^31 values whatever the caller allows points (Qt's images and the
  // compaction's 32-bit indexes).
  maxValues = std::min<std::size_t>(maxValues, std::size_t(1) << 31);
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

/// Which alpha values occur: decides how pixels are keyed.
struct AlphaUse {
  bool transparent = false;  ///< some pixel has alpha 0 (left out of clustering)
  bool partial = false;      ///< some pixel has 0 < alpha < max (alpha becomes a fourth value)
};

/// Fills the rows of an 8-bit picture from its distinct colours.
void fillRowsFromKeys(const DistinctColours& colours, int d, Dataset& out) {
  out.n = colours.rows();
  out.values.resize(out.n * std::size_t(d));
  for (std::size_t r = 0; r < out.n; ++r) {
    const std::uint32_t key = colours.keys[r];
    float* row = &out.values[r * std::size_t(d)];
    row[0] = float((key >> 16) & 0xffu) / 255.0f;
    row[1] = float((key >> 8) & 0xffu) / 255.0f;
    row[2] = float(key & 0xffu) / 255.0f;
    if (d == 4) row[3] = float(key >> 24) / 255.0f;
  }
}

/// The distinct colours, on the GPU when asked and possible (same result), else on the CPU.
DistinctColours findColours(const std::uint32_t* pixels, std::size_t n, const ColourKeying& keying,
                            bool onDevice) {
  const bool plain = !keying.skip_transparent && !keying.keep_alpha;
  if (onDevice && plain && kms::cudaStatus().available) {
    try {
      return distinctColoursOnDevice(pixels, n);
    } catch (const kms::DeviceError&) {
      // The GPU is busy or out of memory: the CPU gives the same table.
    }
  }
  return distinctColours(pixels, n, keying);
}

/// An 8-bit picture (every format but 16-bit ones): its exact distinct colours.
void compactEightBit(const InputFile& file, QImage image, const Progress& progress,
                     const LoadOptions& options, Dataset& out) {
  const bool alpha = image.hasAlphaChannel();
  image.convertTo(alpha ? QImage::Format_ARGB32 : QImage::Format_RGB32);
  progress.update(0.6);
  const std::size_t n = out.itemCount();
  const auto* pixels = reinterpret_cast<const std::uint32_t*>(image.constBits());
  AlphaUse use;
  if (alpha)
    for (std::size_t i = 0; i < n && !(use.transparent && use.partial); ++i) {
      const std::uint32_t a = pixels[i] >> 24;
      use.transparent |= a == 0;
      use.partial |= a != 0 && a != 255;
    }
  ColourKeying keying;
  keying.skip_transparent = use.transparent;
  keying.keep_alpha = use.partial;
  const bool onDevice = options.compactOnDevice && (!options.deviceReady || options.deviceReady());
  DistinctColours colours = findColours(pixels, n, keying, onDevice);
  progress.update(0.9);
  if (colours.rows() == 0) file.fail(QStringLiteral("every pixel is fully transparent"));
  out.d = use.partial ? 4 : 3;
  fillRowsFromKeys(colours, out.d, out);
  out.counts = std::move(colours.counts);
  out.index = std::move(colours.index);
  out.picture = std::move(image);
  if (use.transparent)
    out.notes << QStringLiteral("fully transparent pixels are left out of clustering");
}

/// A 16-bit picture: exact 16-bit values per pixel, compacted when colours repeat enough.
void loadDeep(const InputFile& file, QImage image, const Progress& progress, Dataset& out) {
  image.convertTo(QImage::Format_RGBA64);
  const std::size_t n = out.itemCount();
  const std::size_t width = std::size_t(image.width());
  AlphaUse use;
  for (int y = 0; y < image.height(); ++y) {
    const auto* row = reinterpret_cast<const quint16*>(image.constScanLine(y));
    for (std::size_t x = 0; x < width; ++x) {
      const quint16 a = row[4 * x + 3];
      use.transparent |= a == 0;
      use.partial |= a != 0 && a != 65535;
    }
  }
  const int d = use.partial ? 4 : 3;
  std::vector<float> values;
  values.reserve(n * std::size_t(d));
  std::vector<std::uint32_t> index(use.transparent ? n : 0);
  std::size_t kept = 0;
  for (int y = 0; y < image.height(); ++y) {
    const auto* row = reinterpret_cast<const quint16*>(image.constScanLine(y));
    for (std::size_t x = 0; x < width; ++x) {
      const quint16 a = row[4 * x + 3];
      const std::size_t item = std::size_t(y) * width + x;
      if (use.transparent && a == 0) {
        index[item] = kNoRow;
        continue;
      }
      for (int c = 0; c < d; ++c)
        values.push_back(float(row[4 * x + std::size_t(c)]) / 65535.0f);
      if (use.transparent) index[item] = std::uint32_t(kept);
      ++kept;
    }
    if (y % 256 == 255) progress.update(0.5 + 0.3 * double(y + 1) / image.height());
  }
  if (kept == 0) file.fail(QStringLiteral("every pixel is fully transparent"));
  out.d = d;
  if (auto rows = distinctRows(values.data(), kept, d)) {
    out.n = rows->rows();
    out.values = std::move(rows->values);
    out.counts = std::move(rows->counts);
    if (index.empty()) {
      out.index = std::move(rows->index);
    } else {  // chain: pixel → kept pixel → distinct row
      for (std::uint32_t& r : index)
        if (r != kNoRow) r = rows->index[r];
      out.index = std::move(index);
    }
    out.notes << QStringLiteral("16-bit colours, %1 distinct").arg(groupedCount(out.n));
  } else {
    out.n = kept;
    out.values = std::move(values);
    out.index = std::move(index);
    if (!out.index.empty()) out.counts.assign(out.n, 1u);  // left-out pixels need the index
    out.notes << QStringLiteral(
        "16-bit colours, nearly every pixel different: clustered pixel by pixel");
  }
  if (use.transparent)
    out.notes << QStringLiteral("fully transparent pixels are left out of clustering");
  out.picture = image.convertToFormat(use.transparent || use.partial ? QImage::Format_ARGB32
                                                                     : QImage::Format_RGB32);
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
  const int frames = reader.imageCount();
  QElapsedTimer clock;
  clock.start();
  QImage image = reader.read();
  const double decodeMs = double(clock.nsecsElapsed()) / 1e6;
  if (image.isNull()) file.fail(QStringLiteral("cannot decode the image: ") + reader.errorString());
  requirePixelBudget(file, image.size(), options.maxValues);  // when size() was unknown
  file.requireUnchanged();  // a picture cut short mid-decode would come out half grey
  progress.update(0.5);

  auto out = std::make_shared<Dataset>();
  const QFileInfo info(path);
  out->source = info.absoluteFilePath();
  out->displayName = info.fileName();
  out->kind = DatasetKind::Image;
  out->width = image.width();
  out->height = image.height();
  // Until the colours are compacted, every pixel is a row (itemCount() reads n).
  out->n = std::size_t(image.width()) * std::size_t(image.height());
  if (frames > 1)
    out->notes << QStringLiteral("an animation of %1 frames: the first frame is used").arg(frames);
  out->loadMs.emplace_back(QStringLiteral("decode"), decodeMs);
  clock.start();
  if (hasDeepChannels(image))
    loadDeep(file, std::move(image), progress, *out);
  else
    compactEightBit(file, std::move(image), progress, options, *out);
  out->loadMs.emplace_back(QStringLiteral("distinct colours"), double(clock.nsecsElapsed()) / 1e6);
  out->dimensionNames = QStringList{QStringLiteral("R"), QStringLiteral("G"), QStringLiteral("B")};
  if (out->d == 4) out->dimensionNames << QStringLiteral("A");
  progress.update(1.0);
  return out;
}

}  // namespace kms::app::io
