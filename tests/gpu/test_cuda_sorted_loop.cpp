// Engine::steps on the sorted runs (d = 1): up to 64 iterations in one launch, the loop on the
// device. Each iteration must be the one step() gives — the same stats bit for bit (inertia,
// changed, shift, empty clusters, convergence), the same centroids and labels after — and the
// loop must stop where step() by step() stops: at convergence, at max_iterations, and after an
// iteration that leaves a cluster empty when the policy re-seeds (the host re-seeds, the next
// launch goes on). Against the CPU backend too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "gpu_test_support.h"
#include "kmeans/testing.h"
#include "loop_test_support.h"
#include "support/compact_data.h"

namespace kms {
namespace {

TEST(SortedRunsLoop, UniformDataInBatchesOfSeveralSizes) {
  KMS_REQUIRE_CUDA();
  const auto x = test::uniformPoints(300000, 1, 41, -5.0f, 9.0f);
  KMeansConfig config;
  config.k = 16;
  config.seed = 3;
  config.tolerance = 0;
  config.max_iterations = 90;
  const auto stats =
      test::expectLoopIsStepByStep(DataView{x.data(), x.size(), 1}, config, {7, 64, 2});
  EXPECT_EQ(stats.front().rows_searched, -1) << "not the sorted runs";
}

TEST(SortedRunsLoop, StopsAtConvergenceLikeStepByStep) {
  KMS_REQUIRE_CUDA();
  const auto x = test::blobPoints(200000, 1, 12, 5, 3.0f, 0.4f);
  KMeansConfig config;
  config.k = 12;
  config.seed = 8;
  config.init = InitMethod::KMeansPlusPlus;
  config.max_iterations = 500;  // converges long before
  const auto stats = test::expectLoopIsStepByStep(DataView{x.data(), x.size(), 1}, config, {64});
  ASSERT_FALSE(stats.empty());
  EXPECT_TRUE(stats.back().converged);
  EXPECT_LT(stats.size(), 500u);
}

TEST(SortedRunsLoop, OnlyRunsWithoutHostWorkLoopOnTheDevice) {
  KMS_REQUIRE_CUDA();
  const auto x = test::uniformPoints(20000, 1, 3);
  KMeansConfig config;
  config.k = 8;
  config.seed = 2;
  auto gpu = test::cudaEngineOn(x, 1);
  test::expectHostWorkStepsByStep(*gpu, config, 64);
  config.k = 33;  // the compact kernels: their own loop, a graph of 16 iterations
  gpu->initialize(config);
  EXPECT_EQ(gpu->stepsPerCall(), 16);
  EXPECT_EQ(test::cpuEngineOn(x, 1)->stepsPerCall(), 1);
}

TEST(SortedRunsLoop, MaxIterationsEndsTheLaunch) {
  KMS_REQUIRE_CUDA();
  const auto x = test::uniformPoints(50000, 1, 5);
  auto gpu = test::cudaEngineOn(x, 1);
  KMeansConfig config;
  config.k = 32;
  config.seed = 1;
  config.tolerance = 0;
  config.max_iterations = 10;
  gpu->initialize(config);
  std::vector<IterationStats> stats;
  EXPECT_EQ(gpu->steps(64, stats), 10);
  EXPECT_EQ(gpu->iteration(), 10);
  EXPECT_TRUE(gpu->finished());
  ASSERT_EQ(stats.size(), 10u);
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(stats[i].iteration, i + 1);
}

TEST(SortedRunsLoop, EmptyClustersEndTheLaunchAndAreReseeded) {
  KMS_REQUIRE_CUDA();
  // Two starts far beyond the data: empty at once, re-seeded by the host after the first
  // iteration; a third equal to another (never a candidate: empty every iteration until moved).
  const auto x = test::uniformPoints(120000, 1, 9, -5.0f, 9.0f);
  KMeansConfig config = test::givenCentroids({0.0f, 1e6f, 2.0f, -3e7f, 2.0f, 5.0f}, 6);
  config.tolerance = 0;
  config.max_iterations = 40;
  for (auto policy : {EmptyClusterPolicy::ReseedFarthest, EmptyClusterPolicy::KeepCentroid}) {
    config.empty_clusters = policy;
    const auto stats =
        test::expectLoopIsStepByStep(DataView{x.data(), x.size(), 1}, config, {64, 3});
    ASSERT_FALSE(stats.empty());
    EXPECT_GT(stats.front().empty_clusters, 0);
  }
}

TEST(SortedRunsLoop, AClusterEmptiedInTheLaunchsSecondIterationEndsItThere) {
  KMS_REQUIRE_CUDA();
  std::vector<float> x;
  const KMeansConfig config = test::emptiedInSecondIteration(x);
  const DataView view{x.data(), x.size(), 1};
  for (auto policy : {EmptyClusterPolicy::ReseedFarthest, EmptyClusterPolicy::KeepCentroid})
    test::expectMidLaunchEmptying(view, config, policy);
}

TEST(SortedRunsLoop, NearlyEqualCentroidsAndCountedValues) {
  KMS_REQUIRE_CUDA();
  // Mixed runs (three centroids a float step apart, rows far away) carried from one iteration
  // of the launch to the next.
  std::vector<float> x;
  std::mt19937_64 rng(4);
  std::uniform_real_distribution<float> far(-3e6f, -1e6f), near(0.999f, 1.001f), right(2, 9);
  for (int i = 0; i < 30000; ++i)
    x.push_back(i % 3 == 0 ? far(rng) : i % 3 == 1 ? near(rng) : right(rng));
  const float one = 1.0f, up = std::nextafter(one, 2.0f), up2 = std::nextafter(up, 2.0f);
  KMeansConfig config = test::givenCentroids({up, one, 7.0f, up2}, 4);
  config.tolerance = 0;
  config.max_iterations = 12;
  test::expectLoopIsStepByStep(DataView{x.data(), x.size(), 1}, config, {5});

  const test::CompactData data = test::compactOf(test::levelPoints(300000, 1, 2000, 23), 1);
  KMeansConfig counted;
  counted.k = 24;
  counted.seed = 12;
  counted.tolerance = 0;
  counted.max_iterations = 30;
  test::expectLoopIsStepByStep(data.view(), counted, {64});
}

TEST(SortedRunsLoop, ARequestedCaptureIsTakenAndTheRunGoesOn) {
  KMS_REQUIRE_CUDA();
  KMeansConfig config;
  config.k = 8;
  config.seed = 4;
  config.tolerance = 0;
  config.max_iterations = 40;
  test::expectCaptureBetweenCalls(test::uniformPoints(100000, 1, 13), 1, config, 10);
}

TEST(SortedRunsLoop, PastConvergenceWithTheBenchmarksOption) {
  KMS_REQUIRE_CUDA();
  // TestHooks::steps_past_convergence: launches go on past convergence as step() does,
  // iteration for iteration (kmeans-bench times the same iterations both ways).
  TestingOptions past;
  past.hooks.steps_past_convergence = true;
  const auto x = test::blobPoints(50000, 1, 5, 4, 3.0f, 0.2f);
  auto loop = test::cudaEngineOn(x, 1, nullptr, past);
  auto stepped = test::cudaEngineOn(x, 1);
  KMeansConfig config;
  config.k = 5;
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
  EXPECT_TRUE(std::any_of(stats.begin(), stats.begin() + 63, [](const IterationStats& s) {
    return s.converged;
  })) << "the first launch must have gone on past convergence";
  test::expectStepByStepAlike(stats, *loop, *stepped);
}

}  // namespace
}  // namespace kms
