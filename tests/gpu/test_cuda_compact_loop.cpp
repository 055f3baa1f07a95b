// Engine::steps on compact rows of 4 < d ≤ 16: up to 64 iterations in one cooperative launch
// whose grid waits for itself between the assignment and the update. Each iteration must be the
// one step() gives — the same stats bit for bit, the same centroids and labels after — for each
// of the update's three forms (k ≤ 32, 33 ≤ k < 64, 64 ≤ k ≤ 256) and both compiled widths
// (D = 8, 16), and the loop must stop where step() by step() stops: convergence, max_iterations,
// a cluster emptied under the re-seeding policy. Against the CPU backend too.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "gpu_test_support.h"
#include "support/compact_data.h"

namespace kms {
namespace {

using test::expectLoopIsStepByStep;

KMeansConfig fixedRun(int k, std::uint64_t seed, int iterations) {
  KMeansConfig config;
  config.k = k;
  config.seed = seed;
  config.tolerance = 0;
  config.max_iterations = iterations;
  return config;
}

TEST(CompactRowsLoop, NineCoordinatesInBatchesOfSeveralSizes) {
  KMS_REQUIRE_CUDA();
  // kmeans-bench's shape: 17,695 × 9, k = 128 (the update spread over 16 blocks).
  const auto x = test::blobPoints(17695, 9, 40, 21, 2.0f, 0.6f);
  const auto stats =
      expectLoopIsStepByStep(DataView{x.data(), x.size() / 9, 9}, fixedRun(128, 5, 45), {7, 64, 2});
  ASSERT_FALSE(stats.empty());
  EXPECT_GE(stats.back().rows_searched, 0) << "not the compact kernels";
}

TEST(CompactRowsLoop, EveryUpdateFormAndBothWidths) {
  KMS_REQUIRE_CUDA();
  struct Shape {
    int d, k;
  };
  // k ≤ 32: one warp's update; 33–63: one block's; 64–256: spread over ⌈k/8⌉ blocks.
  for (const Shape s : {Shape{5, 16}, Shape{7, 48}, Shape{12, 200}, Shape{16, 256}}) {
    SCOPED_TRACE("d = " + std::to_string(s.d) + ", k = " + std::to_string(s.k));
    const auto x = test::uniformPoints(30000, s.d, 7 + s.d, -4.0f, 6.0f);
    expectLoopIsStepByStep(DataView{x.data(), x.size() / s.d, s.d}, fixedRun(s.k, 3, 25), {64, 9});
    if (HasFailure()) break;
  }
}

TEST(CompactRowsLoop, NearTiesAcrossIterations) {
  KMS_REQUIRE_CUDA();
  // Rows on and a few ULPs off a bisector that the uneven pull drags across them: rows the
  // bounds settled change side (or tie) in later iterations of the same launch.
  const int d = 6;
  const auto x = test::bisectorBand(d, 9, 20000, 10000, 7000);
  KMeansConfig config = test::givenCentroids(test::bisectorBandStart(d, 40), 40);
  config.max_iterations = 60;
  expectLoopIsStepByStep(DataView{x.data(), x.size() / d, d}, config, {64, 5});
}

TEST(CompactRowsLoop, StopsAtConvergenceLikeStepByStep) {
  KMS_REQUIRE_CUDA();
  const auto x = test::blobPoints(40000, 8, 12, 5, 3.0f, 0.4f);
  KMeansConfig config;
  config.k = 12;
  config.seed = 8;
  config.init = InitMethod::KMeansPlusPlus;
  config.max_iterations = 500;  // converges long before
  const auto stats = expectLoopIsStepByStep(DataView{x.data(), x.size() / 8, 8}, config, {64});
  ASSERT_FALSE(stats.empty());
  EXPECT_TRUE(stats.back().converged);
  EXPECT_LT(stats.size(), 500u);
}

TEST(CompactRowsLoop, MaxIterationsEndsTheLaunch) {
  KMS_REQUIRE_CUDA();
  const auto x = test::uniformPoints(20000, 10, 5);
  auto gpu = test::cudaEngineOn(x, 10);
  gpu->initialize(fixedRun(100, 1, 10));
  ASSERT_EQ(gpu->stepsPerCall(), 64);
  std::vector<IterationStats> stats;
  EXPECT_EQ(gpu->steps(64, stats), 10);
  EXPECT_EQ(gpu->iteration(), 10);
  EXPECT_TRUE(gpu->finished());
  ASSERT_EQ(stats.size(), 10u);
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(stats[i].iteration, i + 1);
}

TEST(CompactRowsLoop, EmptyClustersEndTheLaunchAndAreReseeded) {
  KMS_REQUIRE_CUDA();
  // Emptied in the launch's second iteration (a cluster whose mean leaves its rows).
  std::vector<float> x;
  const KMeansConfig emptied = test::emptiedInSecondIteration(5, x);
  for (auto policy : {EmptyClusterPolicy::ReseedFarthest, EmptyClusterPolicy::KeepCentroid})
    test::expectMidLaunchEmptying(DataView{x.data(), x.size() / 5, 5}, emptied, policy);
  // Empty from the start: 8 of 70 starts far beyond the data, two equal to others.
  const int d = 9, k = 70;
  const auto y = test::uniformPoints(25000, d, 17, -2.0f, 2.0f);
  std::vector<float> start(y.begin(), y.begin() + static_cast<std::ptrdiff_t>(k) * d);
  for (int j = 0; j < 8; ++j)
    start[static_cast<std::size_t>(j) * d + j % d] = 1e5f * float(j + 1);
  for (int c = 0; c < d; ++c)
    start[static_cast<std::size_t>(69) * d + c] = start[static_cast<std::size_t>(68) * d + c];
  KMeansConfig config = test::givenCentroids(start, k);
  config.max_iterations = 30;
  for (auto policy : {EmptyClusterPolicy::ReseedFarthest, EmptyClusterPolicy::KeepCentroid}) {
    config.empty_clusters = policy;
    const auto stats = expectLoopIsStepByStep(DataView{y.data(), y.size() / d, d}, config, {64});
    ASSERT_FALSE(stats.empty());
    EXPECT_GE(stats.front().empty_clusters, 8);
  }
}

TEST(CompactRowsLoop, CountedValues) {
  KMS_REQUIRE_CUDA();
  const test::CompactData data = test::compactOf(test::levelPoints(200000, 6, 5, 23), 6);
  expectLoopIsStepByStep(data.view(), fixedRun(64, 12, 30), {64, 4});
}

TEST(CompactRowsLoop, OnlyCompactRowsWithoutHostWorkLoopOnTheDevice) {
  KMS_REQUIRE_CUDA();
  const auto x = test::uniformPoints(20000, 9, 3);
  KMeansConfig config = fixedRun(128, 2, 20);
  auto gpu = test::cudaEngineOn(x, 9);
  gpu->initialize(config);
  EXPECT_EQ(gpu->stepsPerCall(), 64);
  gpu->requestSnapshot();  // the capture needs the host after its iteration
  EXPECT_EQ(gpu->stepsPerCall(), 1);
  config.keep_history = true;  // so does the history's record of each iteration's centroids
  gpu->initialize(config);
  EXPECT_EQ(gpu->stepsPerCall(), 1);
  config.keep_history = false;
  const std::vector<float> w(x.size() / 9, 2.0f);  // weights: the assignment kernels
  auto weighted = test::cudaEngineOn(x, 9, &w);
  weighted->initialize(config);
  EXPECT_EQ(weighted->stepsPerCall(), 1);
  const auto y = test::uniformPoints(20000, 3, 4);  // d ≤ 4: point tiles or rows, no loop
  EngineOptions rows;
  rows.cuda_point_tiles = PointTiles::Never;
  for (const EngineOptions& options : {EngineOptions{}, rows}) {
    auto small = test::cudaEngineOn(y, 3, nullptr, options);
    small->initialize(config);
    EXPECT_EQ(small->stepsPerCall(), 1);
  }
  EXPECT_EQ(test::cpuEngineOn(x, 9)->stepsPerCall(), 1);
}

TEST(CompactRowsLoop, ARequestedCaptureIsTakenAndTheRunGoesOn) {
  KMS_REQUIRE_CUDA();
  const auto x = test::uniformPoints(30000, 9, 13);
  auto loop = test::cudaEngineOn(x, 9);
  auto stepped = test::cudaEngineOn(x, 9);
  const KMeansConfig config = fixedRun(64, 4, 40);
  loop->initialize(config);
  stepped->initialize(config);
  std::vector<IterationStats> stats;
  ASSERT_EQ(loop->steps(10, stats), 10);
  loop->requestSnapshot();
  ASSERT_EQ(loop->steps(10, stats), 10);  // the capture is of iteration 11
  // The capture's labels may still be on their way out: the next launch must leave them be.
  ASSERT_EQ(loop->steps(5, stats), 5);
  Snapshot expected, captured;
  for (int i = 0; i < 11; ++i)
    stepped->step();
  stepped->snapshot(expected);
  bool took = false;
  for (int tries = 0; tries < 2000 && !took; ++tries) {
    took = loop->takeCapturedSnapshot(captured);
    if (!took) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ASSERT_TRUE(took);
  EXPECT_EQ(captured.iteration, 11);
  EXPECT_EQ(captured.labels, expected.labels);
  EXPECT_EQ(captured.centroids, expected.centroids);
  EXPECT_EQ(loop->steps(64, stats), 15);
  while (!stepped->finished())
    stepped->step();
  Snapshot a, b;
  loop->snapshot(a);
  stepped->snapshot(b);
  EXPECT_EQ(a.iteration, 40);
  EXPECT_EQ(a.labels, b.labels);
  EXPECT_EQ(a.centroids, b.centroids);
}

TEST(DeviceLoops, PastConvergenceWithTheBenchmarksOption) {
  KMS_REQUIRE_CUDA();
  // EngineOptions::cuda_steps_past_convergence: launches go on past convergence as step() does,
  // iteration for iteration — the compact rows and the sorted runs.
  EngineOptions past;
  past.cuda_steps_past_convergence = true;
  struct Case {
    std::vector<float> x;
    int d, k;
  };
  const std::vector<Case> cases = {{test::blobPoints(20000, 9, 6, 3, 3.0f, 0.3f), 9, 6},
                                   {test::blobPoints(50000, 1, 5, 4, 3.0f, 0.2f), 1, 5}};
  for (const Case& c : cases) {
    SCOPED_TRACE("d = " + std::to_string(c.d));
    auto loop = test::cudaEngineOn(c.x, c.d, nullptr, past);
    auto stepped = test::cudaEngineOn(c.x, c.d);
    KMeansConfig config;
    config.k = c.k;
    config.seed = 6;
    config.init = InitMethod::KMeansPlusPlus;
    config.max_iterations = 90;
    loop->initialize(config);
    stepped->initialize(config);
    ASSERT_EQ(loop->stepsPerCall(), 64);
    std::vector<IterationStats> stats;
    EXPECT_EQ(loop->steps(64, stats), 64);
    EXPECT_EQ(loop->steps(64, stats), 26);
    EXPECT_EQ(loop->steps(64, stats), 0);
    ASSERT_EQ(stats.size(), 90u);
    EXPECT_TRUE(stats.back().converged) << "the data converge well before 90 iterations";
    for (int i = 0; i < 90; ++i)
      test::expectSameStats(stats[i], stepped->step(), i + 1);
    Snapshot a, b;
    loop->snapshot(a);
    stepped->snapshot(b);
    EXPECT_EQ(a.labels, b.labels);
    EXPECT_EQ(a.centroids, b.centroids);
  }
}

}  // namespace
}  // namespace kms
