// Palettes, labels and centroids as text files.
#include <QColor>

#include <stdexcept>

#include "io/export.h"
#include "io/save_file.h"

namespace kms::app {
namespace {

/// Checks that `palette` holds k colours matching `shares`; returns k.
std::size_t paletteSize(const std::vector<QRgb>& palette, const std::vector<double>& shares) {
  if (palette.size() != shares.size())
    throw std::invalid_argument("palette: k colours must match the k shares");
  return shares.size();
}

QByteArray hexName(QRgb colour) {
  QByteArray name = QColor(colour).name().toLatin1();  // #rrggbb
  if (qAlpha(colour) != 255) name += QByteArray::number(qAlpha(colour) + 256, 16).mid(1);  // aa
  return name;
}

}  // namespace

void writePaletteGpl(const QString& path, const std::vector<QRgb>& palette,
                     const std::vector<double>& shares, const QString& name) {
  paletteSize(palette, shares);
  io::saveFile(path, [&](QIODevice& device) {
    io::BlockWriter out(device);
    QString oneLineName = name;
    oneLineName.replace(u'\n', u' ').replace(u'\r', u' ');
    out << "GIMP Palette\nName: " << oneLineName.toUtf8() << "\nColumns: 4\n#\n";
    for (int c : io::orderByShare(shares)) {
      const QRgb colour = palette[std::size_t(c)] | 0xff000000u;  // GIMP palettes are opaque
      out << QByteArray::number(qRed(colour)).rightJustified(3) << ' '
          << QByteArray::number(qGreen(colour)).rightJustified(3) << ' '
          << QByteArray::number(qBlue(colour)).rightJustified(3) << '\t' << hexName(colour) << ' '
          << QByteArray::number(shares[std::size_t(c)] * 100.0, 'f', 1) << "%\n";
    }
  });
}

void writePaletteHex(const QString& path, const std::vector<QRgb>& palette,
                     const std::vector<double>& shares) {
  paletteSize(palette, shares);
  io::saveFile(path, [&](QIODevice& device) {
    io::BlockWriter out(device);
    for (int c : io::orderByShare(shares))
      out << hexName(palette[std::size_t(c)]) << '\n';
  });
}

void writeLabelsCsv(const QString& path, const Dataset& dataset,
                    const std::vector<std::int32_t>& rowLabels) {
  if (rowLabels.size() != dataset.n)
    throw std::invalid_argument("writeLabelsCsv: one label per row is needed");
  io::saveFile(path, [&](QIODevice& device) {
    io::BlockWriter out(device);
    out << "index,label\n";
    const std::size_t items = dataset.itemCount();
    for (std::size_t i = 0; i < items; ++i) {
      const std::uint32_t row = dataset.rowOf(i);
      out << (long long)i << ',' << (long long)(row == kNoRow ? -1 : rowLabels[row]) << '\n';
    }
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
