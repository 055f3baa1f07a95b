// Sweeps over k: the measures against hand-computed answers, counts against expanded data, the
// sweep against independent runs, the elbow, and kmeans-cli --sweep.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "core/sweep.h"
#include "io/generators.h"
#include "kmeans/backend.h"
#include "test_support.h"

namespace kms::app {
namespace {

DatasetPtr blobs(std::size_t n, int groups) {
  GeneratorParams params;
  params.kind = GeneratorKind::Blobs;
  params.n = n;
  params.groups = groups;
  params.d = 2;
  params.noise = 0.05;
  params.seed = 3;
  return generateDataset(params);
}

TEST(Sweep, MeasuresMatchHandComputedValues) {
  // Two tight pairs 10 apart: a = 0.1, b ≈ 10.
  const std::vector<float> points = {0.0f, 0.0f, 0.0f, 0.1f, 10.0f, 0.0f, 10.0f, 0.1f};
  const std::vector<float> centroids = {0.0f, 0.05f, 10.0f, 0.05f};
  const std::vector<std::int32_t> labels = {0, 0, 1, 1};
  const DataView view{points.data(), 4, 2};
  const SweepRow row = measureClustering(view, centroids, 2, labels, 100, 100, 1);
  EXPECT_NEAR(row.inertia, 4 * 0.0025, 1e-6);
  // B = 2·25 + 2·25 = 100, W = 0.01, N − k = 2: CH = 100 / 0.005.
  EXPECT_NEAR(row.calinskiHarabasz, 20000.0, 20.0);
  EXPECT_NEAR(row.daviesBouldin, (0.05 + 0.05) / 10.0, 1e-5);
  // s = (b − a) / b per point, b the mean distance to the other pair.
  const double b = (10.0 + std::sqrt(100.0 + 0.01)) / 2.0;
  EXPECT_NEAR(row.silhouette, (b - 0.1) / b, 1e-5);
}

TEST(Sweep, CountsGiveTheMeasuresOfTheExpandedData) {
  // Rows with counts stand for their copies: silhouette, CH and DB as if expanded.
  const std::vector<float> rows = {0.0f, 0.0f, 1.0f, 0.5f, 5.0f, 5.0f, 6.0f, 4.0f, 5.5f, 5.5f};
  const std::vector<std::uint32_t> counts = {3, 1, 2, 2, 1};
  std::vector<float> expanded;
  std::vector<std::int32_t> rowLabels = {0, 0, 1, 1, 1}, expandedLabels;
  for (std::size_t i = 0; i < counts.size(); ++i)
    for (std::uint32_t c = 0; c < counts[i]; ++c) {
      expanded.insert(expanded.end(), {rows[2 * i], rows[2 * i + 1]});
      expandedLabels.push_back(rowLabels[i]);
    }
  const std::vector<float> centroids = {0.25f, 0.125f, 5.5f, 4.8f};
  DataView compact{rows.data(), 5, 2};
  compact.counts = counts.data();
  const SweepRow a = measureClustering(compact, centroids, 2, rowLabels, 100, 100, 1);
  const SweepRow b = measureClustering(DataView{expanded.data(), expanded.size() / 2, 2}, centroids,
                                       2, expandedLabels, 100, 100, 1);
  EXPECT_NEAR(a.silhouette, b.silhouette, 1e-12);
  EXPECT_NEAR(a.calinskiHarabasz, b.calinskiHarabasz, 1e-9 * b.calinskiHarabasz);
  EXPECT_NEAR(a.daviesBouldin, b.daviesBouldin, 1e-12);
  EXPECT_NEAR(a.inertia, b.inertia, 1e-9);
}

TEST(Sweep, EqualsIndependentRunsAndFindsTheFiveBlobs) {
  const DatasetPtr data = blobs(3000, 5);
  const DataView view = data->view();
  auto engine = createCpuEngine(2);
  engine->setData(view);
  SweepOptions options;
  options.kFrom = 2;
  options.kTo = 9;
  options.restarts = 2;
  options.base.seed = 7;
  int calls = 0;
  const SweepResult result = runSweep(*engine, view, options, [&](int done, int total) {
    ++calls;
    EXPECT_EQ(total, 16);
    EXPECT_EQ(done, calls);
    return true;
  });
  ASSERT_EQ(result.rows.size(), 8u);
  EXPECT_EQ(calls, 16);
  for (const SweepRow& row : result.rows) {
    double best = 1e300;
    for (int r = 0; r < 2; ++r) {
      auto alone = createCpuEngine(1);
      alone->setData(view);
      KMeansConfig config;
      config.k = row.k;
      config.seed = 7 + std::uint64_t(r);
      alone->initialize(config);
      best = std::min(best, alone->run().inertia);
    }
    EXPECT_EQ(row.inertia, best) << "k = " << row.k;
  }
  EXPECT_EQ(result.elbowK, 5);
  const auto top = std::max_element(
      result.rows.begin(), result.rows.end(),
      [](const SweepRow& a, const SweepRow& b) { return a.silhouette < b.silhouette; });
  EXPECT_EQ(top->k, 5) << "the silhouette agrees";
  EXPECT_FALSE(result.silhouetteSampled);
  // Cancelling stops after the current start and returns the finished k.
  const SweepResult cancelled =
      runSweep(*engine, view, options, [](int done, int) { return done < 5; });
  EXPECT_TRUE(cancelled.cancelled);
  EXPECT_EQ(cancelled.rows.size(), 2u);
}

TEST(Sweep, LargeDataUseASeededSampleForTheSilhouette) {
  const DatasetPtr data = blobs(5000, 3);
  std::vector<std::int32_t> labels(data->n);
  for (std::size_t i = 0; i < labels.size(); ++i)
    labels[i] = std::int32_t(i % 3);
  const std::vector<float> centroids = {0, 0, 1, 1, 2, 2};
  std::size_t used = 0;
  const SweepRow a = measureClustering(data->view(), centroids, 3, labels, 1000, 700, 4, &used);
  const SweepRow b = measureClustering(data->view(), centroids, 3, labels, 1000, 700, 4);
  EXPECT_EQ(used, 700u) << "5,000 rows > 1,000: a sample of 700";
  EXPECT_EQ(a.silhouette, b.silhouette) << "the same sample for the same seed";
}

TEST(Sweep, KneeAndRanges) {
  EXPECT_EQ(kneeIndex({1, 2, 3, 4, 5, 6}, {100, 40, 12, 10, 9, 8.5}), 2u);
  EXPECT_EQ(kneeIndex({1, 2}, {5, 1}), 0u);
  EXPECT_EQ(parseKRange("2..20"), std::make_pair(2, 20));
  EXPECT_EQ(parseKRange("3-7"), std::make_pair(3, 7));
  for (const char* bad : {"", "5", "7..3", "0..4", "a..b", "2..", "2..5x"})
    EXPECT_THROW(parseKRange(bad), std::invalid_argument) << bad;
}

}  // namespace
}  // namespace kms::app
