// Images: the compact form (distinct colours, counts, per-pixel index), alpha, every codec,
// grey / palette / CMYK / 16-bit sources, animations, EXIF orientation, size limits, corruption.
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

/// The colour of pixel i as the data set holds it (through the compact form).
std::vector<float> pixelValues(const Dataset& data, std::size_t i) {
  const std::uint32_t row = data.rowOf(i);
  if (row == kms::kNoRow) return {};
  const auto at = data.values.begin() + std::ptrdiff_t(std::size_t(row) * std::size_t(data.d));
  return {at, at + data.d};
}

QString save(const TempFiles& files, const QImage& image, const char* name,
             const char* format = nullptr) {
  const QString path = files.path(QString::fromLatin1(name));
  EXPECT_TRUE(image.save(path, format, 100)) << name;
  return path;
}

TEST(ImageLoader, PngPixelsBecomeExactDistinctColoursWithCounts) {
  const TempFiles files;
  QImage image = testImage();
  image.setPixel(4, 3, image.pixel(0, 0));  // one colour twice
  const DatasetPtr data = loadOrFail(save(files, image, "photo.png"));
  ASSERT_TRUE(data);
  EXPECT_TRUE(data->isImage());
  EXPECT_EQ(data->width, 5);
  EXPECT_EQ(data->height, 4);
  EXPECT_EQ(data->itemCount(), 20u);
  EXPECT_EQ(data->n, 19u);  // distinct colours
  EXPECT_EQ(data->d, 3);
  EXPECT_EQ(data->dimensionNames, (QStringList{"R", "G", "B"}));
  EXPECT_EQ(data->clusteredItems(), 20u);
  EXPECT_FALSE(data->hasLeftOutItems());
  EXPECT_EQ(data->displayName, QStringLiteral("photo.png"));
  EXPECT_EQ(data->rowOf(0), data->rowOf(19));
  EXPECT_EQ(data->counts[data->rowOf(0)], 2u);
  for (int y = 0; y < 4; ++y)
    for (int x = 0; x < 5; ++x) {
      const QRgb c = image.pixel(x, y);
      EXPECT_EQ(pixelValues(*data, std::size_t(y * 5 + x)),
                (std::vector<float>{qRed(c) / 255.0f, qGreen(c) / 255.0f, qBlue(c) / 255.0f}))
          << x << "," << y;
    }
  EXPECT_EQ(data->picture.size(), QSize(5, 4));
  EXPECT_EQ(data->picture.pixel(2, 1), image.pixel(2, 1));
}

TEST(ImageLoader, PartlyTransparentPixelsCarryAlphaAsAFourthValue) {
  const TempFiles files;
  QImage image(3, 1, QImage::Format_ARGB32);
  image.setPixel(0, 0, qRgba(200, 100, 50, 128));
  image.setPixel(1, 0, qRgba(10, 20, 30, 255));
  image.setPixel(2, 0, qRgba(99, 99, 99, 0));  // fully transparent: left out
  const DatasetPtr data = loadOrFail(save(files, image, "alpha.png"));
  ASSERT_TRUE(data);
  EXPECT_EQ(data->d, 4);
  EXPECT_EQ(data->dimensionNames, (QStringList{"R", "G", "B", "A"}));
  EXPECT_TRUE(data->hasAlphaChannel());
  EXPECT_TRUE(data->hasLeftOutItems());
  EXPECT_EQ(data->n, 2u);
  EXPECT_EQ(pixelValues(*data, 0), (std::vector<float>{200 / 255.0f, 100 / 255.0f, 50 / 255.0f,
                                                       128 / 255.0f}));  // not premultiplied
  EXPECT_EQ(pixelValues(*data, 1), (std::vector<float>{10 / 255.0f, 20 / 255.0f, 30 / 255.0f, 1}));
  EXPECT_EQ(data->rowOf(2), kms::kNoRow);
  EXPECT_EQ(data->notes, QStringList{"fully transparent pixels are left out of clustering"});
}

TEST(ImageLoader, BinaryAlphaKeepsThreeValuesAndLeavesTransparentPixelsOut) {
  const TempFiles files;
  QImage image(2, 2, QImage::Format_ARGB32);
  image.fill(qRgba(0, 0, 0, 0));
  image.setPixel(0, 0, qRgba(1, 2, 3, 255));
  image.setPixel(1, 1, qRgba(1, 2, 3, 255));
  const DatasetPtr data = loadOrFail(save(files, image, "cutout.png"));
  ASSERT_TRUE(data);
  EXPECT_EQ(data->d, 3);
  EXPECT_EQ(data->n, 1u);
  EXPECT_EQ(data->clusteredItems(), 2u);
  EXPECT_EQ(data->rowOf(1), kms::kNoRow);
  QImage clear(3, 3, QImage::Format_ARGB32);
  clear.fill(Qt::transparent);
  EXPECT_TRUE(
      failsToLoad(save(files, clear, "invisible.png"), {"every pixel is fully transparent"}));
}

