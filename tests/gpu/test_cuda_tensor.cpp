// The tensor-core assignment (d from 17 to 64): TF32 candidate ranking, exact re-ranking of every
// centroid its error bound cannot rule out. Labels must be the CPU backend's exactly — not up to
// ties — on data built to defeat TF32: points on and a few ULPs off the bisector of two
// centroids, on the equidistant line of three, at magnitudes from 1e-18 to 1e16.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <tuple>

#include "gpu_test_support.h"
#include "kmeans/testing.h"

namespace kms {
namespace {

using test::cpuEngineOn;
using test::givenCentroids;

/// The CUDA engine on p, with or without tensor cores, ranking every row every iteration (no
/// distance bounds: with them, most rows would never reach the kernels under test).
std::unique_ptr<Engine> cudaEngineWith(const std::vector<float>& p, int d, bool tensor_cores) {
  TestingOptions options;
  options.cuda.tensor_cores = tensor_cores;
  options.cuda.distance_bounds = false;
  return test::cudaEngineOn(p, d, nullptr, options);
}

struct AdversarialSet {
  std::vector<float> points;
  std::vector<float> centroids;
};

/// k centroids spread over [−60, 60]^d, the first three at m + 5·e₀, m + 5·e₁, m + 5·e₂ (equal
/// m₀ = m₁ = m₂, so they are equidistant from any point with equal first three offsets); points
/// near a centroid (30 %), on or 10^−7…10^−3 off the bisector of two centroids (40 %), and on or
/// just off the equidistant line of the first three (30 %). Everything is scaled by `scale`.
AdversarialSet adversarialSet(std::size_t n, int d, int k, std::uint64_t seed, float scale) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> wide(-60.0f, 60.0f), unit(-1.0f, 1.0f);
  std::uniform_int_distribution<int> pick(3, k - 1);
  AdversarialSet s;
  s.centroids.resize(static_cast<std::size_t>(k) * d);
  for (float& v : s.centroids)
    v = wide(rng);
  const float m = wide(rng);
  for (int j = 0; j < 3; ++j)
    for (int c = 0; c < d; ++c)
      s.centroids[j * d + c] = (c < 3 ? m : s.centroids[c]) + (c == j ? 5.0f : 0.0f);
  const float offsets[] = {0.0f, 1e-7f, -1e-7f, 1e-6f, -3e-6f, 1e-5f, -1e-4f, 1e-3f};
  s.points.resize(n * d);
  for (std::size_t i = 0; i < n; ++i) {
    float* x = &s.points[i * d];
    const int mode = static_cast<int>(i % 10);
    const float offset = offsets[(i / 10) % 8];
    if (mode < 3) {  // near one centroid
      const float* c = &s.centroids[static_cast<std::size_t>(pick(rng)) * d];
      for (int t = 0; t < d; ++t)
        x[t] = c[t] + unit(rng);
    } else if (mode < 7) {  // the bisector of two centroids, moved by offset·(b − a)
      const int ia = pick(rng);
      int ib = pick(rng);
      if (ib == ia) ib = ia == 3 ? 4 : 3;
      const float* a = &s.centroids[static_cast<std::size_t>(ia) * d];
      const float* b = &s.centroids[static_cast<std::size_t>(ib) * d];
      std::vector<double> w(d), u(d);
      double uu = 0.0, wu = 0.0;
      for (int t = 0; t < d; ++t) {
        u[t] = double(b[t]) - a[t];
        w[t] = 0.5 * unit(rng);
        uu += u[t] * u[t];
        wu += w[t] * u[t];
      }
      for (int t = 0; t < d; ++t)
        x[t] =
            static_cast<float>(0.5 * (double(a[t]) + b[t]) + w[t] - wu / uu * u[t] + offset * u[t]);
    } else {  // equidistant from the first three: equal offsets along e₀, e₁, e₂
      const float along = 2.0f * unit(rng);
      for (int t = 0; t < d; ++t)
        x[t] = t < 3 ? m + along : s.centroids[t] + 0.5f * unit(rng);
      x[i % 3] += offset * 5.0f;
    }
  }
  for (float& v : s.points)
    v *= scale;
  for (float& v : s.centroids)
    v *= scale;
  return s;
}

/// x rounded to TF32 as cvt.rna does (10 mantissa bits, ties away from zero).
float tf32(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, 4);
  u = (u + 0x1000u) & 0xffffe000u;
  std::memcpy(&x, &u, 4);
  return x;
}

