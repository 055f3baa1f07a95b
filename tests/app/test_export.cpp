// Export: quantised images, shares, palettes, CSV tables, point files, the run report, and
// failures that must leave nothing behind.
#include <gtest/gtest.h>

#include <cstring>

#include <QDir>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include "io/export.h"
#include "io/generators.h"
#include "test_support.h"

namespace kms::app::test {
namespace {

/// A 3 × 2 picture, one row per pixel; labels alternate between two clusters.
Dataset smallImage() {
  Dataset image;
  image.kind = DatasetKind::Image;
  image.width = 3;
  image.height = 2;
  image.n = 6;
  image.d = 3;
  image.values.assign(18, 0.5f);
  return image;
}

/// The same picture in the compact form: two colours, pixel 1 fully transparent (left out).
Dataset compactImage() {
  Dataset image = smallImage();
  image.n = 2;
  image.values = {1.0f, 0.0f, 0.0f, 0.2f, 0.4f, 0.6f};
  image.counts = {2, 3};
  image.index = {0, kms::kNoRow, 0, 1, 1, 1};
  return image;
}

const std::vector<float> kCentroids = {1.0f, 0.0f, 0.0f, 0.2f, 0.4f, 0.6f};
const std::vector<QRgb> kPalette = {qRgb(255, 0, 0), qRgb(51, 102, 153)};
const std::vector<std::int32_t> kLabels = {0, 1, 0, 1, 1, 1};

/// Bit depth and colour type from a PNG's header (IHDR follows the 8-byte signature).
std::pair<int, int> pngDepthAndType(const QByteArray& png) {
  return {int(uchar(png[24])), int(uchar(png[25]))};
}

TEST(Export, PaletteOfRoundsCentroidsAndKeepsAlpha) {
  EXPECT_EQ(paletteOf(kCentroids, 3), kPalette);
  EXPECT_EQ(paletteOf({0.2f, 0.4f, 0.6f, 0.5f}, 4), std::vector<QRgb>{qRgba(51, 102, 153, 128)});
}

TEST(Export, QuantizedImageIsIndexedWithTheClusterColours) {
  const QImage image = quantizedImage(smallImage(), kPalette, kLabels);
  EXPECT_EQ(image.size(), QSize(3, 2));
  EXPECT_EQ(image.format(), QImage::Format_Indexed8);
  EXPECT_EQ(image.colorCount(), 2);
  EXPECT_FALSE(image.hasAlphaChannel());
  EXPECT_EQ(image.pixel(0, 0), qRgb(255, 0, 0));
  EXPECT_EQ(image.pixel(1, 0), qRgb(51, 102, 153));
  EXPECT_EQ(image.pixel(2, 1), qRgb(51, 102, 153));
}

TEST(Export, QuantizedImageFromTheCompactFormLeavesLeftOutPixelsTransparent) {
  const QImage image = quantizedImage(compactImage(), kPalette, {1, 0});
  EXPECT_EQ(image.colorCount(), 3);  // two clusters and the transparent entry
  EXPECT_EQ(image.pixel(0, 0), qRgb(51, 102, 153));
  EXPECT_EQ(qAlpha(image.pixel(1, 0)), 0);
  EXPECT_EQ(image.pixel(0, 1), qRgb(255, 0, 0));
}

TEST(Export, QuantizedImageBeyond256ColoursIsTrueColour) {
  std::vector<QRgb> palette(300);
  for (std::size_t c = 0; c < palette.size(); ++c)
    palette[c] = qRgb(int(c % 256), int(c / 256), 7);
  const QImage image = quantizedImage(smallImage(), palette, {299, 1, 0, 1, 256, 1});
  EXPECT_EQ(image.format(), QImage::Format_RGB32);
  EXPECT_EQ(image.pixel(0, 0), palette[299]);
  EXPECT_EQ(image.pixel(1, 1), palette[256]);
}

TEST(Export, QuantizedImageRejectsMismatchedInput) {
  EXPECT_THROW(quantizedImage(smallImage(), kPalette, {0, 1}), std::invalid_argument);
  EXPECT_THROW(quantizedImage(smallImage(), kPalette, {0, 1, 0, 1, 1, 2}), std::invalid_argument);
  Dataset points = smallImage();
  points.kind = DatasetKind::Points;
  EXPECT_THROW(quantizedImage(points, kPalette, kLabels), std::invalid_argument);
}

TEST(Export, ClusterSharesCountPixelsWeightsOrCounts) {
  Dataset data = smallImage();
  EXPECT_EQ(clusterShares(data, kLabels, 3), (std::vector<double>{2.0 / 6, 4.0 / 6, 0.0}));
  data.weights = {3, 1, 3, 1, 1, 1};
  EXPECT_EQ(clusterShares(data, kLabels, 2), (std::vector<double>{0.6, 0.4}));
  EXPECT_EQ(clusterShares(compactImage(), {1, 0}, 2), (std::vector<double>{0.6, 0.4}));
}

TEST(Export, PalettePngUsesTheFewestBitsAndLoadsBackWithTheSameColours) {
  const TempFiles files;
  for (const auto& [colours, depth] :
       std::vector<std::pair<int, int>>{{2, 1}, {3, 2}, {4, 2}, {5, 4}, {16, 4}, {17, 8}}) {
    QImage image(37, 5, QImage::Format_Indexed8);  // odd width: partly filled bytes
    QList<QRgb> table;
    for (int c = 0; c < colours; ++c)
      table << qRgba(c * 13 % 256, 255 - c, c * 7 % 256, c == colours - 1 ? 0 : 255);
    image.setColorTable(table);
    for (int y = 0; y < image.height(); ++y)
      for (int x = 0; x < image.width(); ++x)
        image.setPixel(x, y, uint((x * 3 + y) % colours));
    const QString path = files.path(QStringLiteral("p%1.png").arg(colours));
    writeImage(path, image);
    const QByteArray bytes = readAll(path);
    EXPECT_EQ(pngDepthAndType(bytes), std::make_pair(depth, 3)) << colours << " colours";
    EXPECT_TRUE(bytes.contains("tRNS")) << "the transparent colour needs a tRNS chunk";
    const QImage back(path);
    ASSERT_FALSE(back.isNull());
    for (int y = 0; y < image.height(); ++y)
      for (int x = 0; x < image.width(); ++x)
        ASSERT_EQ(back.pixel(x, y), image.pixel(x, y)) << colours << ": " << x << "," << y;
  }
}

TEST(Export, LargePalettePngDeflatedInSegmentsLoadsBackPixelForPixel) {
  // 8 MB of scanlines at 8 bits and 4 MB at 4 bits: several 1 MB segments deflated apart and
  // joined into one zlib stream, which libpng (through Qt) must read back exactly. Noise and
  // runs in turn, so segments start in the middle of matches the window primes.
  const TempFiles files;
  for (const int colours : {200, 16}) {
    QImage image(4001, 2000, QImage::Format_Indexed8);
    QList<QRgb> table;
    for (int c = 0; c < colours; ++c)
      table << qRgb(c, 255 - c, (c * 37) % 256);
    image.setColorTable(table);
    std::uint32_t state = 12345;
    for (int y = 0; y < image.height(); ++y) {
      uchar* line = image.scanLine(y);
      for (int x = 0; x < image.width(); ++x) {
        state = state * 1664525u + 1013904223u;
        line[x] = uchar((y / 100) % 2 ? (state >> 24) % colours : (x / 50 + y) % colours);
      }
    }
    const QString path = files.path(QStringLiteral("large%1.png").arg(colours));
    writeImage(path, image);
    const QImage back(path);
    ASSERT_FALSE(back.isNull()) << colours;
    ASSERT_EQ(back.size(), image.size());
    const QImage a = back.convertToFormat(QImage::Format_RGB32);
    const QImage b = image.convertToFormat(QImage::Format_RGB32);
    for (int y = 0; y < image.height(); ++y)
      ASSERT_EQ(std::memcmp(a.constScanLine(y), b.constScanLine(y), std::size_t(a.width()) * 4), 0)
          << colours << " colours, row " << y;
  }
}

TEST(Export, OpaquePalettePngHasNoTransparency) {
  const TempFiles files;
  const QImage image = quantizedImage(smallImage(), kPalette, kLabels);
  writeImage(files.path("out.png"), image);
  writeImage(files.path("no-suffix"), image);
  for (const char* name : {"out.png", "no-suffix"}) {
    const QByteArray bytes = readAll(files.path(QString::fromLatin1(name)));
    EXPECT_EQ(pngDepthAndType(bytes), std::make_pair(1, 3)) << name;
    EXPECT_FALSE(bytes.contains("tRNS")) << name;
    const QImage back(files.path(QString::fromLatin1(name)), "png");
    ASSERT_FALSE(back.isNull()) << name;
    EXPECT_EQ(back.convertToFormat(QImage::Format_RGB32),
              image.convertToFormat(QImage::Format_RGB32))
        << name;
  }
  writeImage(files.path("out.jpg"), image);
  EXPECT_EQ(QImage(files.path("out.jpg")).size(), QSize(3, 2));
  EXPECT_THROW(writeImage(files.path("out.xyz"), image), ExportError);
  EXPECT_FALSE(QFile::exists(files.path("out.xyz")));
}

TEST(Export, GimpPaletteIsSortedByShare) {
  const TempFiles files;
  const QString path = files.path("palette.gpl");
  writePaletteGpl(path, kPalette, {0.25, 0.75}, QStringLiteral("sunset\nphoto"));
  EXPECT_EQ(readAll(path),
            "GIMP Palette\nName: sunset photo\nColumns: 4\n#\n"
            " 51 102 153\t#336699 75.0%\n"
            "255   0   0\t#ff0000 25.0%\n");
}

TEST(Export, HexPaletteUsesTheSameOrderAndWritesAlpha) {
  const TempFiles files;
  const QString path = files.path("palette.txt");
  writePaletteHex(path, kPalette, {0.25, 0.75});
  EXPECT_EQ(readAll(path), "#336699\n#ff0000\n");
  EXPECT_THROW(writePaletteHex(path, kPalette, {1.0}), std::invalid_argument);
  writePaletteHex(path, {qRgba(255, 0, 0, 128)}, {1.0});
  EXPECT_EQ(readAll(path), "#ff000080\n");
}

TEST(Export, LabelsCsvLoadsBackThroughTheTextReader) {
  const TempFiles files;
  const QString path = files.path("labels.csv");
  writeLabelsCsv(path, smallImage(), kLabels);
  EXPECT_TRUE(readAll(path).startsWith("index,label\n0,0\n1,1\n"));
  // "index" is an id column, so the loader keeps only the labels.
  const DatasetPtr back = loadOrFail(path);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->d, 1);
  EXPECT_EQ(back->values, (std::vector<float>{0, 1, 0, 1, 1, 1}));
}

TEST(Export, LabelsCsvOfTheCompactFormHasALabelPerPixel) {
  const TempFiles files;
  const QString path = files.path("labels.csv");
  writeLabelsCsv(path, compactImage(), {1, 0});
  EXPECT_EQ(readAll(path), "index,label\n0,1\n1,-1\n2,1\n3,0\n4,0\n5,0\n");
}

TEST(Export, CentroidsCsvRoundTripsExactly) {
  const TempFiles files;
  const QString path = files.path("centroids.csv");
  const std::vector<float> centroids = {0.1f, 1e-7f, 123456.7f, -2.0f / 3.0f};
  writeCentroidsCsv(path, centroids, 2, {"width", "height, cm"}, {0.5, 0.5});
  EXPECT_TRUE(readAll(path).startsWith("cluster,width,\"height, cm\",share\n"));
  const DatasetPtr back = loadOrFail(path);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->d, 4);
  EXPECT_EQ(back->values,
            (std::vector<float>{0, 0.1f, 1e-7f, 0.5f, 1, 123456.7f, -2.0f / 3.0f, 0.5f}));
}