TEST(ImageLoader, GreyPaletteAndCmykSourcesBecomeRgb) {
  const TempFiles files;
  QImage grey(4, 1, QImage::Format_Grayscale8);
  for (int x = 0; x < 4; ++x)
    grey.setPixel(x, 0, qRgb(x * 80, x * 80, x * 80));
  const DatasetPtr g = loadOrFail(save(files, grey, "grey.png"));
  ASSERT_TRUE(g);
  EXPECT_EQ(g->n, 4u);
  EXPECT_EQ(pixelValues(*g, 3), (std::vector<float>{240 / 255.0f, 240 / 255.0f, 240 / 255.0f}));
  QImage indexed(3, 2, QImage::Format_Indexed8);
  indexed.setColorTable({qRgb(255, 0, 0), qRgb(0, 0, 255)});
  indexed.fill(0);
  indexed.setPixel(1, 1, 1);
  const DatasetPtr p = loadOrFail(save(files, indexed, "palette.png"));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->n, 2u);
  EXPECT_EQ(pixelValues(*p, 4), (std::vector<float>{0, 0, 1}));
  // A CMYK JPEG (tests/data/cmyk.jpg: cyan grows to the right, yellow on the right half).
  const DatasetPtr c = loadOrFail(QStringLiteral(KMS_TEST_DATA_DIR "/cmyk.jpg"));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->width, 24);
  EXPECT_EQ(c->height, 16);
  EXPECT_GT(pixelValues(*c, 0)[2], 0.8f);                    // white-ish top left
  EXPECT_LT(pixelValues(*c, 22)[2], 0.5f);                   // yellow: little blue
  EXPECT_LT(pixelValues(*c, 23)[0], pixelValues(*c, 0)[0]);  // cyan: less red
}

TEST(ImageLoader, AnimationsUseTheFirstFrameAndSaySo) {
  const DatasetPtr data = loadOrFail(QStringLiteral(KMS_TEST_DATA_DIR "/animated.gif"));
  ASSERT_TRUE(data);
  EXPECT_EQ(data->n, 1u);
  EXPECT_EQ(pixelValues(*data, 0), (std::vector<float>{1, 0, 0}));  // frame 1 is red
  EXPECT_EQ(data->notes, QStringList{"an animation of 3 frames: the first frame is used"});
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
    EXPECT_NEAR(pixelValues(*data, 17)[0], float(40 + 3) / 255.0f, tolerance) << format;
  }
  // Qt reads GIF but cannot write it: the classic 1 × 1 GIF with a red pixel.
  const QByteArray gif(
      "GIF89a\x01\0\x01\0\x80\0\0\xFF\0\0\0\0\0,\0\0\0\0\x01\0\x01\0\0\x02\x02\x44\x01\0;", 35);
  const DatasetPtr red = loadOrFail(files.write("red.gif", gif));
  ASSERT_TRUE(red);
  EXPECT_EQ(red->values, (std::vector<float>{1, 0, 0}));
  EXPECT_EQ(red->itemCount(), 1u);
}

TEST(ImageLoader, SixteenBitChannelsKeepTheirPrecision) {
  const TempFiles files;
  QImage image(1, 1, QImage::Format_RGBA64);
  image.setPixelColor(0, 0, QColor::fromRgba64(1000, 40000, 65535, 65535));
  const DatasetPtr data = loadOrFail(save(files, image, "deep.png"));
  ASSERT_TRUE(data);
  EXPECT_EQ(data->values, (std::vector<float>{1000.0f / 65535.0f, 40000.0f / 65535.0f, 1.0f}));
}

TEST(ImageLoader, SixteenBitPicturesAreCompactedWhenColoursRepeatElsePerPixel) {
  const TempFiles files;
  QImage flat(64, 64, QImage::Format_RGBA64);
  flat.fill(QColor::fromRgba64(1000, 2000, 3000));
  flat.setPixelColor(5, 5, QColor::fromRgba64(1001, 2000, 3000));
  const DatasetPtr compact = loadOrFail(save(files, flat, "flat16.png"));
  ASSERT_TRUE(compact);
  EXPECT_EQ(compact->n, 2u);
  EXPECT_TRUE(compact->isCompact());
  EXPECT_EQ(compact->notes, QStringList{"16-bit colours, 2 distinct"});
  // A gradient where every pixel differs: clustered pixel by pixel, and the note says so.
  QImage ramp(600, 600, QImage::Format_RGBA64);
  for (int y = 0; y < 600; ++y)
    for (int x = 0; x < 600; ++x)
      ramp.setPixelColor(x, y, QColor::fromRgba64(quint16(x * 100), quint16(y * 100), 7));
  const DatasetPtr perPixel = loadOrFail(save(files, ramp, "ramp16.png"));
  ASSERT_TRUE(perPixel);
  EXPECT_EQ(perPixel->n, 360000u);
  EXPECT_FALSE(perPixel->isCompact());
  EXPECT_EQ(perPixel->notes,
            QStringList{"16-bit colours, nearly every pixel different: clustered pixel by pixel"});
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
  EXPECT_EQ(data->itemCount(), 1024u * 600u);
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