/// How many points a TF32 ranking alone (inputs rounded to TF32, everything else exact, data
/// centred on the bounding-box midpoint like the engine's) puts nearer another centroid than
/// `labels` says — the rows that only the exact re-ranking gets right.
std::size_t tf32Misranked(const AdversarialSet& s, int d, int k,
                          const std::vector<std::int32_t>& labels) {
  const std::size_t n = s.points.size() / d;
  std::vector<double> mid(d);
  for (int c = 0; c < d; ++c) {
    float lo = s.points[c], hi = s.points[c];
    for (std::size_t i = 0; i < n; ++i) {
      lo = std::min(lo, s.points[i * d + c]);
      hi = std::max(hi, s.points[i * d + c]);
    }
    mid[c] = 0.5 * (double(lo) + hi);
  }
  std::size_t wrong = 0;
  for (std::size_t i = 0; i < n; ++i) {
    double best = INFINITY;
    int best_j = 0;
    for (int j = 0; j < k; ++j) {
      double v = 0.0;
      for (int c = 0; c < d; ++c) {
        const double x = tf32(static_cast<float>(s.points[i * d + c] - mid[c]));
        const double y = tf32(static_cast<float>(s.centroids[j * d + c] - mid[c]));
        v += y * y - 2.0 * x * y;
      }
      if (v < best) {
        best = v;
        best_j = j;
      }
    }
    wrong += best_j != labels[i];
  }
  return wrong;
}

struct TensorCase {
  int d;
  int k;
  float scale;
};

class TensorCoresVersusCpu : public ::testing::TestWithParam<TensorCase> {};

// Three iterations from the adversarial centroids: labels identical to the CPU's every time (no
// tie allowance), centroids bit-identical, inertia equal to 1e-6 — and the data really defeat
// TF32: at the first iteration a TF32 ranking alone would mislabel some points.
TEST_P(TensorCoresVersusCpu, ExactLabelsWhereTf32AloneWouldMisrank) {
  KMS_REQUIRE_CUDA();
  const TensorCase c = GetParam();
  const std::size_t n = 6000;
  const AdversarialSet s = adversarialSet(n, c.d, c.k, 900 + c.d + c.k, c.scale);
  auto gpu = cudaEngineWith(s.points, c.d, /*tensor_cores=*/true);
  auto cpu = cpuEngineOn(s.points, c.d);
  gpu->initialize(givenCentroids(s.centroids, c.k));
  cpu->initialize(givenCentroids(s.centroids, c.k));
  for (int iteration = 1; iteration <= 3; ++iteration) {
    const IterationStats sg = gpu->step();
    const IterationStats sc = cpu->step();
    Snapshot g, r;
    gpu->snapshot(g);
    cpu->snapshot(r);
    ASSERT_EQ(g.labels, r.labels) << "iteration " << iteration;
    ASSERT_EQ(g.centroids, r.centroids) << "iteration " << iteration;
    EXPECT_NEAR(sg.inertia, sc.inertia, 1e-6 * sc.inertia) << "iteration " << iteration;
    EXPECT_EQ(sg.changed, sc.changed);
    // The tensor kernel ran, and had to re-rank points exactly (the near ties).
    EXPECT_GT(sg.rows_searched, 0) << "iteration " << iteration;
    EXPECT_LE(sg.rows_searched, static_cast<std::int64_t>(n));
    if (iteration == 1 && c.scale == 1.0f)
      EXPECT_GT(tf32Misranked(s, c.d, c.k, r.labels), 0u)
          << "the data should contain points that TF32 alone ranks wrongly";
  }
}