TEST(Export, PointsCsvRoundTripsGeneratedData) {
  const TempFiles files;
  GeneratorParams params;
  params.n = 500;
  params.d = 3;
  const DatasetPtr data = generateDataset(params);
  const QString path = files.path("blobs.csv");
  writePointsCsv(path, *data);
  const DatasetPtr back = loadOrFail(path);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->dimensionNames, data->dimensionNames);
  EXPECT_EQ(back->values, data->values);
  Dataset flat = *data;
  flat.d = 4;
  flat.n = data->n * 3 / 4;
  EXPECT_THROW(writePointsPly(files.path("four.ply"), flat), ExportError);
}

TEST(Export, RunReportIsCompleteJson) {
  const TempFiles files;
  RunReport report;
  report.input = QStringLiteral("/data/photo.png");
  report.n = 1000;
  report.d = 3;
  report.config.k = 16;
  report.config.seed = 42;
  report.backend = QStringLiteral("cpu");
  report.device = QStringLiteral("CPU, 2 threads");
  report.backendNote =
      QStringLiteral("CUDA backend unavailable (built without CUDA); using the CPU");
  IterationStats first;
  first.iteration = 1;
  first.inertia = 12.5;
  first.changed = 1000;
  first.ms.assign_ms = 1.5;
  first.ms.update_ms = 0.25;
  IterationStats second = first;
  second.iteration = 2;
  second.inertia = 10.0;
  second.changed = 10;
  second.converged = true;
  report.iterations = {first, second};
  report.converged = true;
  report.wallSeconds = 0.125;
  const QString path = files.path("report.json");
  writeRunReport(path, report);

  QJsonParseError error;
  const QJsonObject root = QJsonDocument::fromJson(readAll(path), &error).object();
  ASSERT_EQ(error.error, QJsonParseError::NoError) << error.errorString().toStdString();
  EXPECT_EQ(root["input"].toString(), report.input);
  EXPECT_EQ(root["n"].toInt(), 1000);
  const QJsonObject settings = root["settings"].toObject();
  EXPECT_EQ(settings["k"].toInt(), 16);
  EXPECT_EQ(settings["seed"].toInteger(), 42);
  EXPECT_EQ(settings["init"].toString(), QStringLiteral("greedy-kmeans++"));  // the default
  EXPECT_EQ(settings["backend"].toString(), QStringLiteral("cpu"));
  EXPECT_EQ(settings["backend_note"].toString(), report.backendNote);
  EXPECT_TRUE(settings.contains("tolerance") && settings.contains("max_iterations") &&
              settings.contains("empty_clusters") && settings.contains("device"));
  const QJsonArray iterations = root["iterations"].toArray();
  ASSERT_EQ(iterations.size(), 2);
  EXPECT_EQ(iterations[1]["changed"].toInt(), 10);
  EXPECT_DOUBLE_EQ(iterations[1]["changed_fraction"].toDouble(), 0.01);
  EXPECT_DOUBLE_EQ(iterations[0]["ms"]["compute"].toDouble(), 1.75);
  EXPECT_TRUE(root["converged"].toBool());
  EXPECT_EQ(root["iteration_count"].toInt(), 2);
  EXPECT_DOUBLE_EQ(root["final_inertia"].toDouble(), 10.0);
  EXPECT_DOUBLE_EQ(root["wall_seconds"].toDouble(), 0.125);

  report.config.seed = ~0ull;  // beyond double precision: written as a string
  writeRunReport(path, report);
  EXPECT_EQ(QJsonDocument::fromJson(readAll(path))["settings"]["seed"].toString(),
            QStringLiteral("18446744073709551615"));
}

