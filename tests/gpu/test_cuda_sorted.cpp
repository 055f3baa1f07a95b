// Sorted runs (d = 1): each centroid's rows found by a search over the sorted values and its
// sums by subtraction of prefix sums, no row read. Labels must be the CPU backend's and the
// centroids bit-identical, iteration by iteration — on random data, on counted data, and on data
// and starts built to break the runs: rows exactly between two centroids, centroids equal or a
// float step apart (their distances from a far row round alike, so the winner flips back and
// forth along the line: the near-tied "mixed" runs), −0 and +0, values whose squares overflow,
// and empty clusters re-seeded. Also against the compact kernels (the option off), with captures.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <string>

#include "gpu_test_support.h"
#include "kmeans/testing.h"
#include "support/compact_data.h"

namespace kms {
namespace {

TestingOptions sortedOff() {
  TestingOptions options;
  options.cuda.sorted_runs = false;
  return options;
}

/// The CPU's trajectory on sorted runs (the default for d = 1), inertia within the CPU's float
/// rounding of each distance (the runs take it from exact moments).
std::vector<IterationStats> expectCpuTrajectory(const std::vector<float>& x, KMeansConfig config,
                                                int iterations) {
  return test::expectSameTrajectory(DataView{x.data(), x.size(), 1}, config, iterations);
}

KMeansConfig given(const std::vector<float>& centroids) {
  return test::givenCentroids(centroids, static_cast<int>(centroids.size()));
}

struct SortedCase {
  std::size_t n;
  int k;
  InitMethod init;
  bool clustered;  ///< blobs (most runs settle early) or uniform values
};

class SortedRunsVersusCpu : public ::testing::TestWithParam<SortedCase> {};

TEST_P(SortedRunsVersusCpu, SameTrajectory) {
  KMS_REQUIRE_CUDA();
  const SortedCase c = GetParam();
  const auto x = c.clustered ? test::blobPoints(c.n, 1, 24, 7 + c.k, 3.0f, 0.4f)
                             : test::uniformPoints(c.n, 1, 11 + c.k, -5.0f, 9.0f);
  KMeansConfig config;
  config.k = c.k;
  config.init = c.init;
  config.seed = 5 + c.k;
  config.empty_clusters = EmptyClusterPolicy::ReseedFarthest;
  const auto stats = expectCpuTrajectory(x, config, 25);
  ASSERT_FALSE(stats.empty());
  EXPECT_EQ(stats.front().changed, c.n);  // every row, the first time
  // The sorted runs count no rows searched (−1); the compact kernels do (k > 32, and one row:
  // data spanning nothing have no sorted runs).
  if (c.k <= 32 && c.n > 1)
    EXPECT_EQ(stats.front().rows_searched, -1) << "not the sorted runs";
  else
    EXPECT_GE(stats.front().rows_searched, 0);
}

INSTANTIATE_TEST_SUITE_P(
    Grid, SortedRunsVersusCpu,
    ::testing::Values(SortedCase{1, 1, InitMethod::Random, false},
                      SortedCase{1000, 1, InitMethod::Random, false},
                      SortedCase{1000, 3, InitMethod::KMeansPlusPlus, true},
                      SortedCase{4096, 16, InitMethod::Random, false},
                      SortedCase{4097, 16, InitMethod::KMeansPlusPlus, true},
                      SortedCase{200000, 16, InitMethod::KMeansPlusPlus, false},
                      SortedCase{200000, 32, InitMethod::Random, true},
                      SortedCase{300001, 31, InitMethod::KMeansPlusPlus, false},
                      // Samples more than 256 rows apart: a boundary's rows loaded again.
                      SortedCase{1500000, 8, InitMethod::KMeansPlusPlus, false},
                      // k > 32: the compact kernels, the same trajectory.
                      SortedCase{50000, 33, InitMethod::Random, true}),
    [](const auto& info) {
      return "n" + std::to_string(info.param.n) + "_k" + std::to_string(info.param.k) +
             (info.param.init == InitMethod::Random ? "_random" : "_plusplus") +
             (info.param.clustered ? "_blobs" : "_uniform");
    });

TEST(SortedRuns, RowsOnTheBisectorGoToTheLowerIndex) {
  KMS_REQUIRE_CUDA();
  // Centroids 2 > 1 > 0 by index, so every tie goes to the larger value; rows on every midpoint
  // and a float step either side of it, many times over.
  std::vector<float> x;
  for (int r = 0; r < 300; ++r)
    for (float m : {0.5f, 1.5f, -0.5f, 2.5f, 1.0f})
      for (float v : {m, std::nextafter(m, -10.0f), std::nextafter(m, 10.0f)})
        x.push_back(v);
  expectCpuTrajectory(x, given({2.0f, 1.0f, 0.0f}), 4);
  expectCpuTrajectory(x, given({0.0f, 1.0f, 2.0f}), 4);
}

TEST(SortedRuns, NearlyEqualCentroidsMakeMixedRunsThatMatchTheCpu) {
  KMS_REQUIRE_CUDA();
  // Three centroids a float step apart near 1 (and their indices out of order), one far away:
  // from a row far to the left their squared distances round alike, so the lowest index wins
  // there while the nearest wins close by — the winner is not monotone along the line. Rows on
  // both sides and among them.
  std::vector<float> x;
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<float> far(-3e6f, -1e6f), near(0.999f, 1.001f), right(2, 9);
  for (int i = 0; i < 20000; ++i)
    x.push_back(i % 3 == 0 ? far(rng) : i % 3 == 1 ? near(rng) : right(rng));
  for (int i = -4; i <= 4; ++i)  // exactly on and between the three
    x.push_back(1.0f + i * std::numeric_limits<float>::epsilon() / 2);
  const float one = 1.0f, up = std::nextafter(one, 2.0f), up2 = std::nextafter(up, 2.0f);
  for (auto policy : {EmptyClusterPolicy::KeepCentroid, EmptyClusterPolicy::ReseedFarthest}) {
    KMeansConfig config = given({up, one, 7.0f, up2});
    config.empty_clusters = policy;
    expectCpuTrajectory(x, config, 8);
  }
}

TEST(SortedRuns, EqualCentroidsAndSignedZeros) {
  KMS_REQUIRE_CUDA();
  std::vector<float> x;
  for (int i = 0; i < 5000; ++i)
    x.push_back(i % 4 == 0 ? -0.0f : i % 4 == 1 ? 0.0f : static_cast<float>(i % 97) - 40.0f);
  for (auto policy : {EmptyClusterPolicy::KeepCentroid, EmptyClusterPolicy::ReseedFarthest}) {
    KMeansConfig config = given({3.0f, -0.0f, 3.0f, 0.0f, -7.0f});
    config.empty_clusters = policy;
    const auto stats = expectCpuTrajectory(x, config, 6);
    ASSERT_FALSE(stats.empty());
    EXPECT_GE(stats.front().empty_clusters, 2);  // the later copies of 3 and of ±0 win no row
  }
}

TEST(SortedRuns, HugeValuesWhoseSquaresOverflow) {
  KMS_REQUIRE_CUDA();
  // Distances beyond float's range: every comparison is a tie at ∞ (the lowest index wins) — no
  // run structure to rely on. Data spanning 2^58 or more go to the compact kernels.
  std::vector<float> x;
  std::mt19937_64 rng(9);
  std::uniform_real_distribution<float> u(-1.5e38f, 1.5e38f);  // a range float still holds
  for (int i = 0; i < 3000; ++i)
    x.push_back(u(rng));
  KMeansConfig config;
  config.k = 6;
  config.seed = 4;
  const auto stats = expectCpuTrajectory(x, config, 5);
  ASSERT_FALSE(stats.empty());
  EXPECT_GE(stats.front().rows_searched, 0) << "the compact kernels";
}

TEST(SortedRuns, TinyValues) {
  KMS_REQUIRE_CUDA();
  // Squares in float's subnormals and below: distances of 0 between distinct values. Data
  // spanning less than 2^-40 go to the compact kernels.
  std::vector<float> x;
  for (int i = 0; i < 4000; ++i)
    x.push_back(std::ldexp(static_cast<float>(i % 50) - 25.0f, -140 + (i % 3)));
  KMeansConfig config;
  config.k = 7;
  config.seed = 8;
  const auto stats = expectCpuTrajectory(x, config, 5);
  ASSERT_FALSE(stats.empty());
  EXPECT_GE(stats.front().rows_searched, 0) << "the compact kernels";
}

TEST(SortedRuns, StartsBeyondTheDataAndFarAway) {
  KMS_REQUIRE_CUDA();
  // A start just past the data's edge (beyond the inertia grid: its moments about the grid's
  // end), and one so far away that no centroid pair is the safe gap apart (one mixed group: every
  // row looked at); with KeepCentroid the far one stays, empty, for every iteration.
  std::vector<float> x;
  for (int i = 0; i < 3000; ++i)
    x.push_back((i % 2 ? 1.0f : -1.0f) * (0.999998f - static_cast<float>(i % 7) * 1e-7f));
  expectCpuTrajectory(x, given({-0.999998f, 1.0f}), 3);
  KMeansConfig far = given({5e20f, -0.5f, 0.5f});
  far.empty_clusters = EmptyClusterPolicy::KeepCentroid;
  const auto stats = expectCpuTrajectory(x, far, 4);
  ASSERT_EQ(stats.size(), 4u);
  EXPECT_EQ(stats.back().empty_clusters, 1);
  EXPECT_EQ(stats.front().rows_searched, -1) << "not the sorted runs";
}

TEST(SortedRuns, CountedValuesMatchTheCpu) {
  KMS_REQUIRE_CUDA();
  const auto expanded = test::levelPoints(400000, 1, 3000, 21);
  const test::CompactData data = test::compactOf(expanded, 1);
  for (int k : {2, 16, 32}) {
    KMeansConfig config;
    config.k = k;
    config.seed = 17;
    config.empty_clusters = EmptyClusterPolicy::ReseedFarthest;
    test::expectSameTrajectory(data.view(), config, 15);
  }
}

TEST(SortedRuns, SameAsTheCompactKernelsWithCaptures) {
  KMS_REQUIRE_CUDA();
  const auto x = test::blobPoints(300000, 1, 40, 13, 2.0f, 0.7f);
  const DataView view{x.data(), x.size(), 1};
  auto runs = createEngine(BackendKind::Cuda).engine;
  auto rows = createEngine(BackendKind::Cuda, sortedOff()).engine;
  runs->setData(view);
  rows->setData(view);
  KMeansConfig config;
  config.k = 24;
  config.seed = 2;
  config.empty_clusters = EmptyClusterPolicy::ReseedFarthest;
  const auto stats = test::expectSameEngineRun(*runs, *rows, config, 30, 4);
  EXPECT_EQ(stats.size(), 30u);
}

TEST(SortedRuns, ASecondRunOnTheSameEngineIsTheFirstAgain) {
  KMS_REQUIRE_CUDA();
  const auto x = test::uniformPoints(100000, 1, 77);
  auto gpu = test::cudaEngineOn(x, 1);
  KMeansConfig config;
  config.k = 20;
  config.seed = 6;
  config.max_iterations = 12;
  Snapshot first, second;
  std::vector<double> inertia[2];
  for (int run = 0; run < 2; ++run) {
    gpu->initialize(config);
    gpu->run([&](const IterationStats& s) {
      inertia[run].push_back(s.inertia);
      return true;
    });
    gpu->snapshot(run == 0 ? first : second);
  }
  EXPECT_EQ(inertia[0], inertia[1]);
  EXPECT_EQ(first.labels, second.labels);
  EXPECT_EQ(first.centroids, second.centroids);
}

TEST(SortedRuns, InertiaOfRowsOnTheirCentroidsIsZero) {
  KMS_REQUIRE_CUDA();
  // k = the distinct values: every row sits on its centroid after the first update.
  std::vector<float> x;
  for (int i = 0; i < 6000; ++i)
    x.push_back(static_cast<float>(i % 6) * 0.25f);
  auto gpu = test::cudaEngineOn(x, 1);
  gpu->initialize(given({0.0f, 0.25f, 0.5f, 0.75f, 1.0f, 1.25f}));
  const IterationStats first = gpu->step();
  EXPECT_EQ(first.inertia, 0.0);
  EXPECT_EQ(first.changed, 6000);
}

}  // namespace
}  // namespace kms
