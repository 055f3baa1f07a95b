// quantizedImage, clusterShares and writeImage.
#include <QFileInfo>
#include <QImageWriter>

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "io/export.h"
#include "io/save_file.h"

namespace kms::app {

QRgb centroidColour(const float* rgb) {
  const auto byte = [](float v) { return int(std::clamp(std::lround(v * 255.0f), 0L, 255L)); };
  return qRgb(byte(rgb[0]), byte(rgb[1]), byte(rgb[2]));
}

QImage quantizedImage(const Dataset& dataset, const std::vector<float>& centroids,
                      const std::vector<std::int32_t>& labels) {
  if (!dataset.isImage() || dataset.d != 3)
    throw std::invalid_argument("quantizedImage: the data set is not an image");
  if (labels.size() != dataset.n || centroids.size() % 3 != 0)
    throw std::invalid_argument("quantizedImage: labels or centroids do not match the image");
  const std::size_t k = centroids.size() / 3;
  std::vector<QRgb> palette(k);
  for (std::size_t c = 0; c < k; ++c)
    palette[c] = centroidColour(&centroids[3 * c]);

  const bool opaque = dataset.alpha.empty();
  QImage image(dataset.width, dataset.height,
               opaque ? QImage::Format_RGB32 : QImage::Format_ARGB32);
  for (int y = 0; y < dataset.height; ++y) {
    QRgb* row = reinterpret_cast<QRgb*>(image.scanLine(y));
    for (int x = 0; x < dataset.width; ++x) {
      const std::size_t i = std::size_t(y) * std::size_t(dataset.width) + std::size_t(x);
      const auto label = std::size_t(labels[i]);
      if (label >= k) throw std::invalid_argument("quantizedImage: label out of range");
      row[x] =
          opaque ? palette[label] : (palette[label] & 0x00FFFFFFu) | (QRgb(dataset.alpha[i]) << 24);
    }
  }
  return image;
}

std::vector<double> clusterShares(const Dataset& dataset, const std::vector<std::int32_t>& labels,
                                  int k) {
  if (labels.size() != dataset.n || k < 1)
    throw std::invalid_argument("clusterShares: labels do not match the data set");
  std::vector<double> shares(std::size_t(k), 0.0);
  double total = 0.0;
  for (std::size_t i = 0; i < labels.size(); ++i) {
    if (labels[i] < 0 || labels[i] >= k)
      throw std::invalid_argument("clusterShares: label out of range");
    const double w = dataset.weights.empty() ? 1.0 : double(dataset.weights[i]);
    shares[std::size_t(labels[i])] += w;
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
  io::saveFile(path, [&](QIODevice& device) {
    QImageWriter writer(&device, format);
    if (!writer.write(image))
      throw ExportError(path, QStringLiteral("cannot encode the image: ") + writer.errorString());
  });
}

}  // namespace kms::app
