#include "io/load.h"

#include <QFile>
#include <QFileInfo>
#include <QImageReader>

#include <new>
#include <string_view>

#include "io/binary_loader.h"
#include "io/image_loader.h"
#include "io/npy_loader.h"
#include "io/ply_loader.h"
#include "io/text_loader.h"

namespace kms::app {
namespace {

enum class Reader { Image, Text, ClassicBinary, Ply, Npy, Unknown };

const QStringList& textSuffixes() {
  static const QStringList kSuffixes = {QStringLiteral("csv"), QStringLiteral("tsv"),
                                        QStringLiteral("txt"), QStringLiteral("xyz")};
  return kSuffixes;
}

const QStringList& imageSuffixes() {
  static const QStringList kSuffixes = [] {
    QStringList suffixes;
    for (const QByteArray& format : QImageReader::supportedImageFormats())
      suffixes << QString::fromLatin1(format).toLower();
    return suffixes;
  }();
  return kSuffixes;
}

bool hasImageMagic(std::string_view head) {
  const bool bmp = head.starts_with("BM") && head.size() >= 10 &&
                   head.substr(6, 4) == std::string_view("\0\0\0\0", 4);  // reserved words
  const bool webp = head.starts_with("RIFF") && head.size() >= 12 && head.substr(8, 4) == "WEBP";
  return head.starts_with("\x89PNG\r\n\x1a\n") || head.starts_with("\xFF\xD8\xFF") ||
         head.starts_with("GIF87a") || head.starts_with("GIF89a") || bmp || webp ||
         head.starts_with(std::string_view("II*\0", 4)) ||
         head.starts_with(std::string_view("MM\0*", 4));
}

Reader chooseReader(const QString& path) {
  QFile file(path);
  QByteArray headBytes;
  if (file.open(QIODevice::ReadOnly)) headBytes = file.read(64);
  const std::string_view head(headBytes.constData(), std::size_t(headBytes.size()));
  const std::uint64_t size = std::uint64_t(std::max<qint64>(file.size(), 0));

  if (hasImageMagic(head)) return Reader::Image;
  if (head.starts_with("ply\n") || head.starts_with("ply\r\n")) return Reader::Ply;
  if (head.starts_with("\x93NUMPY")) return Reader::Npy;

  const QString suffix = QFileInfo(path).suffix().toLower();
  if (suffix == u"npy") return Reader::Npy;
  if (suffix == u"ply") return Reader::Ply;
  if (suffix == u"bin") return Reader::ClassicBinary;
  if (textSuffixes().contains(suffix)) return Reader::Text;
  if (suffix == u"dat")
    return io::looksLikeClassicBinary(head, size) ? Reader::ClassicBinary : Reader::Text;
  if (imageSuffixes().contains(suffix)) return Reader::Image;
  if (io::looksLikeClassicBinary(head, size)) return Reader::ClassicBinary;
  // Nothing to go on: an unreadable or missing file is reported by the text reader.
  return head.find('\0') == std::string_view::npos ? Reader::Text : Reader::Unknown;
}

}  // namespace

std::vector<float> loadCentroids(const QString& path, int d) {
  const DatasetPtr table = io::loadTextPoints(path, {});
  const QString name = QFileInfo(path).fileName();
  std::size_t first = 0, columns = std::size_t(table->d);
  // A centroids export: "cluster", the coordinates, "share".
  if (columns >= 3 &&
      table->dimensionNames.value(0).compare(QLatin1String("cluster"), Qt::CaseInsensitive) == 0 &&
      table->dimensionNames.value(int(columns) - 1)
              .compare(QLatin1String("share"), Qt::CaseInsensitive) == 0) {
    first = 1;
    columns -= 2;
  }
  if (columns != std::size_t(d))
    throw LoadError(
        name,
        QStringLiteral("%1 values per centroid, but the data have d = %2").arg(columns).arg(d));
  std::vector<float> centroids;
  centroids.reserve(table->n * columns);
  for (std::size_t i = 0; i < table->n; ++i)
    for (std::size_t c = 0; c < columns; ++c)
      centroids.push_back(table->values[i * std::size_t(table->d) + first + c]);
  return centroids;
}

namespace {

DatasetPtr loadWithReader(const QString& path, const LoadOptions& options) {
  switch (chooseReader(path)) {
    case Reader::Image:
      return io::loadImage(path, options);
    case Reader::Text:
      return io::loadTextPoints(path, options);
    case Reader::ClassicBinary:
      return io::loadClassicBinary(path, options);
    case Reader::Ply:
      return io::loadPly(path, options);
    case Reader::Npy:
      return io::loadNpy(path, options);
    case Reader::Unknown:
      break;
  }
  throw LoadError(path, QStringLiteral("file format not recognised"));
}

}  // namespace

DatasetPtr loadDataset(const QString& path, const LoadOptions& options) {
  try {
    return loadWithReader(path, options);
  } catch (const std::bad_alloc&) {
    // Everything the reader had allocated is released by now, so the message can be built.
    const double gigabytes = double(QFileInfo(path).size()) / 1e9;
    throw LoadError(path, QStringLiteral("not enough memory to load it (the file is %1 GB; "
                                         "free memory or use a smaller file)")
                              .arg(gigabytes, 0, 'f', 2));
  }
}

QStringList supportedNameFilters() {
  QStringList images;
  for (const QString& suffix : imageSuffixes())
    images << QStringLiteral("*.") + suffix;
  const QStringList text = {QStringLiteral("*.csv"), QStringLiteral("*.tsv"),
                            QStringLiteral("*.txt"), QStringLiteral("*.xyz")};
  const QStringList binary = {QStringLiteral("*.bin"), QStringLiteral("*.dat")};
  const QString all = (images + text + binary + QStringList{"*.ply", "*.npy"}).join(u' ');
  return {
      QStringLiteral("All supported (%1)").arg(all),
      QStringLiteral("Images (%1)").arg(images.join(u' ')),
      QStringLiteral("Text point files (%1)").arg(text.join(u' ')),
      QStringLiteral("Binary point files: int32 N, int32 d, float32 data (%1)")
          .arg(binary.join(u' ')),
      QStringLiteral("PLY point clouds (*.ply)"),
      QStringLiteral("NumPy arrays (*.npy)"),
      QStringLiteral("All files (*)"),
  };
}

bool readsAsText(const QString& path) {
  return chooseReader(path) == Reader::Text;
}

bool looksLikeImage(const QString& path) {
  return chooseReader(path) == Reader::Image;
}

}  // namespace kms::app
