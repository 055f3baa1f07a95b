// Images: pixel values, alpha, every codec, 16-bit, EXIF orientation, size limits, corruption.
#include <gtest/gtest.h>

#include <QBuffer>
#include <QImage>
#include <QImageReader>
#include <QImageWriter>

#include "test_support.h"

namespace kms::app::test {
namespace {

/// A small image with distinct colours: pixel (x, y) = (40x + 3, 50y + 7, 255 − 30x − 20y).
QImage testImage(int width = 5, int height = 4, QImage::Format format = QImage::Format_RGB32) {
  QImage image(width, height, format);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x)
      image.setPixel(x, y, qRgb(40 * x + 3, 50 * y + 7, 255 - 30 * x - 20 * y));
  return image;
}

/// CRC-32 as PNG chunks use it (ISO 3309, reflected, polynomial 0xEDB88320).
quint32 crc32(const QByteArray& bytes) {
  quint32 crc = 0xFFFFFFFFu;
  for (char byte : bytes) {
    crc ^= quint8(byte);
    for (int bit = 0; bit < 8; ++bit)
      crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

QString save(const TempFiles& files, const QImage& image, const char* name,
             const char* format = nullptr) {
  const QString path = files.path(QString::fromLatin1(name));
  EXPECT_TRUE(image.save(path, format, 100)) << name;
  return path;
}

TEST(ImageLoader, PngPixelsBecomeExactRgbPoints) {
  const TempFiles files;
  const DatasetPtr data = loadOrFail(save(files, testImage(), "photo.png"));
  ASSERT_TRUE(data);
  EXPECT_TRUE(data->isImage());
  EXPECT_EQ(data->width, 5);
  EXPECT_EQ(data->height, 4);
  EXPECT_EQ(data->n, 20u);
  EXPECT_EQ(data->d, 3);
  EXPECT_EQ(data->dimensionNames, (QStringList{"R", "G", "B"}));
  EXPECT_TRUE(data->alpha.empty());
  EXPECT_EQ(data->displayName, QStringLiteral("photo.png"));
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 5; ++x) {
      const std::size_t i = std::size_t(y * 5 + x) * 3;
      EXPECT_EQ(data->values[i], float(40 * x + 3) / 255.0f);
      EXPECT_EQ(data->values[i + 1], float(50 * y + 7) / 255.0f);
      EXPECT_EQ(data->values[i + 2], float(255 - 30 * x - 20 * y) / 255.0f);
    }
}

TEST(ImageLoader, AlphaIsKeptAsideAndColoursAreNotPremultiplied) {
  const TempFiles files;
  QImage image(2, 1, QImage::Format_ARGB32);
  image.setPixel(0, 0, qRgba(200, 100, 50, 128));
  image.setPixel(1, 0, qRgba(10, 20, 30, 255));
  const DatasetPtr data = loadOrFail(save(files, image, "alpha.png"));
  ASSERT_TRUE(data);
  EXPECT_EQ(data->alpha, (std::vector<std::uint8_t>{128, 255}));
  EXPECT_EQ(data->values[0], 200.0f / 255.0f);
  EXPECT_EQ(data->values[3], 10.0f / 255.0f);
}

TEST(ImageLoader, EveryInstalledCodecLoads) {
  const TempFiles files;
  const QImage image = testImage(16, 12);
  for (const char* format : {"png", "jpg", "bmp", "tiff", "webp"}) {
    if (!QImageWriter::supportedImageFormats().contains(format)) {
      ADD_FAILURE() << format << " cannot be written here (qt6-image-formats-plugins missing?)";
      continue;
    }
    const DatasetPtr data =
        loadOrFail(save(files, image, (std::string("image.") + format).c_str()));
    ASSERT_TRUE(data) << format;
    EXPECT_EQ(data->width, 16) << format;
    EXPECT_EQ(data->height, 12) << format;
    // Lossy codecs (JPEG, WebP) change colours a little; the others are exact.
    const float tolerance =
        QByteArray(format) == "jpg" || QByteArray(format) == "webp" ? 0.1f : 0.0f;
    EXPECT_NEAR(data->values[3 * 17], float(40 + 3) / 255.0f, tolerance) << format;
  }
  // Qt reads GIF but cannot write it: the classic 1 × 1 GIF with a red pixel.
  const QByteArray gif(
      "GIF89a\x01\0\x01\0\x80\0\0\xFF\0\0\0\0\0,\0\0\0\0\x01\0\x01\0\0\x02\x02\x44\x01\0;", 35);
  const DatasetPtr red = loadOrFail(files.write("red.gif", gif));
  ASSERT_TRUE(red);
  EXPECT_EQ(red->values, (std::vector<float>{1, 0, 0}));
}

TEST(ImageLoader, SixteenBitChannelsKeepTheirPrecision) {
  const TempFiles files;
  QImage image(1, 1, QImage::Format_RGBA64);
  image.setPixelColor(0, 0, QColor::fromRgba64(1000, 40000, 65535, 65535));
  const DatasetPtr data = loadOrFail(save(files, image, "deep.png"));
  ASSERT_TRUE(data);
  EXPECT_EQ(data->values, (std::vector<float>{1000.0f / 65535.0f, 40000.0f / 65535.0f, 1.0f}));
}

TEST(ImageLoader, ExifOrientationIsApplied) {
  const TempFiles files;
  QByteArray jpeg;
  QBuffer buffer(&jpeg);
  buffer.open(QIODevice::WriteOnly);
  ASSERT_TRUE(testImage(8, 4).save(&buffer, "jpg", 100));
  // An APP1 Exif segment with one IFD entry: Orientation (0x0112) = 6, "rotate 90° clockwise".
  const QByteArray tiff = QByteArray("II*\0\x08\0\0\0", 8) + QByteArray("\x01\0", 2) +
                          QByteArray("\x12\x01\x03\0\x01\0\0\0\x06\0\0\0", 12) +
                          QByteArray(4, '\0');
  const QByteArray exif = QByteArray("Exif\0\0", 6) + tiff;
  const int length = int(exif.size()) + 2;
  const QByteArray segment =
      QByteArray("\xFF\xE1", 2) + char(length >> 8) + char(length & 0xFF) + exif;
  const DatasetPtr data =
      loadOrFail(files.write("rotated.jpg", jpeg.left(2) + segment + jpeg.mid(2)));
  ASSERT_TRUE(data);
  EXPECT_EQ(data->width, 4);
  EXPECT_EQ(data->height, 8);
}

TEST(ImageLoader, SizeIsCheckedBeforeDecoding) {
  const TempFiles files;
  LoadOptions options;
  options.maxValues = 59;  // 20 pixels need 60 values
  EXPECT_TRUE(failsToLoad(save(files, testImage(), "small.png"),
                          {"image of 5 × 4 pixels exceeds the limit of 59 values"}, options));
  // A valid PNG whose IHDR chunk is rewritten to claim 100,000 × 100,000 pixels.
  QByteArray png;
  QBuffer buffer(&png);
  buffer.open(QIODevice::WriteOnly);
  ASSERT_TRUE(testImage().save(&buffer, "png"));
  const char huge[4] = {0x00, 0x01, char(0x86), char(0xA0)};  // 100000, big-endian
  png.replace(16, 4, huge, 4).replace(20, 4, huge, 4);
  const quint32 crc = crc32(png.mid(12, 17));  // chunk type and data
  const char crcBytes[4] = {char(crc >> 24), char(crc >> 16), char(crc >> 8), char(crc)};
  png.replace(29, 4, crcBytes, 4);
  EXPECT_TRUE(failsToLoad(files.write("bomb.png", png),
                          {"image of 100000 × 100000 pixels exceeds the limit"}));
}

TEST(ImageLoader, QtAllocationLimitIsRaisedForBigPictures) {
  const TempFiles files;
  const QString path = save(files, testImage(1024, 600), "wide.png");  // 2.4 MB of pixels
  const int saved = QImageReader::allocationLimit();
  QImageReader::setAllocationLimit(1);  // 1 MiB: Qt alone would refuse this image
  const DatasetPtr data = loadOrFail(path);
  QImageReader::setAllocationLimit(saved);
  ASSERT_TRUE(data);
  EXPECT_EQ(data->n, 1024u * 600u);
}

TEST(ImageLoader, CorruptAndFakeImagesAreRejected) {
  const TempFiles files;
  QByteArray png;
  QBuffer buffer(&png);
  buffer.open(QIODevice::WriteOnly);
  ASSERT_TRUE(testImage(64, 64).save(&buffer, "png"));
  EXPECT_TRUE(
      failsToLoad(files.write("cut.png", png.left(png.size() / 2)), {"cannot decode the image"}));
  EXPECT_TRUE(
      failsToLoad(files.write("fake.png", "this is not a picture"), {"not an image Qt can read"}));
  EXPECT_TRUE(
      failsToLoad(files.write("header-only.jpg", "\xFF\xD8\xFF\xE0"), {"cannot decode the image"}));
}

TEST(ImageLoader, ProgressIsReportedAndCancelHonoured) {
  const TempFiles files;
  const QString path = save(files, testImage(300, 200), "progress.png");
  std::vector<double> reported;
  LoadOptions options;
  options.progress = [&](double f) { reported.push_back(f); };
  ASSERT_TRUE(loadOrFail(path, options));
  ASSERT_GE(reported.size(), 3u);
  EXPECT_TRUE(std::is_sorted(reported.begin(), reported.end()));
  EXPECT_EQ(reported.back(), 1.0);
  std::atomic<bool> cancel{true};
  options.cancel = &cancel;
  EXPECT_TRUE(failsToLoad(path, {"loading cancelled"}, options));
}

}  // namespace
}  // namespace kms::app::test
