// Robustness: valid files of every format, damaged in many deterministic ways (truncated, bytes
// flipped, header digits changed), must load or throw LoadError — never crash, hang or throw
// anything else. Run under ASan/UBSan this also catches out-of-bounds reads.
#include <gtest/gtest.h>

#include <QBuffer>
#include <QFile>
#include <QImage>

#include "core/random.h"
#include "io/export.h"
#include "test_support.h"

namespace kms::app::test {
namespace {

QByteArray validPly() {
  const TempFiles files;
  Dataset cloud;
  cloud.n = 40;
  cloud.d = 3;
  for (int i = 0; i < 120; ++i)
    cloud.values.push_back(float(i) * 0.25f);
  cloud.pointColours.assign(40, 0x336699);
  writePointsPly(files.path("c.ply"), cloud);
  QFile file(files.path("c.ply"));
  file.open(QIODevice::ReadOnly);
  return file.readAll();
}

QByteArray validPng() {
  QImage image(12, 9, QImage::Format_ARGB32);
  for (int y = 0; y < 9; ++y)
    for (int x = 0; x < 12; ++x)
      image.setPixel(x, y, qRgba(20 * x, 25 * y, 99, 200 + y));
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  image.save(&buffer, "png");
  return bytes;
}

/// One damaged copy of `original`: truncated, a few bytes overwritten, or a digit changed.
QByteArray damage(const QByteArray& original, Random& rng) {
  QByteArray bytes = original;
  const auto at = [&] { return qsizetype(rng.uniform() * double(bytes.size())); };
  switch (int(rng.uniform() * 3)) {
    case 0:
      bytes.truncate(at());
      break;
    case 1:
      for (int i = 1 + int(rng.uniform() * 4); i > 0 && !bytes.isEmpty(); --i)
        bytes[at()] = char(rng.next());
      break;
    default:
      for (qsizetype i = 0; i < bytes.size(); ++i)
        if (bytes[i] >= '0' && bytes[i] <= '9' && rng.uniform() < 0.05)
          bytes[i] = char('0' + rng.next() % 10);
      break;
  }
  return bytes;
}

TEST(Mutations, DamagedFilesLoadOrFailCleanly) {
  const TempFiles files;
  std::vector<std::pair<QString, QByteArray>> originals = {
      {"points.csv", "# sample\nid,x,y,z\n1,0.5,1.5,-2\n2,3,4,5e-3\n3,+6,7,8\n"},
      {"points.txt", "1 2 3\n4 5 6\n7 8 9\n"},
      {"points.bin", classicBinary(4, 3, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})},
      {"array.npy", npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (3, 2), }",
                            littleEndian(std::vector<double>{1, 2, 3, 4, 5, 6}))},
      {"cloud.ply", validPly()},
      {"ascii.ply",
       "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\nproperty float y\n"
       "property list uchar int n\nend_header\n1 2 1 7\n3 4 0\n5 6 2 8 9\n"},
      {"image.png", validPng()},
  };
  Random rng(2024);
  int loaded = 0, rejected = 0;
  for (const auto& [name, bytes] : originals) {
    for (int round = 0; round < 150; ++round) {
      const QString path = files.write(name, damage(bytes, rng));
      try {
        const DatasetPtr data = loadDataset(path);
        ASSERT_EQ(data->values.size(), data->n * std::size_t(data->d)) << name.toStdString();
        ++loaded;
      } catch (const LoadError& e) {
        ASSERT_TRUE(QString::fromUtf8(e.what()).startsWith(name + QStringLiteral(": ")))
            << e.what();
        ++rejected;
      } catch (const std::exception& e) {
        FAIL() << name.toStdString() << " round " << round << " threw " << e.what();
      }
    }
  }
  // Both outcomes happen: the damage is neither always harmless nor always fatal.
  EXPECT_GT(loaded, 50);
  EXPECT_GT(rejected, 300);
}

}  // namespace
}  // namespace kms::app::test
