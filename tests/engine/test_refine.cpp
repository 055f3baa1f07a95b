// The refinement past Lloyd's optimum (kmeans/refine.h): Hartigan's moves never raise the sum of
// squared distances, find the improvement a hand-made Lloyd optimum leaves, and the refined run
// never raises the inertia; deterministic on any thread count; bad input gives a clear error.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <vector>

#include "kmeans/backend.h"
#include "kmeans/engine.h"
#include "kmeans/errors.h"
#include "kmeans/refine.h"
#include "support/compact_data.h"
#include "support/reference_kmeans.h"

namespace kms {
namespace {

StartOutcome runToTheEnd(Engine& engine, const KMeansConfig& config, int start = 0) {
  return engine.runStarts(config, {start}).front();
}

std::vector<std::uint32_t> bitsOf(const std::vector<float>& values) {
  std::vector<std::uint32_t> bits;
  for (float v : values)
    bits.push_back(std::bit_cast<std::uint32_t>(v));
  return bits;
}

TEST(Refine, MovesTheRowALloydOptimumKeeps) {
  // 0, 4, 5, 9 from centroids 2 and 7: Lloyd is done at once ({0, 4} and {5, 9}, sum 16), yet
  // moving 4 across lowers the sum to 14 ({0} and {4, 5, 9}): 1·2/3·3² = 6 < 1·2/1·2² = 8.
  const std::vector<float> points{0.0f, 4.0f, 5.0f, 9.0f};
  const DataView view{points.data(), 4, 1};
  auto engine = createCpuEngine(1);
  engine->setData(view);
  KMeansConfig config;
  config.k = 2;
  config.init = InitMethod::Given;
  config.initial_centroids = {2.0f, 7.0f};
  config.tolerance = 0.0;
  StartOutcome outcome = runToTheEnd(*engine, config);
  ASSERT_DOUBLE_EQ(outcome.inertia(), 16.0);
  const RefineReport report = refineOutcome(*engine, view, config, outcome);
  EXPECT_EQ(report.moves, 1u);
  EXPECT_DOUBLE_EQ(report.sse_before, 16.0);
  EXPECT_DOUBLE_EQ(report.sse_after, 14.0);
  EXPECT_TRUE(report.improved);
  EXPECT_DOUBLE_EQ(outcome.inertia(), 14.0);
  EXPECT_EQ(outcome.centroids, (std::vector<float>{0.0f, 6.0f}));
  std::vector<std::int32_t> labels;
  engine->assign(outcome.centred_centroids, labels);
  EXPECT_EQ(labels, (std::vector<std::int32_t>{0, 1, 1, 1}));
}

TEST(Refine, NeverRaisesTheInertiaAndGivesTheSameResultOnAnyThreadCount) {
  const auto points = test::blobPoints(6000, 3, 30, 13, 1.5f, 1.0f);
  const DataView view{points.data(), points.size() / 3, 3};
  const auto compactPoints = test::levelPoints(30000, 3, 12, 21);
  const test::CompactData compact = test::compactOf(compactPoints, 3);
  int improved = 0;
  for (const DataView& data : {view, compact.view()})
    for (std::uint64_t seed : {1u, 2u, 3u, 4u}) {
      KMeansConfig config;
      config.k = 24;
      config.seed = seed;
      config.init = seed % 2 ? InitMethod::Random : InitMethod::KMeansPlusPlus;
      StartOutcome results[2];
      RefineReport reports[2];
      for (int t = 0; t < 2; ++t) {
        auto engine = createCpuEngine(t + 1);
        engine->setData(data);
        results[t] = runToTheEnd(*engine, config);
        const double before = results[t].inertia();
        RefineOptions options;
        options.threads = t + 1;  // the moves proposed on one thread, then on two
        reports[t] = refineOutcome(*engine, data, config, results[t], options);
        EXPECT_LE(reports[t].sse_after, reports[t].sse_before) << "seed " << seed;
        EXPECT_LE(results[t].inertia(), before) << "seed " << seed;
        EXPECT_EQ(reports[t].inertia_before, before);
        EXPECT_EQ(reports[t].improved, results[t].inertia() < before);
        if (reports[t].improved) EXPECT_EQ(reports[t].inertia_after, results[t].inertia());
      }
      EXPECT_EQ(reports[0].moves, reports[1].moves) << "seed " << seed;
      EXPECT_EQ(bitsOf(results[0].centroids), bitsOf(results[1].centroids)) << "seed " << seed;
      EXPECT_EQ(results[0].iterations.size(), results[1].iterations.size());
      improved += reports[0].improved;
    }
  EXPECT_GT(improved, 0) << "Hartigan's moves improve some of these Lloyd optima";
}

TEST(Refine, OneDistinctColourAndBadInput) {
  // One row: nothing can move (its cluster's only weight), the start stays as it was.
  const std::vector<float> one{0.25f, 0.5f, 0.75f};
  const std::vector<std::uint32_t> count{1000};
  const DataView view{one.data(), 1, 3, nullptr, count.data()};
  auto engine = createCpuEngine(1);
  engine->setData(view);
  KMeansConfig config;
  config.k = 1;
  StartOutcome outcome = runToTheEnd(*engine, config);
  const std::vector<float> before = outcome.centroids;
  const RefineReport report = refineOutcome(*engine, view, config, outcome);
  EXPECT_EQ(report.moves, 0u);
  EXPECT_FALSE(report.improved);
  EXPECT_EQ(outcome.centroids, before);
  RefineReport unused;
  EXPECT_THROW(hartiganMoves(view, 1, {0.0f, 0.0f, 0.0f}, {0, 0}, {}, unused), InvalidArgument);
  EXPECT_THROW(hartiganMoves(view, 1, {0.0f, 0.0f, 0.0f}, {3}, {}, unused), InvalidArgument);
  EXPECT_THROW(hartiganMoves(view, 2, {0.0f, 0.0f, 0.0f}, {0}, {}, unused), InvalidArgument);
}

}  // namespace
}  // namespace kms
