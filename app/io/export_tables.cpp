// Palettes, labels and centroids as text files.
#include <QColor>

#include <stdexcept>

#include "io/export.h"
#include "io/save_file.h"

namespace kms::app {
namespace {

/// Checks that `centroids` holds k RGB triples matching `shares`; returns k.
std::size_t paletteSize(const std::vector<float>& centroids, const std::vector<double>& shares) {
  if (centroids.size() != shares.size() * 3)
    throw std::invalid_argument("palette: centroids must be k RGB triples matching the k shares");
  return shares.size();
}

QByteArray hexName(QRgb colour) {
  return QColor(colour).name().toLatin1();
}

}  // namespace

void writePaletteGpl(const QString& path, const std::vector<float>& centroids,
                     const std::vector<double>& shares, const QString& name) {
  paletteSize(centroids, shares);
  io::saveFile(path, [&](QIODevice& device) {
    io::BlockWriter out(device);
    QString oneLineName = name;
    oneLineName.replace(u'\n', u' ').replace(u'\r', u' ');
    out << "GIMP Palette\nName: " << oneLineName.toUtf8() << "\nColumns: 4\n#\n";
    for (int c : io::orderByShare(shares)) {
      const QRgb colour = centroidColour(&centroids[std::size_t(c) * 3]);
      out << QByteArray::number(qRed(colour)).rightJustified(3) << ' '
          << QByteArray::number(qGreen(colour)).rightJustified(3) << ' '
          << QByteArray::number(qBlue(colour)).rightJustified(3) << '\t' << hexName(colour) << ' '
          << QByteArray::number(shares[std::size_t(c)] * 100.0, 'f', 1) << "%\n";
    }
  });
}

void writePaletteHex(const QString& path, const std::vector<float>& centroids,
                     const std::vector<double>& shares) {
  paletteSize(centroids, shares);
  io::saveFile(path, [&](QIODevice& device) {
    io::BlockWriter out(device);
    for (int c : io::orderByShare(shares))
      out << hexName(centroidColour(&centroids[std::size_t(c) * 3])) << '\n';
  });
}

void writeLabelsCsv(const QString& path, const std::vector<std::int32_t>& labels) {
  io::saveFile(path, [&](QIODevice& device) {
    io::BlockWriter out(device);
    out << "index,label\n";
    for (std::size_t i = 0; i < labels.size(); ++i)
      out << (long long)i << ',' << (long long)labels[i] << '\n';
  });
}

void writeCentroidsCsv(const QString& path, const std::vector<float>& centroids, int d,
                       const QStringList& dimensionNames, const std::vector<double>& shares) {
  if (d < 1 || centroids.size() != shares.size() * std::size_t(d))
    throw std::invalid_argument("writeCentroidsCsv: centroids must be k × d matching the k shares");
  const QStringList names = dimensionNames.size() == d ? dimensionNames : defaultDimensionNames(d);
  io::saveFile(path, [&](QIODevice& device) {
    io::BlockWriter out(device);
    out << "cluster";
    for (const QString& name : names)
      out << ',' << io::csvField(name);
    out << ",share\n";
    for (std::size_t c = 0; c < shares.size(); ++c) {
      out << (long long)c;
      for (int j = 0; j < d; ++j)
        out << ',' << centroids[c * std::size_t(d) + std::size_t(j)];
      out << ',' << shares[c] << '\n';
    }
  });
}

}  // namespace kms::app
