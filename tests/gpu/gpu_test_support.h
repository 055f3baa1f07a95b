// Shared helpers of the GPU tests: skip without a device, run CPU and CUDA side by side.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <vector>

#include "kmeans/backend.h"
#include "support/reference_kmeans.h"

namespace kms::test {

/// Skips the current test, with the reason, when no CUDA device can run the backend.
#define KMS_REQUIRE_CUDA()                                                  \
  do {                                                                      \
    const ::kms::CudaStatus kms_status_ = ::kms::cudaStatus();              \
    if (!kms_status_.available)                                             \
      GTEST_SKIP() << "CUDA backend not available: " << kms_status_.reason; \
  } while (0)

inline std::unique_ptr<Engine> cudaEngineOn(const std::vector<float>& p, int d,
                                            const std::vector<float>* w = nullptr,
                                            const EngineOptions& options = {}) {
  auto e = createEngine(BackendKind::Cuda, options).engine;
  e->setData(DataView{p.data(), p.size() / d, d, w ? w->data() : nullptr});
  return e;
}

inline std::unique_ptr<Engine> cpuEngineOn(const std::vector<float>& p, int d,
                                           const std::vector<float>* w = nullptr) {
  auto e = createCpuEngine(0);
  e->setData(DataView{p.data(), p.size() / d, d, w ? w->data() : nullptr});
  return e;
}

/// Runs the CUDA engine (with `options`) and the CPU backend from the same config for
/// `iterations` steps (no convergence stop) and checks every iteration: labels and centroids bit
/// for bit, changed counts, empty clusters, the largest shift as a float, and the inertia within
/// 1e-6 (the GPU's own rounding of some distances; both ∞ where a distance overflows float).
/// Stops at the first failing iteration. Returns the GPU's stats of the iterations it ran.
inline std::vector<IterationStats> expectSameTrajectory(const DataView& view, KMeansConfig config,
                                                        int iterations,
                                                        const EngineOptions& options = {}) {
  config.tolerance = 0;
  config.max_iterations = iterations;
  auto gpu = createEngine(BackendKind::Cuda, options).engine;
  auto cpu = createCpuEngine(0);
  gpu->setData(view);
  cpu->setData(view);
  gpu->initialize(config);
  cpu->initialize(config);
  std::vector<IterationStats> stats;
  for (int it = 1; it <= iterations; ++it) {
    const IterationStats sg = gpu->step();
    const IterationStats sc = cpu->step();
    stats.push_back(sg);
    Snapshot g, s;
    gpu->snapshot(g);
    cpu->snapshot(s);
    EXPECT_EQ(g.labels, s.labels) << "iteration " << it;
    EXPECT_EQ(g.centroids, s.centroids) << "iteration " << it;
    EXPECT_EQ(sg.changed, sc.changed) << "iteration " << it;
    EXPECT_EQ(sg.empty_clusters, sc.empty_clusters) << "iteration " << it;
    EXPECT_EQ(static_cast<float>(sg.max_shift), static_cast<float>(sc.max_shift))
        << "iteration " << it;
    if (std::isfinite(sc.inertia))
      EXPECT_NEAR(sg.inertia, sc.inertia, 1e-6 * sc.inertia + 1e-30) << "iteration " << it;
    else
      EXPECT_EQ(sg.inertia, sc.inertia) << "iteration " << it;
    if (::testing::Test::HasFailure()) break;
  }
  return stats;
}

/// Runs two engines holding the same data side by side from `config` for `iterations` steps (no
/// convergence stop), asking both for a snapshot capture every `capture_every` iterations, and
/// checks every iteration: labels and centroids bit for bit, changed counts, the inertia within
/// 1e-6, and captures of the same iteration equal. Stops at the first failing iteration.
/// Returns `a`'s stats of the iterations it ran.
inline std::vector<IterationStats> expectSameEngineRun(Engine& a, Engine& b, KMeansConfig config,
                                                       int iterations, int capture_every) {
  config.tolerance = 0;
  config.max_iterations = iterations;
  a.initialize(config);
  b.initialize(config);
  std::vector<IterationStats> stats;
  for (int it = 1; it <= iterations; ++it) {
    if (it % capture_every == 0) {  // captures write every label into the other half
      a.requestSnapshot();
      b.requestSnapshot();
    }
    const IterationStats sa = a.step();
    const IterationStats sb = b.step();
    stats.push_back(sa);
    Snapshot na, nb;
    a.snapshot(na);
    b.snapshot(nb);
    EXPECT_EQ(na.labels, nb.labels) << "iteration " << it;
    EXPECT_EQ(na.centroids, nb.centroids) << "iteration " << it;
    EXPECT_EQ(sa.changed, sb.changed) << "iteration " << it;
    EXPECT_NEAR(sa.inertia, sb.inertia, 1e-6 * sb.inertia) << "iteration " << it;
    Snapshot ca, cb;
    const bool took_a = a.takeCapturedSnapshot(ca);
    const bool took_b = b.takeCapturedSnapshot(cb);
    if (took_a && took_b && ca.iteration == cb.iteration) {
      EXPECT_EQ(ca.labels, cb.labels) << "capture of iteration " << ca.iteration;
      EXPECT_EQ(ca.centroids, cb.centroids) << "capture of iteration " << ca.iteration;
    }
    if (::testing::Test::HasFailure()) break;
  }
  return stats;
}

/// Rows of d coordinates (all but the first 0.5): `band` rows in [0.4, 0.6] around the bisector
/// x₀ = 0.5 of centroids at 0 and 1, many of them on it or a few ULPs either side, then `left`
/// rows near −3 and `right` rows near 4, an uneven pull that drags the bisector across the band
/// over many iterations — each row changes side (or ties) at some iteration, when the bounds of
/// the previous iterations said it was settled.
inline std::vector<float> bisectorBand(int d, std::uint64_t seed, int band, int left, int right) {
  std::vector<float> p;
  std::mt19937 rng(static_cast<std::mt19937::result_type>(seed));
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  auto row = [&](float x) {
    p.push_back(x);
    for (int c = 1; c < d; ++c)
      p.push_back(0.5f);
  };
  for (int i = 0; i < band; ++i) {
    float x = 0.4f + 0.2f * u(rng);
    for (int step = 0; step < i % 4; ++step)
      x = std::nextafter(x, i % 3 == 0 ? 0.0f : 1.0f);
    row(x);
  }
  for (int i = 0; i < left; ++i)
    row(-3.0f + 0.01f * u(rng));
  for (int i = 0; i < right; ++i)
    row(4.0f + 0.01f * u(rng));
  return p;
}

/// k centroids of d coordinates for bisectorBand: two astride the band (x₀ = 0 and 1), the
/// others far off on the other axes, some of them exact copies of each other (equal scores meet
/// in a warp's combination).
inline std::vector<float> bisectorBandStart(int d, int k) {
  std::vector<float> start(static_cast<std::size_t>(k) * d, 0.5f);
  start[0] = 0.0f;
  if (k > 1) start[static_cast<std::size_t>(d)] = 1.0f;
  for (int j = 2; j < k; ++j)
    start[static_cast<std::size_t>(j) * d + 1 + j % (d - 1)] = 20.0f + float(j % 5);
  return start;
}

inline KMeansConfig givenCentroids(const std::vector<float>& c, int k) {
  KMeansConfig config;
  config.k = k;
  config.init = InitMethod::Given;
  config.initial_centroids = c;
  config.tolerance = 0;
  config.empty_clusters = EmptyClusterPolicy::KeepCentroid;
  return config;
}

/// Labels equal except at ties: where they differ, the two centroids are equally near within
/// the rounding of a float32 distance computed as ‖c‖² − 2x·c (the GPU's form), i.e.
/// |d_a − d_b| ≤ 1e-6·(‖x‖² + ‖c_a‖² + ‖c_b‖²) + 1e-5·max(d_a, d_b). Returns the number of ties.
inline std::size_t expectSameLabelsUpToTies(const std::vector<float>& p, int d,
                                            const std::vector<float>& centroids,
                                            const std::vector<std::int32_t>& a,
                                            const std::vector<std::int32_t>& b) {
  EXPECT_EQ(a.size(), b.size());
  const auto cents = toDouble(centroids);
  auto norm2 = [&](const double* v) {
    double s = 0.0;
    for (int c = 0; c < d; ++c)
      s += v[c] * v[c];
    return s;
  };
  std::size_t ties = 0;
  for (std::size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (a[i] == b[i]) continue;
    const double da = referenceDistance(p, d, i, cents, a[i]);
    const double db = referenceDistance(p, d, i, cents, b[i]);
    double xn = 0.0;
    for (int c = 0; c < d; ++c)
      xn += double(p[i * d + c]) * p[i * d + c];
    const double slack =
        1e-6 * (xn + norm2(&cents[std::size_t(a[i]) * d]) + norm2(&cents[std::size_t(b[i]) * d])) +
        1e-5 * std::max(da, db);
    EXPECT_NEAR(da, db, slack) << "point " << i << ": label " << a[i] << " vs " << b[i];
    ++ties;
  }
  return ties;
}

inline void expectSameStats(const IterationStats& a, const IterationStats& b, int it) {
  EXPECT_EQ(a.iteration, b.iteration) << "iteration " << it;
  EXPECT_EQ(a.inertia, b.inertia) << "iteration " << it;
  EXPECT_EQ(a.changed, b.changed) << "iteration " << it;
  EXPECT_EQ(a.max_shift, b.max_shift) << "iteration " << it;
  EXPECT_EQ(a.empty_clusters, b.empty_clusters) << "iteration " << it;
  EXPECT_EQ(a.converged, b.converged) << "iteration " << it;
  EXPECT_EQ(a.rows_searched, b.rows_searched) << "iteration " << it;
}

/// Engine::steps against step() (the device loops: test_cuda_sorted_loop.cpp,
/// test_cuda_compact_loop.cpp). Runs `config` on three engines over `view`: the CUDA engine through
/// steps() in batches of `batches` (cycled), the CUDA engine step() by step(), and the CPU. Checks
/// every iteration's stats (the two CUDA runs bit for bit, the CPU's changed counts and empty
/// clusters) and the final labels and centroids of all three. Returns the batched run's stats.
inline std::vector<IterationStats> expectLoopIsStepByStep(const DataView& view, KMeansConfig config,
                                                          const std::vector<int>& batches) {
  auto loop = createEngine(BackendKind::Cuda).engine;
  auto stepped = createEngine(BackendKind::Cuda).engine;
  auto cpu = createCpuEngine(0);
  for (Engine* e : {loop.get(), stepped.get(), static_cast<Engine*>(cpu.get())}) {
    e->setData(view);
    e->initialize(config);
  }
  std::vector<IterationStats> batched;
  for (std::size_t b = 0; !loop->finished(); ++b) {
    const int want = batches[b % batches.size()];
    const std::size_t before = batched.size();
    EXPECT_EQ(loop->stepsPerCall(), 64);
    const int ran = loop->steps(want, batched);
    EXPECT_GE(ran, 1);
    EXPECT_LE(ran, want);
    EXPECT_EQ(batched.size(), before + static_cast<std::size_t>(ran));
    EXPECT_EQ(loop->iteration(), static_cast<int>(batched.size()));
    // One launch: every iteration of the call has the same share of its time (step() by step()
    // would time each iteration apart); a re-seed after the last adds to that one only.
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

/// Points of d coordinates (all but the first zero) whose middle cluster empties in the
/// second iteration from the start `config` gives: 100 points at 0, 100 at 10, one at 2 and one
/// at 8.5, centroids from −3, 5 and 13. The first iteration gives the middle one 2 and 8.5 (mean
/// 5.25); from there 2 is nearer 0 and 8.5 nearer 10. Empty-cluster policy: KeepCentroid.
inline KMeansConfig emptiedInSecondIteration(int d, std::vector<float>& x) {
  x.assign(202 * static_cast<std::size_t>(d), 0.0f);
  for (int i = 0; i < 100; ++i)
    x[static_cast<std::size_t>(100 + i) * d] = 10.0f;
  x[static_cast<std::size_t>(200) * d] = 2.0f;
  x[static_cast<std::size_t>(201) * d] = 8.5f;
  std::vector<float> start(3 * static_cast<std::size_t>(d), 0.0f);
  start[0] = -3.0f;
  start[d] = 5.0f;
  start[2 * static_cast<std::size_t>(d)] = 13.0f;
  KMeansConfig config = givenCentroids(start, 3);
  config.max_iterations = 30;
  return config;
}

/// With `config` (emptiedInSecondIteration's) and `policy`: the batched run's first call of
/// steps(64) ends after the emptying iteration under ReseedFarthest (the host re-seeds there),
/// goes on under KeepCentroid, and the whole run is step() by step()'s and the CPU's.
inline void expectMidLaunchEmptying(const DataView& view, KMeansConfig config,
                                    EmptyClusterPolicy policy) {
  config.empty_clusters = policy;
  auto engine = createEngine(BackendKind::Cuda).engine;
  engine->setData(view);
  engine->initialize(config);
  std::vector<IterationStats> first;
  const int ran = engine->steps(64, first);
  ASSERT_GE(ran, 2);
  EXPECT_EQ(first[0].empty_clusters, 0);
  EXPECT_EQ(first[1].empty_clusters, 1);
  if (policy == EmptyClusterPolicy::ReseedFarthest)
    EXPECT_EQ(ran, 2) << "the launch must end where the cluster emptied";
  else
    EXPECT_GT(ran, 2);
  const auto stats = expectLoopIsStepByStep(view, config, {64});
  ASSERT_GE(stats.size(), 2u);
  EXPECT_EQ(stats[1].empty_clusters, 1);
}

}  // namespace kms::test
