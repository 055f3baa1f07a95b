// Pictures: cluster colours, the quantised picture from the compact form, shares, and writing
// images (palette PNGs through io/png_writer).
#include <QFileInfo>
#include <QImageWriter>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "core/parallel.h"
#include "io/export.h"
#include "io/png_writer.h"
#include "io/save_file.h"

namespace kms::app {
namespace {

int channel(float v) {
  return int(std::clamp(std::lround(v * 255.0f), 0L, 255L));
}

/// The colour table of a quantised picture: the clusters, then a transparent entry when some
/// pixels were left out of clustering.
QList<QRgb> colourTable(const std::vector<QRgb>& palette, bool leftOut) {
  QList<QRgb> table(palette.begin(), palette.end());
  if (leftOut) table.append(qRgba(0, 0, 0, 0));
  return table;
}

}  // namespace

QRgb centroidColour(const float* values, int d) {
  return qRgba(channel(values[0]), channel(values[1]), channel(values[2]),
               d == 4 ? channel(values[3]) : 255);
}

std::vector<QRgb> paletteOf(const std::vector<float>& centroids, int d) {
  if (d != 3 && d != 4) throw std::invalid_argument("paletteOf: a colour has 3 or 4 values");
  std::vector<QRgb> palette(centroids.size() / std::size_t(d));
  for (std::size_t c = 0; c < palette.size(); ++c)
    palette[c] = centroidColour(&centroids[c * std::size_t(d)], d);
  return palette;
}

QImage quantizedImage(const Dataset& dataset, const std::vector<QRgb>& palette,
                      const std::vector<std::int32_t>& rowLabels) {
  if (!dataset.isImage() || dataset.width <= 0 || dataset.height <= 0 ||
      std::size_t(dataset.width) * std::size_t(dataset.height) != dataset.itemCount())
    throw std::invalid_argument("quantizedImage: the data set is not a picture");
  if (rowLabels.size() != dataset.n || palette.empty())
    throw std::invalid_argument("quantizedImage: labels or palette do not match the picture");
  for (std::int32_t label : rowLabels)
    if (label < 0 || std::size_t(label) >= palette.size())
      throw std::invalid_argument("quantizedImage: label out of range");
  const bool leftOut = dataset.hasLeftOutItems();
  const QList<QRgb> table = colourTable(palette, leftOut);
  const std::size_t width = std::size_t(dataset.width);
  if (table.size() <= 256) {
    QImage image(dataset.width, dataset.height, QImage::Format_Indexed8);
    image.setColorTable(table);
    const uchar none = uchar(palette.size());  // the transparent entry
    uchar* bits = image.bits();  // once: threads write their rows through plain pointers
    const std::size_t stride = std::size_t(image.bytesPerLine());
    parallelRanges(std::size_t(dataset.height), 64, [&](std::size_t y0, std::size_t y1) {
      for (std::size_t y = y0; y < y1; ++y) {
        uchar* line = bits + y * stride;
        for (std::size_t x = 0; x < width; ++x) {
          const std::uint32_t row = dataset.rowOf(y * width + x);
          line[x] = row == kNoRow ? none : uchar(rowLabels[row]);
        }
      }
    });
    return image;
  }
  bool opaque = !leftOut;
  for (QRgb c : palette)
    opaque = opaque && qAlpha(c) == 255;
  QImage image(dataset.width, dataset.height,
               opaque ? QImage::Format_RGB32 : QImage::Format_ARGB32);
  uchar* bits = image.bits();
  const std::size_t stride = std::size_t(image.bytesPerLine());
  parallelRanges(std::size_t(dataset.height), 64, [&](std::size_t y0, std::size_t y1) {
    for (std::size_t y = y0; y < y1; ++y) {
      auto* line = reinterpret_cast<QRgb*>(bits + y * stride);
      for (std::size_t x = 0; x < width; ++x) {
        const std::uint32_t row = dataset.rowOf(y * width + x);
        line[x] = row == kNoRow ? qRgba(0, 0, 0, 0) : palette[std::size_t(rowLabels[row])];
      }
    }
  });
  return image;
}

std::vector<double> clusterShares(const Dataset& dataset,
                                  const std::vector<std::int32_t>& rowLabels, int k) {
  if (rowLabels.size() != dataset.n || k < 1)
    throw std::invalid_argument("clusterShares: labels do not match the data set");
  std::vector<double> shares(std::size_t(k), 0.0);
  double total = 0.0;
  for (std::size_t r = 0; r < rowLabels.size(); ++r) {
    if (rowLabels[r] < 0 || rowLabels[r] >= k)
      throw std::invalid_argument("clusterShares: label out of range");
    const double w = !dataset.counts.empty()    ? double(dataset.counts[r])
                     : !dataset.weights.empty() ? double(dataset.weights[r])
                                                : 1.0;
    shares[std::size_t(rowLabels[r])] += w;
    total += w;
  }
  if (total > 0.0)
    for (double& share : shares)
      share /= total;
  return shares;
}

void writeImage(const QString& path, const QImage& image) {
  QByteArray format = QFileInfo(path).suffix().toLower().toLatin1();
  if (format.isEmpty()) format = "png";
  if (!QImageWriter::supportedImageFormats().contains(format))
    throw ExportError(
        path,
        QStringLiteral("cannot write images in the '%1' format").arg(QString::fromLatin1(format)));
  if (format == "png" && image.format() == QImage::Format_Indexed8 && image.colorCount() > 0) {
    io::saveFile(path, [&](QIODevice& device) { io::writePalettePng(device, image, path); });
    return;
  }
  // Formats without palettes get true colour; JPEG has no alpha either.
  QImage out = image;
  if (image.format() == QImage::Format_Indexed8)
    out = image.convertToFormat(image.hasAlphaChannel() ? QImage::Format_ARGB32
                                                        : QImage::Format_RGB32);
  io::saveFile(path, [&](QIODevice& device) {
    QImageWriter writer(&device, format);
    if (!writer.write(out))
      throw ExportError(path, QStringLiteral("cannot encode the image: ") + writer.errorString());
  });
}

}  // namespace kms::app