TEST(Export, FailuresNameTheFileAndLeaveNothingBehind) {
  const TempFiles files;
  const QString missingDir = files.path("no/such/dir/labels.csv");
  try {
    writeLabelsCsv(missingDir, smallImage(), kLabels);
    ADD_FAILURE() << "no ExportError";
  } catch (const ExportError& e) {
    EXPECT_EQ(e.file(), missingDir);
    EXPECT_TRUE(QString::fromUtf8(e.what()).startsWith(
        QStringLiteral("labels.csv: cannot create the file: ")))
        << e.what();
  }
  // A regular file where a directory should be: fails for every user, root included.
  const QString notADir = files.write("plain", "x") + QStringLiteral("/palette.gpl");
  EXPECT_THROW(writePaletteGpl(notADir, kPalette, {0.5, 0.5}, "p"), ExportError);
  EXPECT_THROW(writeImage(notADir + ".png", QImage(2, 2, QImage::Format_RGB32)), ExportError);
  EXPECT_EQ(QDir(files.path(".")).entryList(QDir::Files), QStringList{"plain"});
}

TEST(Export, ReadOnlyDirectoryFailsWithoutPartialFiles) {
  if (ignoresFilePermissions())
    GTEST_SKIP() << "this process writes files whatever their permissions (root); "
                    "ExportFaults.AReadOnlyMount... covers root";
  const TempFiles files;
  QDir().mkpath(files.path("locked"));
  QFile::setPermissions(files.path("locked"), QFileDevice::ReadOwner | QFileDevice::ExeOwner);
  EXPECT_THROW(writeRunReport(files.path("locked/report.json"), RunReport{}), ExportError);
  EXPECT_TRUE(QDir(files.path("locked")).entryList(QDir::Files | QDir::Hidden).isEmpty());
  QFile::setPermissions(files.path("locked"),
                        QFileDevice::ReadOwner | QFileDevice::WriteOwner | QFileDevice::ExeOwner);
}

}  // namespace
}  // namespace kms::app::test
