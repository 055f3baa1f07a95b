// Engine::steps on the compact kernels (rows of d ≤ 16, point tiles, counted values): 16
// iterations captured back to back into one graph, each later one doing nothing once an earlier
// one converged or left a cluster empty (LoopStep, kernels/compact_args.cuh). Each iteration must
// be the one step() gives — the same stats bit for bit, the same centroids and labels after —,
// the launch must end where step() by step() stops (convergence, an emptied cluster under
// ReseedFarthest, which the host then re-seeds), calls of fewer iterations than a launch holds
// go step() by step(), and the results match the CPU backend.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu_test_support.h"
#include "kmeans/testing.h"
#include "loop_test_support.h"
#include "support/compact_data.h"

namespace kms {
namespace {

constexpr test::LoopShape kCompactLoop{16, false};

KMeansConfig fixedRun(int k, std::uint64_t seed, int iterations) {
  KMeansConfig config;
  config.k = k;
  config.seed = seed;
  config.tolerance = 0;
  config.max_iterations = iterations;
  return config;
}

TEST(CompactLoop, TheBenchmarksShapeInLaunchesAndShorterCalls) {
  KMS_REQUIRE_CUDA();
  // kmeans-bench's 17,695 × 9, k = 128 (the spread update): launches of 16, and calls of 5
  // (step() by step()) between them.
  const int d = 9;
  const auto x = test::blobPoints(17695, d, 40, 21, 2.0f, 0.6f);
  const auto stats = test::expectLoopIsStepByStep(DataView{x.data(), x.size() / d, d},
                                                  fixedRun(128, 5, 60), {16, 5, 16}, kCompactLoop);
  EXPECT_GE(stats.size(), 37u) << "two launches and two calls of five at least";
}

TEST(CompactLoop, EveryFormOfTheUpdate) {
  KMS_REQUIRE_CUDA();
  struct Shape {
    int d, k;
  };
  // k ≤ 32: one warp's update; 33–63: one block's; 64–256: spread over ⌈k/8⌉ blocks, with the
  // reporting block apart; k > 256 (d ≤ 4): one block again, with 16-bit labels.
  for (const Shape s : {Shape{5, 16}, Shape{7, 48}, Shape{12, 200}, Shape{3, 300}}) {
    SCOPED_TRACE("d = " + std::to_string(s.d) + ", k = " + std::to_string(s.k));
    const auto x = test::uniformPoints(30000, s.d, 7 + s.d, -4.0f, 6.0f);
    test::expectLoopIsStepByStep(DataView{x.data(), x.size() / s.d, s.d}, fixedRun(s.k, 3, 40),
                                 {16}, kCompactLoop);
    if (HasFailure()) break;
  }
}

TEST(CompactLoop, PointTilesAndCountedValues) {
  KMS_REQUIRE_CUDA();
  // The tile kernel (its schedule and inertia state carried from one iteration of the launch to
  // the next), on posterised points; then distinct values with counts on the row kernel.
  TestingOptions tiles;
  tiles.cuda.point_tiles = PointTiles::Always;
  const auto x = test::levelPoints(200000, 3, 12, 31);
  test::expectLoopIsStepByStep(DataView{x.data(), x.size() / 3, 3}, fixedRun(64, 9, 48), {16},
                               kCompactLoop, tiles);
  if (HasFailure()) return;
  const test::CompactData data = test::compactOf(test::levelPoints(300000, 3, 40, 23), 3);
  test::expectLoopIsStepByStep(data.view(), fixedRun(24, 12, 32), {16}, kCompactLoop);
}

TEST(CompactLoop, StopsAtConvergenceLikeStepByStep) {
  KMS_REQUIRE_CUDA();
  const int d = 6;
  const auto x = test::blobPoints(40000, d, 10, 5, 4.0f, 0.5f);
  KMeansConfig config;
  config.k = 10;
  config.seed = 8;
  config.init = InitMethod::KMeansPlusPlus;
  config.max_iterations = 500;  // converges long before, inside a launch
  const auto stats =
      test::expectLoopIsStepByStep(DataView{x.data(), x.size() / d, d}, config, {16}, kCompactLoop);
  ASSERT_FALSE(stats.empty());
  EXPECT_TRUE(stats.back().converged);
  EXPECT_LT(stats.size(), 500u);
}

TEST(CompactLoop, AClusterEmptiedInTheLaunchsSecondIterationEndsItThere) {
  KMS_REQUIRE_CUDA();
  // One dimension on the compact kernels (no sorted runs), emptiedInSecondIteration's data.
  TestingOptions rows;
  rows.cuda.sorted_runs = false;
  std::vector<float> x;
  const KMeansConfig config = test::emptiedInSecondIteration(x);
  const DataView view{x.data(), x.size(), 1};
  for (auto policy : {EmptyClusterPolicy::ReseedFarthest, EmptyClusterPolicy::KeepCentroid}) {
    SCOPED_TRACE(policy == EmptyClusterPolicy::ReseedFarthest ? "re-seed" : "keep");
    test::expectMidLaunchEmptying(view, config, policy, kCompactLoop, rows);
  }
}

TEST(CompactLoop, ALaunchAfterOneThatStoppedRunsInFull) {
  KMS_REQUIRE_CUDA();
  // The emptying data above under ReseedFarthest, with the benchmarks' option (no stop at
  // convergence): the first launch ends after its second iteration, the host re-seeds, and the
  // next launch must run all 16 — its first assignment clears the mark the emptying left.
  TestingOptions past;
  past.cuda.sorted_runs = false;
  past.hooks.steps_past_convergence = true;
  TestingOptions rows;
  rows.cuda.sorted_runs = false;
  std::vector<float> x;
  KMeansConfig config = test::emptiedInSecondIteration(x);
  const DataView view{x.data(), x.size(), 1};
  config.max_iterations = 40;
  config.empty_clusters = EmptyClusterPolicy::ReseedFarthest;
  auto loop = createEngine(BackendKind::Cuda, past).engine;
  auto stepped = createEngine(BackendKind::Cuda, rows).engine;
  for (Engine* e : {loop.get(), stepped.get()}) {
    e->setData(view);
    e->initialize(config);
  }
  std::vector<IterationStats> stats;
  ASSERT_EQ(loop->steps(16, stats), 2);
  ASSERT_EQ(stats[1].empty_clusters, 1);
  EXPECT_EQ(loop->steps(16, stats), 16);
  EXPECT_EQ(loop->steps(16, stats), 16);
  ASSERT_EQ(stats.size(), 34u);
  test::expectStepByStepAlike(stats, *loop, *stepped);
}

TEST(CompactLoop, StartsFarBeyondTheDataEmptyEveryIteration) {
  KMS_REQUIRE_CUDA();
  // Two starts far beyond the data (empty at once) and two equal ones: under ReseedFarthest each
  // launch ends at its first iteration with an empty cluster and the host re-seeds; under
  // KeepCentroid the launches run on with clusters empty in every iteration.
  const int d = 5;
  const auto x = test::uniformPoints(30000, d, 9, -5.0f, 9.0f);
  std::vector<float> starts = test::uniformPoints(6, d, 4, -5.0f, 9.0f);
  for (int c = 0; c < d; ++c) {
    starts[1 * d + c] = 1e6f;
    starts[3 * d + c] = -3e7f;
    starts[5 * d + c] = starts[2 * d + c];
  }
  KMeansConfig config = test::givenCentroids(starts, 6);
  config.tolerance = 0;
  config.max_iterations = 40;
  for (auto policy : {EmptyClusterPolicy::ReseedFarthest, EmptyClusterPolicy::KeepCentroid}) {
    config.empty_clusters = policy;
    const auto stats = test::expectLoopIsStepByStep(DataView{x.data(), x.size() / d, d}, config,
                                                    {16, 16, 3}, kCompactLoop);
    ASSERT_FALSE(stats.empty());
    EXPECT_GT(stats.front().empty_clusters, 0);
  }
}

TEST(CompactLoop, OnlyRunsWithoutHostWorkLoop) {
  KMS_REQUIRE_CUDA();
  const int d = 4;
  const auto x = test::uniformPoints(20000, d, 3);
  KMeansConfig config = fixedRun(20, 2, 50);
  auto gpu = test::cudaEngineOn(x, d);
  test::expectHostWorkStepsByStep(*gpu, config, 16);
  // Streamed data copied in chunks (their copies are the host's to order): step() by step().
  TestingOptions streamed;
  streamed.max_device_bytes = 64 * 1024;
  streamed.cuda.stream_chunk_bytes = 32 * 1024;
  auto chunked = test::cudaEngineOn(x, d, nullptr, streamed);
  chunked->initialize(config);
  EXPECT_EQ(chunked->stepsPerCall(), 1);
  EXPECT_NE(chunked->info().device.find("chunks"), std::string::npos) << chunked->info().device;
}

TEST(CompactLoop, MaxIterationsEndsTheRun) {
  KMS_REQUIRE_CUDA();
  const int d = 3;
  const auto x = test::uniformPoints(50000, d, 5);
  auto gpu = test::cudaEngineOn(x, d);
  gpu->initialize(fixedRun(32, 1, 20));
  std::vector<IterationStats> stats;
  EXPECT_EQ(gpu->steps(16, stats), 16);  // one launch: each iteration's share of its time
  for (int i = 1; i < 16 && i < static_cast<int>(stats.size()); ++i)
    EXPECT_EQ(stats[i].ms.assign_ms, stats[0].ms.assign_ms) << "not one launch";
  EXPECT_EQ(gpu->steps(16, stats), 4);  // fewer left than a launch holds: step() by step()
  EXPECT_EQ(gpu->iteration(), 20);
  EXPECT_TRUE(gpu->finished());
  EXPECT_EQ(gpu->steps(16, stats), 0);
  ASSERT_EQ(stats.size(), 20u);
  for (int i = 0; i < 20; ++i)
    EXPECT_EQ(stats[i].iteration, i + 1);
}

TEST(CompactLoop, ACaptureBetweenLaunchesIsTakenAndTheRunGoesOn) {
  KMS_REQUIRE_CUDA();
  // Launches of 16; the call after the request goes step() by step(), then into the half the
  // capture left.
  test::expectCaptureBetweenCalls(test::uniformPoints(60000, 8, 13), 8, fixedRun(40, 4, 64), 16);
}

TEST(CompactLoop, PastConvergenceWithTheBenchmarksOption) {
  KMS_REQUIRE_CUDA();
  // TestHooks::steps_past_convergence: launches go on past convergence as step() does.
  TestingOptions past;
  past.hooks.steps_past_convergence = true;
  const int d = 2;
  const auto x = test::blobPoints(50000, d, 5, 4, 3.0f, 0.2f);
  auto loop = test::cudaEngineOn(x, d, nullptr, past);
  auto stepped = test::cudaEngineOn(x, d);
  KMeansConfig config;
  config.k = 5;
  config.seed = 6;
  config.init = InitMethod::KMeansPlusPlus;
  config.max_iterations = 40;
  loop->initialize(config);
  stepped->initialize(config);
  std::vector<IterationStats> stats;
  EXPECT_EQ(loop->steps(16, stats), 16);
  EXPECT_EQ(loop->steps(16, stats), 16);
  EXPECT_EQ(loop->steps(16, stats), 8);
  EXPECT_EQ(loop->steps(16, stats), 0);
  ASSERT_EQ(stats.size(), 40u);
  EXPECT_TRUE(stats[15].converged) << "the data converge within the first launch";
  test::expectStepByStepAlike(stats, *loop, *stepped);
}

}  // namespace
}  // namespace kms
