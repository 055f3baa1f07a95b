// Export: quantised images, shares, palettes, CSV tables, point files, the run report, and
// failures that must leave nothing behind.
#include <gtest/gtest.h>

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

QByteArray readAll(const QString& path) {
  QFile file(path);
  EXPECT_TRUE(file.open(QIODevice::ReadOnly)) << path.toStdString();
  return file.readAll();
}

/// A 3 × 2 image data set; labels alternate between two clusters.
Dataset smallImage(bool translucent = false) {
  Dataset image;
  image.kind = DatasetKind::Image;
  image.width = 3;
  image.height = 2;
  image.n = 6;
  image.d = 3;
  image.values.assign(18, 0.5f);
  if (translucent) image.alpha = {255, 0, 128, 255, 255, 1};
  return image;
}

const std::vector<float> kCentroids = {1.0f, 0.0f, 0.0f, 0.2f, 0.4f, 0.6f};
const std::vector<std::int32_t> kLabels = {0, 1, 0, 1, 1, 1};

TEST(Export, QuantizedImagePaintsCentroidColours) {
  const QImage image = quantizedImage(smallImage(), kCentroids, kLabels);
  EXPECT_EQ(image.size(), QSize(3, 2));
  EXPECT_FALSE(image.hasAlphaChannel());
  EXPECT_EQ(image.pixel(0, 0), qRgb(255, 0, 0));
  EXPECT_EQ(image.pixel(1, 0), qRgb(51, 102, 153));
  EXPECT_EQ(image.pixel(2, 1), qRgb(51, 102, 153));
}

TEST(Export, QuantizedImageRestoresAlpha) {
  const QImage image = quantizedImage(smallImage(true), kCentroids, kLabels);
  EXPECT_TRUE(image.hasAlphaChannel());
  EXPECT_EQ(image.pixel(1, 0), qRgba(51, 102, 153, 0));
  EXPECT_EQ(image.pixel(2, 0), qRgba(255, 0, 0, 128));
}

TEST(Export, QuantizedImageRejectsMismatchedInput) {
  EXPECT_THROW(quantizedImage(smallImage(), kCentroids, {0, 1}), std::invalid_argument);
  EXPECT_THROW(quantizedImage(smallImage(), kCentroids, {0, 1, 0, 1, 1, 2}), std::invalid_argument);
  Dataset points = smallImage();
  points.kind = DatasetKind::Points;
  EXPECT_THROW(quantizedImage(points, kCentroids, kLabels), std::invalid_argument);
}

TEST(Export, ClusterSharesCountPointsOrWeights) {
  Dataset data = smallImage();
  EXPECT_EQ(clusterShares(data, kLabels, 3), (std::vector<double>{2.0 / 6, 4.0 / 6, 0.0}));
  data.weights = {3, 1, 3, 1, 1, 1};
  EXPECT_EQ(clusterShares(data, kLabels, 2), (std::vector<double>{0.6, 0.4}));
}

TEST(Export, WrittenPngLoadsBackWithTheSameColours) {
  const TempFiles files;
  const QImage image = quantizedImage(smallImage(), kCentroids, kLabels);
  writeImage(files.path("out.png"), image);
  writeImage(files.path("no-suffix"), image);
  for (const char* name : {"out.png", "no-suffix"}) {
    const QImage back(files.path(QString::fromLatin1(name)), "png");
    ASSERT_FALSE(back.isNull()) << name;
    EXPECT_EQ(back.convertToFormat(QImage::Format_RGB32), image) << name;
  }
  writeImage(files.path("out.jpg"), image);
  EXPECT_EQ(QImage(files.path("out.jpg")).size(), QSize(3, 2));
  EXPECT_THROW(writeImage(files.path("out.xyz"), image), ExportError);
  EXPECT_FALSE(QFile::exists(files.path("out.xyz")));
}

TEST(Export, GimpPaletteIsSortedByShare) {
  const TempFiles files;
  const QString path = files.path("palette.gpl");
  writePaletteGpl(path, kCentroids, {0.25, 0.75}, QStringLiteral("sunset\nphoto"));
  EXPECT_EQ(readAll(path),
            "GIMP Palette\nName: sunset photo\nColumns: 4\n#\n"
            " 51 102 153\t#336699 75.0%\n"
            "255   0   0\t#ff0000 25.0%\n");
}

TEST(Export, HexPaletteUsesTheSameOrder) {
  const TempFiles files;
  const QString path = files.path("palette.txt");
  writePaletteHex(path, kCentroids, {0.25, 0.75});
  EXPECT_EQ(readAll(path), "#336699\n#ff0000\n");
  EXPECT_THROW(writePaletteHex(path, kCentroids, {1.0}), std::invalid_argument);
}

TEST(Export, LabelsCsvLoadsBackThroughTheTextReader) {
  const TempFiles files;
  const QString path = files.path("labels.csv");
  writeLabelsCsv(path, kLabels);
  EXPECT_TRUE(readAll(path).startsWith("index,label\n0,0\n1,1\n"));
  // "index" is an id column, so the loader keeps only the labels.
  const DatasetPtr back = loadOrFail(path);
  ASSERT_TRUE(back);
  EXPECT_EQ(back->d, 1);
  EXPECT_EQ(back->values, (std::vector<float>{0, 1, 0, 1, 1, 1}));
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
  EXPECT_EQ(settings["init"].toString(), QStringLiteral("kmeans++"));
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
    writeLabelsCsv(missingDir, kLabels);
    ADD_FAILURE() << "no ExportError";
  } catch (const ExportError& e) {
    EXPECT_EQ(e.file(), missingDir);
    EXPECT_TRUE(QString::fromUtf8(e.what()).startsWith(
        QStringLiteral("labels.csv: cannot create the file: ")))
        << e.what();
  }
  // A regular file where a directory should be: fails for every user, root included.
  const QString notADir = files.write("plain", "x") + QStringLiteral("/palette.gpl");
  EXPECT_THROW(writePaletteGpl(notADir, kCentroids, {0.5, 0.5}, "p"), ExportError);
  EXPECT_THROW(writeImage(notADir + ".png", QImage(2, 2, QImage::Format_RGB32)), ExportError);
  EXPECT_EQ(QDir(files.path(".")).entryList(QDir::Files), QStringList{"plain"});
}

TEST(Export, ReadOnlyDirectoryFailsWithoutPartialFiles) {
  if (ignoresFilePermissions())
    GTEST_SKIP() << "this process writes files whatever their permissions (root)";
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
