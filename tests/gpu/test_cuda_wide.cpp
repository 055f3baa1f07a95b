// Rows of 17 ≤ d ≤ 64 with k ≤ 256 (the wide kernels): a Hamerly bound per row, sums kept across
// iterations, unsettled rows searched by a warp. Against the CPU backend iteration by iteration
// (identical labels, bit-identical centroids, the same changed counts and shifts) on blobs,
// quantised data full of ties, re-seeding, counts, points the centroids drift across, and
// distances that overflow float; against the kernels that rank every row (identical runs); and a
// check that the bounds do settle most rows once the run has settled.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "gpu_test_support.h"
#include "kmeans/testing.h"
#include "support/compact_data.h"

namespace kms {
namespace {

/// test::expectSameTrajectory on the wide kernels. Returns the fewest rows the GPU searched in any
/// iteration after the tenth (−1 if none).
std::int64_t expectSameTrajectory(const DataView& view, const KMeansConfig& config,
                                  int iterations) {
  const auto stats = test::expectSameTrajectory(view, config, iterations);
  std::int64_t least = -1;
  for (std::size_t t = 0; t < stats.size(); ++t) {
    EXPECT_GE(stats[t].rows_searched, 0) << "the wide kernels report the rows they searched";
    if (t >= 10)
      least = least < 0 ? stats[t].rows_searched : std::min(least, stats[t].rows_searched);
  }
  return least;
}

struct WideCase {
  int d;
  int k;
  bool reseed;   ///< a third of the centroids start far away
  bool counted;  ///< the data's distinct rows with counts
  bool levels;   ///< coordinates on a grid of 4 levels (ties everywhere) instead of blobs
};

class WideGpuVersusCpu : public ::testing::TestWithParam<WideCase> {};

TEST_P(WideGpuVersusCpu, SameTrajectory) {
  KMS_REQUIRE_CUDA();
  const WideCase c = GetParam();
  const std::size_t n = 24000 + 7 * c.d;
  const auto p = c.levels ? test::levelPoints(n, c.d, 4, 5 + c.d)
                          : test::blobPoints(n, c.d, 40, 7 + c.d + c.k, 3.0f, 0.6f);
  auto start = test::uniformPoints(std::size_t(c.k), c.d, 11 + c.k, 0.0f, 1.0f);
  if (c.reseed)
    for (int j = 0; j < c.k; j += 3)
      start[std::size_t(j) * c.d] += 50.0f;
  KMeansConfig config = test::givenCentroids(start, c.k);
  config.empty_clusters =
      c.reseed ? EmptyClusterPolicy::ReseedFarthest : EmptyClusterPolicy::KeepCentroid;
  if (c.counted) {
    const test::CompactData compact = test::compactOf(p, c.d);
    expectSameTrajectory(compact.view(), config, 30);
  } else {
    expectSameTrajectory(DataView{p.data(), n, c.d}, config, 30);
  }
}

std::string wideName(const ::testing::TestParamInfo<WideCase>& info) {
  const WideCase& c = info.param;
  return "d" + std::to_string(c.d) + "_k" + std::to_string(c.k) + (c.reseed ? "_reseed" : "") +
         (c.counted ? "_counts" : "") + (c.levels ? "_levels" : "");
}

INSTANTIATE_TEST_SUITE_P(
    Rows, WideGpuVersusCpu,
    ::testing::Values(WideCase{17, 16, false, false, false}, WideCase{24, 40, true, false, false},
                      WideCase{32, 256, false, false, false}, WideCase{33, 100, true, false, false},
                      WideCase{40, 1, false, false, false}, WideCase{64, 256, true, false, false},
                      WideCase{64, 64, false, false, true}, WideCase{20, 30, true, true, true},
                      WideCase{48, 256, false, true, true}, WideCase{64, 2, false, false, true}),
    wideName);

// Points on the bisector of two centroids and a few ULPs either side of it, in 40 coordinates,
// with two far groups that drag the centroids across them for many iterations
// (test::bisectorBand): rows the bounds settled earlier change side (or tie) later, when the
// drift must have let them go; 40 centroids, some of them exact copies, so equal scores meet in
// the warp's combination.
TEST(CudaWide, PointsTheCentroidsDriftAcrossFollowTheCpu) {
  KMS_REQUIRE_CUDA();
  const int d = 40, k = 40;
  const auto p = test::bisectorBand(d, 6, 40000, 20000, 14000);
  expectSameTrajectory(DataView{p.data(), p.size() / d, d},
                       test::givenCentroids(test::bisectorBandStart(d, k), k), 60);
}

// Once the run has settled, the bounds settle most rows: only a few are searched again.
TEST(CudaWide, BoundsSettleMostRows) {
  KMS_REQUIRE_CUDA();
  const int d = 64, k = 64;
  const std::size_t n = 60000;
  const auto p = test::blobPoints(n, d, 64, 3, 6.0f, 0.5f);
  KMeansConfig config;
  config.k = k;
  config.seed = 2;
  config.init = InitMethod::GreedyKMeansPlusPlus;
  const std::int64_t least = expectSameTrajectory(DataView{p.data(), n, d}, config, 25);
  EXPECT_GE(least, 0);
  EXPECT_LT(least, static_cast<std::int64_t>(n / 10)) << "the bounds settled too few rows";
}

// The same run with bounds (the wide kernels) and without (every row ranked, TF32 tensor cores):
// identical labels and centroids every iteration, captures included.
TEST(CudaWide, BoundsAndRankingEveryRowGiveTheSameRun) {
  KMS_REQUIRE_CUDA();
  const int d = 48, k = 100;
  const auto p = test::blobPoints(50000, d, 90, 9, 4.0f, 0.8f);
  TestingOptions every_row;
  every_row.cuda.distance_bounds = false;
  auto bounded = test::cudaEngineOn(p, d);
  auto ranked = test::cudaEngineOn(p, d, nullptr, every_row);
  KMeansConfig config;
  config.k = k;
  config.seed = 4;
  config.empty_clusters = EmptyClusterPolicy::ReseedFarthest;
  test::expectSameEngineRun(*bounded, *ranked, config, 30, 5);
}

// Points whose distances to both centroids overflow float: the CPU labels them 0 (nothing below
// ∞), and so must the warp search — its scores overflow too, so it takes exact distances.
TEST(CudaWide, OverflowingDistancesFollowTheCpu) {
  KMS_REQUIRE_CUDA();
  const int d = 64, n = 4000;
  const float far = 1.2e18f;  // 2·far·√d: ‖x − c‖² just above FLT_MAX
  std::vector<float> p(static_cast<std::size_t>(n) * d);
  for (int i = 0; i < n; ++i)
    for (int c = 0; c < d; ++c)
      p[static_cast<std::size_t>(i) * d + c] = (i % 3 == 0) ? far : (i % 3 == 1) ? -far : 0.0f;
  std::vector<float> init(2 * static_cast<std::size_t>(d), -far);
  init[d] = -far + far / 2;
  expectSameTrajectory(DataView{p.data(), std::size_t(n), d}, test::givenCentroids(init, 2), 4);
}

}  // namespace
}  // namespace kms
