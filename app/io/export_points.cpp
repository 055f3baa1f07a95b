// Point sets as CSV and binary PLY (used to write the bundled samples and by "Save data as").
#include <QtEndian>

#include "io/export.h"
#include "io/save_file.h"

namespace kms::app {

void writePointsCsv(const QString& path, const Dataset& dataset) {
  const std::size_t d = std::size_t(dataset.d);
  const QStringList names = dataset.dimensionNames.size() == dataset.d
                                ? dataset.dimensionNames
                                : defaultDimensionNames(dataset.d);
  io::saveFile(path, [&](QIODevice& device) {
    io::BlockWriter out(device);
    for (int j = 0; j < dataset.d; ++j)
      out << (j ? "," : "") << io::csvField(names[j]);
    out << '\n';
    for (std::size_t i = 0; i < dataset.n; ++i) {
      for (std::size_t j = 0; j < d; ++j) {
        if (j) out << ',';
        out << dataset.values[i * d + j];
      }
      out << '\n';
    }
  });
}

void writePointsPly(const QString& path, const Dataset& dataset) {
  if (dataset.d != 2 && dataset.d != 3)
    throw ExportError(
        path, QStringLiteral("PLY stores 2 or 3 coordinates; this data set has %1").arg(dataset.d));
  const bool colours = dataset.pointColours.size() == dataset.n;
  const std::size_t d = std::size_t(dataset.d);
  io::saveFile(path, [&](QIODevice& device) {
    io::BlockWriter out(device);
    out << "ply\nformat binary_little_endian 1.0\ncomment written by KMeans Studio\n"
        << "element vertex " << QByteArray::number(qulonglong(dataset.n)) << '\n'
        << "property float x\nproperty float y\n"
        << (d == 3 ? "property float z\n" : "");
    if (colours) out << "property uchar red\nproperty uchar green\nproperty uchar blue\n";
    out << "end_header\n";
    QByteArray vertex;
    for (std::size_t i = 0; i < dataset.n; ++i) {
      vertex.clear();
      for (std::size_t j = 0; j < d; ++j) {
        char bytes[4];
        qToLittleEndian(dataset.values[i * d + j], bytes);
        vertex.append(bytes, 4);
      }
      if (colours) {
        const std::uint32_t rgb = dataset.pointColours[i];
        vertex.append(char(rgb >> 16)).append(char(rgb >> 8)).append(char(rgb));
      }
      out << vertex;
    }
  });
}

}  // namespace kms::app
