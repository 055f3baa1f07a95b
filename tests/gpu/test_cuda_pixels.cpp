// Plain points with d ≤ 4 and k ≤ 1,024 (a photo's pixels one by one), and with d ≤ 16 and
// k ≤ 256, run on the compact kernels with every count 1: distance bounds and sums kept across
// iterations (d > 4: a warp searches each row the bounds do not settle). Long runs against
// the CPU backend, iteration by iteration — identical labels, bit-identical centroids, the same
// changed counts — on data made to stress the bounds: exact duplicates, points on or a few ULPs
// off the bisectors, centroids that keep drifting for many iterations, re-seeded clusters.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <random>
#include <string>

#include "gpu_test_support.h"
#include "support/compact_data.h"

namespace kms {
namespace {

struct PixelCase {
  int d;
  int k;
  int levels;   ///< distinct values per coordinate (few: many exact duplicates and ties)
  bool reseed;  ///< every third centroid starts far away, so clusters empty and re-seed
};

/// Both backends from the same centroids, every iteration compared (test::expectSameTrajectory).
void expectSameTrajectory(const std::vector<float>& p, int d, const KMeansConfig& config,
                          int iterations) {
  test::expectSameTrajectory(DataView{p.data(), p.size() / d, d}, config, iterations);
}

class PixelsGpuVersusCpu : public ::testing::TestWithParam<PixelCase> {};

TEST_P(PixelsGpuVersusCpu, SameTrajectoryForFortyIterations) {
  KMS_REQUIRE_CUDA();
  const PixelCase c = GetParam();
  // Quantised values like 8-bit colours: exact duplicates everywhere, many exact ties.
  const auto p = test::levelPoints(120000, c.d, c.levels, 11 + c.k + c.d);
  auto start = test::uniformPoints(std::size_t(c.k), c.d, 3 + c.k, 0.0f, 1.0f);
  if (c.reseed)
    for (int j = 0; j < c.k; j += 3)
      start[std::size_t(j) * c.d] += 40.0f;
  KMeansConfig config = test::givenCentroids(start, c.k);
  config.empty_clusters =
      c.reseed ? EmptyClusterPolicy::ReseedFarthest : EmptyClusterPolicy::KeepCentroid;
  expectSameTrajectory(p, c.d, config, 40);
}

std::string pixelName(const ::testing::TestParamInfo<PixelCase>& info) {
  const PixelCase& c = info.param;
  return "d" + std::to_string(c.d) + "_k" + std::to_string(c.k) + "_levels" +
         std::to_string(c.levels) + (c.reseed ? "_reseed" : "");
}

INSTANTIATE_TEST_SUITE_P(Levels, PixelsGpuVersusCpu,
                         ::testing::Values(PixelCase{3, 16, 256, false}, PixelCase{3, 16, 6, false},
                                           PixelCase{3, 64, 32, true},
                                           PixelCase{3, 256, 256, false},
                                           PixelCase{3, 300, 64, true},  // 16-bit labels
                                           PixelCase{3, 1024, 256, false},
                                           PixelCase{1, 16, 40, false}, PixelCase{1, 7, 1000, true},
                                           PixelCase{2, 33, 9, false}, PixelCase{4, 100, 16, true},
                                           // d > 4: rows zero-padded to 8 or 16, a warp per
                                           // searched row.
                                           PixelCase{5, 40, 8, true}, PixelCase{8, 64, 6, false},
                                           PixelCase{9, 128, 5, false}, PixelCase{16, 256, 4, true},
                                           PixelCase{6, 1, 3, false}, PixelCase{12, 200, 256, true},
                                           PixelCase{7, 33, 2, false},
                                           PixelCase{16, 300, 4, false}),  // the assignment kernels
                         pixelName);

// Points on the bisector of two centroids and a few ULPs either side of it, with two far groups
// that pull the centroids past them slowly over many iterations (test::bisectorBand).
TEST(CudaPixels, PointsTheCentroidsDriftAcrossFollowTheCpu) {
  KMS_REQUIRE_CUDA();
  const int d = 3;
  const auto p = test::bisectorBand(d, 5, 60000, 30000, 20000);
  const std::vector<float> start = {0.0f, 0.5f, 0.5f, 1.0f, 0.5f, 0.5f, 9.0f, 9.0f, 9.0f};
  expectSameTrajectory(p, d, test::givenCentroids(start, 3), 60);
}

// The same drift in d = 9 (rows padded to 16, searched by a warp), and more centroids than a warp
// has lanes: lanes score different centroids, so near ties meet in the warp's combination of
// their bests and runners-up.
TEST(CudaPixels, WideRowsTheCentroidsDriftAcrossFollowTheCpu) {
  KMS_REQUIRE_CUDA();
  const int d = 9, k = 40;
  const auto p = test::bisectorBand(d, 6, 60000, 30000, 20000);
  expectSameTrajectory(p, d, test::givenCentroids(test::bisectorBandStart(d, k), k), 60);
}

// The search walks the centroids in the order of their projections on the data's principal axis.
// Here the data spread most along x but the clusters differ in y and z, so many centroids share
// a projection (equal keys, walked in either order) and the walk must still find the exact
// nearest and runner-up; some points are equidistant from two centroids.
TEST(CudaPixels, CentroidsSpreadAcrossThePrincipalAxis) {
  KMS_REQUIRE_CUDA();
  std::mt19937 rng(12);
  std::uniform_real_distribution<float> along(-8.0f, 8.0f);
  std::uniform_int_distribution<int> group(0, 15);
  std::vector<float> p;
  for (int i = 0; i < 80000; ++i) {
    const int g = group(rng);
    p.insert(p.end(), {along(rng), float(g % 4) * 0.5f, float(g / 4) * 0.5f});
  }
  for (int i = 0; i < 2000; ++i)  // exactly between two groups in y
    p.insert(p.end(), {along(rng), 0.25f, 0.5f});
  std::vector<float> start;
  for (int g = 0; g < 16; ++g)
    start.insert(start.end(), {0.0f, float(g % 4) * 0.5f, float(g / 4) * 0.5f});
  expectSameTrajectory(p, 3, test::givenCentroids(start, 16), 25);
}

// k > 256 takes the other geometry path (a radix sort, and half gaps by a walk along the
// projections whose stop carries a margin scaled by the largest ‖c‖²). Centroids far from the
// origin, a few ULPs apart in projection, with points on and next to their bisectors.
TEST(CudaPixels, ManyCentroidsFarFromTheOrigin) {
  KMS_REQUIRE_CUDA();
  const int k = 600;
  std::vector<float> start, p;
  std::mt19937 rng(8);
  std::uniform_real_distribution<float> jitter(-0.002f, 0.002f);
  for (int j = 0; j < k; ++j)  // along a diagonal line 1,000 from the origin, 0.01 apart
    start.insert(start.end(), {1000.0f + 0.01f * j, 1000.0f + 0.01f * j + jitter(rng), 3.0f});
  for (int j = 0; j + 1 < k; ++j)
    for (int r = 0; r < 60; ++r) {
      float x = 0.5f * (start[3 * j] + start[3 * (j + 1)]);
      for (int step = 0; step < r % 4; ++step)
        x = std::nextafter(x, r % 2 ? 0.0f : 2000.0f);
      p.insert(p.end(),
               {x, 0.5f * (start[3 * j + 1] + start[3 * (j + 1) + 1]), 3.0f + jitter(rng)});
    }
  expectSameTrajectory(p, 3, test::givenCentroids(start, k), 12);
}

// A snapshot captured mid-run makes an iteration write the other label half in full; the bounds
// stay with the rows, and the run continues identically.
TEST(CudaPixels, CapturedSnapshotsDoNotDisturbTheBounds) {
  KMS_REQUIRE_CUDA();
  const auto p = test::levelPoints(200000, 3, 64, 8);
  const auto start = test::uniformPoints(40, 3, 9, 0.0f, 1.0f);
  auto gpu = test::cudaEngineOn(p, 3);
  auto cpu = test::cpuEngineOn(p, 3);
  gpu->initialize(test::givenCentroids(start, 40));
  cpu->initialize(test::givenCentroids(start, 40));
  std::map<int, Snapshot> cpu_at;  // the CPU's state after each iteration
  int compared = 0;
  for (int it = 1; it <= 30; ++it) {
    if (it % 4 == 0) gpu->requestSnapshot();
    gpu->step();
    cpu->step();
    cpu->snapshot(cpu_at[it]);
    Snapshot captured;
    if (gpu->takeCapturedSnapshot(captured)) {
      ASSERT_TRUE(cpu_at.count(captured.iteration)) << captured.iteration;
      EXPECT_EQ(captured.labels, cpu_at[captured.iteration].labels) << "iteration " << it;
      EXPECT_EQ(captured.centroids, cpu_at[captured.iteration].centroids) << "iteration " << it;
      ++compared;
    }
  }
  EXPECT_GE(compared, 3);
  Snapshot g, s;
  gpu->snapshot(g);
  cpu->snapshot(s);
  EXPECT_EQ(g.labels, s.labels);
  EXPECT_EQ(g.centroids, s.centroids);
}

}  // namespace
}  // namespace kms
