// The engine's input: a picture's distinct colours cluster exactly like its pixels (same labels
// per pixel, bit-identical centroids) in every colour space; point sets deduplicate exactly;
// messages about k name what the rows are.
#include <gtest/gtest.h>

#include <QImage>

#include <random>

#include "core/cluster_input.h"
#include "kmeans/backend.h"
#include "kmeans/errors.h"
#include "test_support.h"

namespace kms::app::test {
namespace {

/// A photo-like picture with few colours: smooth gradients quantised to 4 bits per channel,
/// some noise, a fully transparent corner.
QImage pictureWithRepeats(int width, int height, bool transparentCorner) {
  QImage image(width, height, QImage::Format_ARGB32);
  std::mt19937 rng(7);
  for (int y = 0; y < height; ++y)
    for (int x = 0; x < width; ++x) {
      const int r = (x * 255 / width + int(rng() % 24)) & 0xf0;
      const int g = (y * 255 / height) & 0xf0;
      const int b = ((x + y) * 128 / (width + height) + int(rng() % 40)) & 0xf8;
      const bool clear = transparentCorner && x < 5 && y < 5;
      image.setPixel(x, y, qRgba(r, g, b, clear ? 0 : 255));
    }
  return image;
}

DatasetPtr loadPicture(const TempFiles& files, const QImage& image) {
  const QString path = files.path("picture.png");
  EXPECT_TRUE(image.save(path));
  return loadOrFail(path);
}

/// Runs both inputs from the same centroids; labels per pixel and centroids must agree exactly.
void expectSameRun(const ClusteringInput& compact, const ClusteringInput& perPixel, int k) {
  ASSERT_LT(compact.rows(), perPixel.rows());
  const Dataset& data = *compact.dataset();
  // Start from k of the picture's own colours (in the clustering space).
  std::vector<float> start;
  const auto& rows = compact.datasetRowsInSpace();
  for (int j = 0; j < k; ++j) {
    const std::size_t r = std::size_t(j) * data.n / std::size_t(k);
    start.insert(start.end(), rows.begin() + std::ptrdiff_t(r * data.d),
                 rows.begin() + std::ptrdiff_t((r + 1) * data.d));
  }
  KMeansConfig config;
  config.k = k;
  config.init = InitMethod::Given;
  config.initial_centroids = start;
  config.tolerance = 0;
  config.max_iterations = 15;
  auto a = createCpuEngine(2), b = createCpuEngine(1);
  a->setData(compact.view());
  b->setData(perPixel.view());
  a->initialize(config);
  b->initialize(config);
  while (!a->finished()) {
    const IterationStats sa = a->step(), sb = b->step();
    ASSERT_EQ(sa.changed, sb.changed);
    Snapshot x, y;
    a->snapshot(x);
    b->snapshot(y);
    ASSERT_EQ(x.centroids, y.centroids) << "iteration " << sa.iteration;
    std::vector<std::int32_t> rowsA, rowsB;
    compact.toDatasetRows(x.labels, rowsA);
    perPixel.toDatasetRows(y.labels, rowsB);
    ASSERT_EQ(rowsA, rowsB);
    // Per pixel, through the index: the per-pixel engine's labels are in pixel order.
    std::size_t e = 0;
    for (std::size_t i = 0; i < data.itemCount(); ++i) {
      const std::uint32_t row = data.rowOf(i);
      if (row == kms::kNoRow) continue;
      ASSERT_EQ(x.labels[row], y.labels[e++]) << "pixel " << i;
    }
  }
}

TEST(ClusteringInput, DistinctColoursClusterLikeEveryPixelInEverySpace) {
  const TempFiles files;
  const DatasetPtr data = loadPicture(files, pictureWithRepeats(120, 90, true));
  ASSERT_TRUE(data && data->isCompact());
  for (ColourSpace space :
       {ColourSpace::SRGB, ColourSpace::LinearRGB, ColourSpace::CIELab, ColourSpace::Oklab}) {
    const auto compact = ClusteringInput::build(data, {space, Compaction::Auto});
    const auto perPixel = ClusteringInput::build(data, {space, Compaction::Never});
    ASSERT_TRUE(compact && perPixel);
    EXPECT_TRUE(compact->rowsAreDatasetRows());
    EXPECT_FALSE(perPixel->rowsAreDatasetRows());
    EXPECT_EQ(perPixel->rows(), data->clusteredItems());
    EXPECT_EQ(compact->rowNoun(), QStringLiteral("distinct colours"));
    EXPECT_EQ(perPixel->rowNoun(), QStringLiteral("pixels"));
    SCOPED_TRACE(std::string(toString(space)));
    expectSameRun(*compact, *perPixel, 12);
  }
}

TEST(ClusteringInput, CentroidsComeBackToSrgb) {
  const TempFiles files;
  const DatasetPtr data = loadPicture(files, pictureWithRepeats(40, 30, false));
  const auto lab = ClusteringInput::build(data, {ColourSpace::CIELab, Compaction::Auto});
  EXPECT_EQ(lab->space(), ColourSpace::CIELab);
  const std::vector<float> centroids(lab->datasetRowsInSpace().begin(),
                                     lab->datasetRowsInSpace().begin() + 3);
  const auto back = lab->toDatasetSpace(centroids);
  for (int c = 0; c < 3; ++c)
    EXPECT_NEAR(back[std::size_t(c)], data->values[std::size_t(c)], 1e-5f);
}

TEST(ClusteringInput, PointSetsDeduplicateExactlyWhenAsked) {
  Dataset points;
  points.kind = DatasetKind::Points;
  points.d = 2;
  std::mt19937 rng(3);
  for (int i = 0; i < 3000; ++i) {
    points.values.push_back(float(rng() % 20));
    points.values.push_back(float(rng() % 20) * 0.5f);
  }
  points.n = 3000;
  const auto data = std::make_shared<const Dataset>(points);
  const auto asGiven = ClusteringInput::build(data, {ColourSpace::CIELab, Compaction::Auto});
  const auto distinct = ClusteringInput::build(data, {ColourSpace::SRGB, Compaction::Always});
  EXPECT_EQ(asGiven->rows(), 3000u);
  EXPECT_EQ(asGiven->space(), ColourSpace::SRGB);  // colour spaces are for pictures
  EXPECT_LE(distinct->rows(), 400u);
  EXPECT_EQ(distinct->rowNoun(), QStringLiteral("distinct points"));
  // Same start, same result per point.
  KMeansConfig config;
  config.k = 5;
  config.init = InitMethod::Given;
  config.initial_centroids = {0, 0, 5, 5, 10, 2, 15, 8, 19, 9};
  config.tolerance = 0;
  config.max_iterations = 20;
  auto a = createCpuEngine(1), b = createCpuEngine(1);
  a->setData(asGiven->view());
  b->setData(distinct->view());
  a->initialize(config);
  b->initialize(config);
  a->run();
  b->run();
  Snapshot x, y;
  a->snapshot(x);
  b->snapshot(y);
  EXPECT_EQ(x.centroids, y.centroids);
  std::vector<std::int32_t> mapped;
  distinct->toDatasetRows(y.labels, mapped);
  EXPECT_EQ(mapped, x.labels);
}

TEST(ClusteringInput, KLargerThanTheDistinctColoursIsExplained) {
  const TempFiles files;
  QImage five(10, 2, QImage::Format_RGB32);
  for (int x = 0; x < 10; ++x)
    for (int y = 0; y < 2; ++y)
      five.setPixel(x, y, qRgb(50 * (x % 5), 0, 0));
  const auto input = ClusteringInput::build(loadPicture(files, five), {});
  try {
    input->checkK(16);
    FAIL() << "k = 16 was accepted for 5 colours";
  } catch (const kms::InvalidArgument& e) {
    EXPECT_STREQ(e.what(),
                 "k = 16 is larger than the number of distinct colours (5). Choose k ≤ 5.");
  }
  EXPECT_NO_THROW(input->checkK(5));
}

}  // namespace
}  // namespace kms::app::test
