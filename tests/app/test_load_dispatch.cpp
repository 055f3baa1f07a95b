// loadDataset(): choosing the reader by content and suffix, file-system errors, name filters.
#include <gtest/gtest.h>

#include <QBuffer>
#include <QDir>
#include <QFile>
#include <QImage>

#include "test_support.h"

namespace kms::app::test {
namespace {

QByteArray pngBytes() {
  QImage image(3, 2, QImage::Format_RGB32);
  image.fill(qRgb(255, 0, 0));
  QByteArray bytes;
  QBuffer buffer(&bytes);
  buffer.open(QIODevice::WriteOnly);
  image.save(&buffer, "png");
  return bytes;
}

TEST(LoadDispatch, MissingFilesAreNamedWhateverTheSuffix) {
  const TempFiles files;
  for (const char* name :
       {"nothing.csv", "nothing.png", "nothing.npy", "nothing.ply", "nothing.bin", "nothing"})
    EXPECT_TRUE(failsToLoad(files.path(QString::fromLatin1(name)), {"file does not exist"}))
        << name;
}

TEST(LoadDispatch, DirectoriesAreRejected) {
  const TempFiles files;
  QDir().mkpath(files.path("folder.csv"));
  EXPECT_TRUE(failsToLoad(files.path("folder.csv"), {"is a directory"}));
  QDir().mkpath(files.path("folder"));
  EXPECT_TRUE(failsToLoad(files.path("folder"), {"is a directory"}));
}

TEST(LoadDispatch, UnreadableFilesAreRejected) {
  if (ignoresFilePermissions())
    GTEST_SKIP() << "this process reads files whatever their permissions (root)";
  const TempFiles files;
  const QString path = files.write("secret.csv", "1,2\n");
  QFile::setPermissions(path, QFileDevice::Permissions());
  EXPECT_TRUE(failsToLoad(path, {"cannot be opened"}));
}

TEST(LoadDispatch, EmptyFilesAreRejectedByEveryReader) {
  const TempFiles files;
  for (const char* name :
       {"empty.csv", "empty.png", "empty.npy", "empty.ply", "empty.bin", "empty"})
    EXPECT_TRUE(failsToLoad(files.write(QString::fromLatin1(name), {}), {"file is empty"})) << name;
}

TEST(LoadDispatch, MagicBytesWinOverTheSuffix) {
  const TempFiles files;
  const DatasetPtr image = loadOrFail(files.write("actually-an-image.csv", pngBytes()));
  ASSERT_TRUE(image);
  EXPECT_TRUE(image->isImage());
  const DatasetPtr ply =
      loadOrFail(files.write("cloud.txt",
                             "ply\nformat ascii 1.0\nelement vertex 1\nproperty float x\n"
                             "property float y\nend_header\n4 5\n"));
  ASSERT_TRUE(ply);
  EXPECT_EQ(ply->values, (std::vector<float>{4, 5}));
  const DatasetPtr npy = loadOrFail(
      files.write("array.bin", npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
                                       littleEndian(std::vector<float>{1, 2}))));
  ASSERT_TRUE(npy);
  EXPECT_EQ(npy->d, 1);
}

TEST(LoadDispatch, DatAndUnknownSuffixesAreSniffed) {
  const TempFiles files;
  const DatasetPtr text = loadOrFail(files.write("points.dat", "1.5 2.5\n3.5 4.5\n"));
  ASSERT_TRUE(text);
  EXPECT_EQ(text->values, (std::vector<float>{1.5f, 2.5f, 3.5f, 4.5f}));
  const DatasetPtr binary = loadOrFail(files.write("points.raw", classicBinary(1, 2, {7, 8})));
  ASSERT_TRUE(binary);
  EXPECT_EQ(binary->values, (std::vector<float>{7, 8}));
  const DatasetPtr unnamed = loadOrFail(files.write("points", "9 10\n"));
  ASSERT_TRUE(unnamed);
  EXPECT_EQ(unnamed->values, (std::vector<float>{9, 10}));
  EXPECT_TRUE(failsToLoad(files.write("blob.xyz1", QByteArray("\x01\x02\0\x03garbage", 11)),
                          {"file format not recognised"}));
  // A .bin whose header does not match its size gets the binary reader's precise message.
  EXPECT_TRUE(failsToLoad(files.write("bad.bin", classicBinary(5, 2, {1, 2})),
                          {"expected 40 bytes of point data"}));
}

TEST(LoadDispatch, LooksLikeImageFollowsTheSameRules) {
  const TempFiles files;
  EXPECT_TRUE(looksLikeImage(files.write("disguised.dat", pngBytes())));
  EXPECT_TRUE(looksLikeImage(files.path("not-yet-there.jpg")));
  EXPECT_TRUE(looksLikeImage(files.path("photo.WEBP")));
  EXPECT_FALSE(looksLikeImage(files.write("points.csv", "1,2\n")));
  EXPECT_FALSE(looksLikeImage(files.write("BMI.csv", "BMI,age\n1,2\n")));  // "BM" but text
}

TEST(LoadDispatch, NameFiltersListEveryFormat) {
  const QStringList filters = supportedNameFilters();
  ASSERT_GE(filters.size(), 3);
  EXPECT_TRUE(filters.front().startsWith(QStringLiteral("All supported (")));
  for (const char* pattern : {"*.png", "*.jpg", "*.jpeg", "*.bmp", "*.gif", "*.tiff", "*.webp",
                              "*.csv", "*.tsv", "*.txt", "*.bin", "*.dat", "*.ply", "*.npy"})
    EXPECT_TRUE(filters.front().contains(QLatin1String(pattern))) << pattern;
  EXPECT_EQ(filters.back(), QStringLiteral("All files (*)"));
}

}  // namespace
}  // namespace kms::app::test
