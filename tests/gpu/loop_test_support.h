// Helpers of the tests of Engine::steps with the loop on the device (the sorted runs' one kernel,
// the compact kernels' iterations in one graph): every iteration of a launch against step() by
// step() and the CPU.
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "gpu_test_support.h"
#include "kmeans/backend.h"
#include "kmeans/testing.h"

namespace kms::test {

/// Two runs' stats of iteration `it`, bit for bit.
inline void expectSameStats(const IterationStats& a, const IterationStats& b, int it) {
  EXPECT_EQ(a.iteration, b.iteration) << "iteration " << it;
  EXPECT_EQ(a.inertia, b.inertia) << "iteration " << it;
  EXPECT_EQ(a.changed, b.changed) << "iteration " << it;
  EXPECT_EQ(a.max_shift, b.max_shift) << "iteration " << it;
  EXPECT_EQ(a.empty_clusters, b.empty_clusters) << "iteration " << it;
  EXPECT_EQ(a.converged, b.converged) << "iteration " << it;
  EXPECT_EQ(a.rows_searched, b.rows_searched) << "iteration " << it;
  EXPECT_EQ(a.distances_computed, b.distances_computed) << "iteration " << it;
}

/// `stats` (`loop`'s run through steps()) against `stepped`, started alike and run step() by
/// step() as far: every iteration's stats bit for bit, then both engines' labels and centroids.
inline void expectStepByStepAlike(const std::vector<IterationStats>& stats, Engine& loop,
                                  Engine& stepped) {
  for (std::size_t i = 0; i < stats.size(); ++i)
    expectSameStats(stats[i], stepped.step(), static_cast<int>(i) + 1);
  Snapshot a, b;
  loop.snapshot(a);
  stepped.snapshot(b);
  EXPECT_EQ(a.labels, b.labels);
  EXPECT_EQ(a.centroids, b.centroids);
}

/// How an engine's steps() launches: up to `per_call` iterations, and whether a call of fewer is
/// one launch too — the sorted runs' loop — or runs step() by step() — the compact loop, whose
/// graph always holds per_call iterations (the run's first among them or not).
struct LoopShape {
  int per_call = 64;
  bool short_calls_launch = true;
};

/// `engine` (with data) from `config`: steps() launches `per_call` iterations, and goes step() by
/// step() (stepsPerCall() 1) once a capture is requested and with keep_history — both need the
/// host after every iteration. Leaves `engine` initialised with keep_history.
inline void expectHostWorkStepsByStep(Engine& engine, KMeansConfig config, int per_call) {
  engine.initialize(config);
  EXPECT_EQ(engine.stepsPerCall(), per_call);
  engine.requestSnapshot();  // the capture needs the host after its iteration
  EXPECT_EQ(engine.stepsPerCall(), 1);
  config.keep_history = true;  // so does the history's record of each iteration's centroids
  engine.initialize(config);
  EXPECT_EQ(engine.stepsPerCall(), 1);
}

/// Runs `config` on three engines over `view`: the CUDA engine (with `options`) through steps()
/// in batches of `batches` (cycled), the CUDA engine step() by step(), and the CPU. Checks the
/// batched engine's launches (`shape`), every iteration's stats (the two CUDA runs bit for bit,
/// the CPU's changed counts and empty clusters) and the final labels and centroids of all three.
/// Returns the batched run's stats.
inline std::vector<IterationStats> expectLoopIsStepByStep(const DataView& view, KMeansConfig config,
                                                          const std::vector<int>& batches,
                                                          LoopShape shape = {},
                                                          const TestingOptions& options = {}) {
  auto loop = createEngine(BackendKind::Cuda, options).engine;
  auto stepped = createEngine(BackendKind::Cuda, options).engine;
  auto cpu = createCpuEngine(0);
  for (Engine* e : {loop.get(), stepped.get(), static_cast<Engine*>(cpu.get())}) {
    e->setData(view);
    e->initialize(config);
  }
  std::vector<IterationStats> batched;
  for (std::size_t b = 0; !loop->finished(); ++b) {
    const int want = batches[b % batches.size()];
    const std::size_t before = batched.size();
    EXPECT_EQ(loop->stepsPerCall(), shape.per_call);
    const int left = config.max_iterations - static_cast<int>(before);
    const bool launch =
        shape.short_calls_launch || (want >= shape.per_call && left >= shape.per_call);
    const int ran = loop->steps(want, batched);
    EXPECT_GE(ran, 1);
    EXPECT_LE(ran, want);
    EXPECT_EQ(batched.size(), before + static_cast<std::size_t>(ran));
    EXPECT_EQ(loop->iteration(), static_cast<int>(batched.size()));
    // One launch: every iteration of the call has the same share of its time (step() by step()
    // would time each iteration apart); a re-seed after the last adds to that one only.
    if (launch)
      for (std::size_t i = before + 1; i + 1 < batched.size(); ++i)
        EXPECT_EQ(batched[i].ms.assign_ms, batched[before].ms.assign_ms)
            << "not one launch: iteration " << batched[i].iteration;
    if (ran == 0 || ::testing::Test::HasFailure()) break;
  }
  EXPECT_EQ(loop->steps(5, batched), 0) << "a finished run takes no more steps";
  for (std::size_t i = 0; i < batched.size() && !::testing::Test::HasFailure(); ++i) {
    const int it = static_cast<int>(i) + 1;
    const IterationStats s = stepped->step();
    const IterationStats c = cpu->step();
    expectSameStats(batched[i], s, it);
    EXPECT_EQ(batched[i].changed, c.changed) << "iteration " << it;
    EXPECT_EQ(batched[i].empty_clusters, c.empty_clusters) << "iteration " << it;
  }
  EXPECT_TRUE(stepped->finished());
  EXPECT_EQ(loop->converged(), stepped->converged());
  Snapshot a, b, c;
  loop->snapshot(a);
  stepped->snapshot(b);
  cpu->snapshot(c);
  EXPECT_EQ(a.iteration, b.iteration);
  EXPECT_EQ(a.labels, b.labels);
  EXPECT_EQ(a.centroids, b.centroids);
  EXPECT_EQ(a.labels, c.labels);
  EXPECT_EQ(a.centroids, c.centroids);
  return batched;
}

/// Values whose middle cluster empties in the
/// second iteration from the start `config` gives: 100 points at 0, 100 at 10, one at 2 and one
/// at 8.5, centroids from −3, 5 and 13. The first iteration gives the middle one 2 and 8.5 (mean
/// 5.25); from there 2 is nearer 0 and 8.5 nearer 10. Empty-cluster policy: KeepCentroid.
inline KMeansConfig emptiedInSecondIteration(std::vector<float>& x) {
  x.assign(100, 0.0f);
  x.insert(x.end(), 100, 10.0f);
  x.push_back(2.0f);
  x.push_back(8.5f);
  KMeansConfig config = givenCentroids({-3.0f, 5.0f, 13.0f}, 3);
  config.max_iterations = 30;
  return config;
}

/// With `config` (emptiedInSecondIteration's) and `policy`: the batched run's first call of
/// steps(shape.per_call) ends after the emptying iteration under ReseedFarthest (the host
/// re-seeds there), goes on under KeepCentroid, and the whole run is step() by step()'s and the
/// CPU's.
inline void expectMidLaunchEmptying(const DataView& view, KMeansConfig config,
                                    EmptyClusterPolicy policy, LoopShape shape = {},
                                    const TestingOptions& options = {}) {
  config.empty_clusters = policy;
  auto engine = createEngine(BackendKind::Cuda, options).engine;
  engine->setData(view);
  engine->initialize(config);
  ASSERT_EQ(engine->stepsPerCall(), shape.per_call);
  std::vector<IterationStats> first;
  const int ran = engine->steps(shape.per_call, first);
  ASSERT_GE(ran, 2);
  EXPECT_EQ(first[0].empty_clusters, 0);
  EXPECT_EQ(first[1].empty_clusters, 1);
  if (policy == EmptyClusterPolicy::ReseedFarthest)
    EXPECT_EQ(ran, 2) << "the launch must end where the cluster emptied";
  else
    EXPECT_GT(ran, 2);
  const auto stats = expectLoopIsStepByStep(view, config, {shape.per_call}, shape, options);
  ASSERT_GE(stats.size(), 2u);
  EXPECT_EQ(stats[1].empty_clusters, 1);
}

/// A capture requested between two calls of steps(`call`) over `x` (d coordinates), from
/// `config` (tolerance 0): the call after the request goes step() by step() and captures its
/// first iteration, which must be step() by step()'s, and the run then launches again
/// (stepsPerCall() as before) to step() by step()'s end.
inline void expectCaptureBetweenCalls(const std::vector<float>& x, int d,
                                      const KMeansConfig& config, int call) {
  auto loop = cudaEngineOn(x, d);
  auto stepped = cudaEngineOn(x, d);
  loop->initialize(config);
  stepped->initialize(config);
  std::vector<IterationStats> stats;
  ASSERT_EQ(loop->steps(call, stats), call);
  const int per_call = loop->stepsPerCall();
  loop->requestSnapshot();
  EXPECT_EQ(loop->stepsPerCall(), 1) << "a capture needs the host after its iteration";
  ASSERT_EQ(loop->steps(call, stats), call);  // the capture is of iteration call + 1
  Snapshot expected, captured;
  for (int i = 0; i <= call; ++i)
    stepped->step();
  stepped->snapshot(expected);
  ASSERT_TRUE(awaitCapture(*loop, captured));
  EXPECT_EQ(captured.iteration, call + 1);
  EXPECT_EQ(captured.labels, expected.labels);
  EXPECT_EQ(captured.centroids, expected.centroids);
  EXPECT_EQ(loop->stepsPerCall(), per_call) << "launches again once the capture is taken";
  while (!loop->finished())
    ASSERT_GT(loop->steps(per_call, stats), 0);
  while (!stepped->finished())
    stepped->step();
  Snapshot a, b;
  loop->snapshot(a);
  stepped->snapshot(b);
  EXPECT_EQ(a.iteration, config.max_iterations);
  EXPECT_EQ(a.labels, b.labels);
  EXPECT_EQ(a.centroids, b.centroids);
}

}  // namespace kms::test
