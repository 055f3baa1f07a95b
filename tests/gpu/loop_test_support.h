// Helpers of the tests of Engine::steps with the loop on the device (the sorted runs' one kernel,
// the compact kernels' iterations in one graph): every iteration of a launch against step() by
// step() and the CPU.
#pragma once

#include <gtest/gtest.h>

#include <vector>

#include "kmeans/backend.h"

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

/// How an engine's steps() launches: up to `per_call` iterations, and whether a call of fewer is
/// one launch too — the sorted runs' loop — or runs step() by step() — the compact loop, whose
/// graph always holds per_call iterations (the run's first among them or not).
struct LoopShape {
  int per_call = 64;
  bool short_calls_launch = true;
};

/// Runs `config` on three engines over `view`: the CUDA engine (with `options`) through steps()
/// in batches of `batches` (cycled), the CUDA engine step() by step(), and the CPU. Checks the
/// batched engine's launches (`shape`), every iteration's stats (the two CUDA runs bit for bit,
/// the CPU's changed counts and empty clusters) and the final labels and centroids of all three.
/// Returns the batched run's stats.
inline std::vector<IterationStats> expectLoopIsStepByStep(const DataView& view, KMeansConfig config,
                                                          const std::vector<int>& batches,
                                                          LoopShape shape = {},
                                                          const EngineOptions& options = {}) {
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

}  // namespace kms::test
