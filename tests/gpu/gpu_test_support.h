// Shared helpers of the GPU tests: skip without a device, run CPU and CUDA side by side.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdint>
#include <memory>
#include <random>
#include <thread>
#include <vector>

#include "kmeans/backend.h"
#include "kmeans/testing.h"
#include "support/reference_kmeans.h"

namespace kms::test {

/// Skips the current test, with the reason, when no CUDA device can run the backend.
#define KMS_REQUIRE_CUDA()                                                  \
  do {                                                                      \
    const ::kms::CudaStatus kms_status_ = ::kms::cudaStatus();              \
    if (!kms_status_.available)                                             \
      GTEST_SKIP() << "CUDA backend not available: " << kms_status_.reason; \
  } while (0)

/// `groups` Gaussian blobs (centres uniform in [-10, 10]^d, noise `sigma`) in d dimensions.
inline std::vector<float> gaussianBlobs(std::size_t n, int d, int groups, std::uint64_t seed,
                                        float sigma = 0.8f) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> centre(-10.0f, 10.0f);
  std::normal_distribution<float> noise(0.0f, sigma);
  std::vector<float> centres(static_cast<std::size_t>(groups) * d);
  for (auto& c : centres)
    c = centre(rng);
  std::vector<float> p(n * d);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t g = rng() % groups;
    for (int c = 0; c < d; ++c)
      p[i * d + c] = centres[g * d + c] + noise(rng);
  }
  return p;
}

inline std::unique_ptr<Engine> cudaEngineOn(const std::vector<float>& p, int d,
                                            const std::vector<float>* w = nullptr,
                                            const TestingOptions& options = {}) {
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
                                                        const TestingOptions& options = {}) {
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

/// Takes `engine`'s requested capture once its background copy is done (up to two seconds).
inline bool awaitCapture(Engine& engine, Snapshot& captured) {
  for (int tries = 0; tries < 2000; ++tries) {
    if (engine.takeCapturedSnapshot(captured)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return false;
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

}  // namespace kms::test