INSTANTIATE_TEST_SUITE_P(NearTies, TensorCoresVersusCpu,
                         ::testing::Values(TensorCase{64, 48, 1.0f}, TensorCase{40, 48, 1.0f},
                                           TensorCase{24, 48, 1.0f},
                                           TensorCase{64, 300, 1.0f},  // 16-bit labels
                                           TensorCase{24, 700, 1.0f},  // centroids staged in chunks
                                           TensorCase{64, 48, 1e-18f}, TensorCase{64, 48, 1e16f}),
                         [](const ::testing::TestParamInfo<TensorCase>& info) {
                           const float s = info.param.scale;
                           return "d" + std::to_string(info.param.d) + "_k" +
                                  std::to_string(info.param.k) +
                                  (s == 1.0f  ? ""
                                   : s < 1.0f ? "_tiny"
                                              : "_huge");
                         });

// Points whose distances to every centroid overflow float while ‖x‖² and ‖c‖² do not: the CPU
// labels them 0 (its first centroid, nothing below ∞), and so must every GPU kernel — the bound
// alone would call the nearer-looking centroid certain. d = 64 on the tensor kernel and on the
// tiled FP32 one, d = 8 on the point-per-thread kernel (enough points for it).
TEST(TensorCores, OverflowingDistancesFollowTheCpu) {
  KMS_REQUIRE_CUDA();
  for (const auto& [d, n, tensor] :
       {std::tuple{64, 4000, true}, std::tuple{64, 4000, false}, std::tuple{8, 400000, true}}) {
    const float far = d == 64 ? 1.2e18f : 4.0e18f;  // 2·far·√d: ‖x − c‖² just above FLT_MAX
    std::vector<float> p(static_cast<std::size_t>(n) * d);
    for (int i = 0; i < n; ++i)
      for (int c = 0; c < d; ++c)
        p[static_cast<std::size_t>(i) * d + c] = (i % 3 == 0) ? far : (i % 3 == 1) ? -far : 0.0f;
    std::vector<float> init(2 * static_cast<std::size_t>(d), -far);
    init[d] = -far + far / 2;  // c₁ = c₀ + (far/2)·e₀: nearer to the far points, still at ∞
    auto gpu = cudaEngineWith(p, d, tensor);
    auto cpu = cpuEngineOn(p, d);
    gpu->initialize(givenCentroids(init, 2));
    cpu->initialize(givenCentroids(init, 2));
    gpu->step();
    cpu->step();
    Snapshot g, r;
    gpu->snapshot(g);
    cpu->snapshot(r);
    ASSERT_EQ(r.labels[0], 0) << "the CPU's answer for a point at ∞ from both";
    ASSERT_EQ(g.labels, r.labels) << "d = " << d << (tensor ? "" : ", no tensor cores");
    ASSERT_EQ(g.centroids, r.centroids) << "d = " << d;
  }
}

// A whole k-means++ run on blobs (d = 64, k = 256: the benchmark's shape, smaller): the tensor
// kernel and the FP32 SIMT kernel give identical labels and centroids at every iteration.
TEST(TensorCores, SameTrajectoryAsTheSimtKernel) {
  KMS_REQUIRE_CUDA();
  const int d = 64, k = 256;
  const auto p = test::blobPoints(60000, d, 300, 77, 6.0f, 1.0f);
  auto tensor = cudaEngineWith(p, d, true);
  auto simt = cudaEngineWith(p, d, false);
  KMeansConfig config;
  config.k = k;
  config.seed = 5;
  config.max_iterations = 25;
  config.tolerance = 0;
  tensor->initialize(config);
  simt->initialize(config);
  while (!simt->finished()) {
    ASSERT_FALSE(tensor->finished());
    const IterationStats a = tensor->step();
    const IterationStats b = simt->step();
    Snapshot sa, sb;
    tensor->snapshot(sa);
    simt->snapshot(sb);
    ASSERT_EQ(sa.labels, sb.labels) << "iteration " << b.iteration;
    ASSERT_EQ(sa.centroids, sb.centroids) << "iteration " << b.iteration;
    // The inertia of certain labels comes from a shorter-chain FP32 distance, summed in another
    // order: equal to float rounding.
    ASSERT_NEAR(a.inertia, b.inertia, 1e-6 * b.inertia) << "iteration " << b.iteration;
    EXPECT_GE(a.rows_searched, 0);   // the tensor kernel counts its exact re-ranks
    EXPECT_EQ(b.rows_searched, -1);  // the SIMT kernel does not track them
  }
  EXPECT_TRUE(tensor->finished());
}

}  // namespace
}  // namespace kms
