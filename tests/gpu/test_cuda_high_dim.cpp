// High-dimensional rows (d > 64: families/high_dim_tensor.cu on tensor cores, families/high_dim.cu
// with FP32 tiles for streamed rows or without TF32): trajectories against the CPU backend —
// labels and centroids bit for bit every iteration — on blobs and uniform data from d = 65 to
// 1,024, with weights, 16-bit labels (k up to 5,000), and rows constructed on and just off the
// bisector of two centroids, where the fast scores cannot tell them apart and the exact
// re-ranking decides.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "gpu_test_support.h"
#include "kmeans/backend.h"
#include "kmeans/testing.h"
#include "support/reference_kmeans.h"

namespace kms::test {
namespace {

struct HighDimCase {
  std::size_t n;
  int d;
  int k;
  bool weighted;
  InitMethod init;
};

class HighDimGpuVersusCpu : public ::testing::TestWithParam<HighDimCase> {};

TEST_P(HighDimGpuVersusCpu, SameTrajectoryAsTheCpu) {
  KMS_REQUIRE_CUDA();
  const HighDimCase c = GetParam();
  const std::vector<float> p =
      blobPoints(c.n, c.d, std::max(2, c.k / 2), 31 + c.d + c.k, 4.0f, 1.0f);
  std::vector<float> w;
  if (c.weighted) {
    std::mt19937 rng(c.d);
    std::uniform_real_distribution<float> weight(0.25f, 4.0f);
    w.resize(c.n);
    for (float& x : w)
      x = weight(rng);
  }
  KMeansConfig config;
  config.k = c.k;
  config.init = c.init;
  config.seed = 5 + c.d;
  config.empty_clusters = EmptyClusterPolicy::ReseedFarthest;
  expectSameTrajectory(DataView{p.data(), c.n, c.d, c.weighted ? w.data() : nullptr}, config, 8);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, HighDimGpuVersusCpu,
    ::testing::Values(HighDimCase{3000, 65, 7, false, InitMethod::KMeansPlusPlus},
                      HighDimCase{20000, 128, 100, false, InitMethod::GreedyKMeansPlusPlus},
                      HighDimCase{20000, 128, 100, true, InitMethod::KMeansPlusPlus},
                      HighDimCase{8000, 96, 300, false, InitMethod::Random},  // 16-bit labels
                      HighDimCase{6000, 300, 64, true, InitMethod::Random},
                      HighDimCase{3000, 768, 40, false, InitMethod::KMeansPlusPlus},
                      HighDimCase{2500, 1024, 33, false, InitMethod::Random},
                      HighDimCase{30000, 96, 5000, false, InitMethod::Random}),
    [](const ::testing::TestParamInfo<HighDimCase>& info) {
      return "n" + std::to_string(info.param.n) + "_d" + std::to_string(info.param.d) + "_k" +
             std::to_string(info.param.k) + (info.param.weighted ? "_w" : "");
    });

// Standard normal rows (every row near a border: the one-term bound decides only part of them)
// whose coordinates sit where rounding to 10 explicit bits errs most — the 13 dropped bits just
// below or at half an ulp, for TF32 and, scaled by powers of two, for FP16 alike — at d = 128 and
// 768: the one-term passes multiply the FP16 copies, and their bound (half truncation's) must
// still leave every row they decide with the CPU's label.
TEST(HighDimTensorFamily, StandardNormalRowsAtTf32sWorstRoundingFollowTheCpu) {
  KMS_REQUIRE_CUDA();
  for (int d : {128, 768}) {
    const std::size_t n = d == 128 ? 30000 : 6000;
    std::mt19937 rng(77 + d);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> p(n * static_cast<std::size_t>(d));
    for (std::size_t i = 0; i < p.size(); ++i) {
      std::uint32_t bits = std::bit_cast<std::uint32_t>(normal(rng));
      bits = (bits & ~0x1fffu) | (i % 3 == 0 ? 0x0fffu : i % 3 == 1 ? 0x1000u : 0x1fffu);
      p[i] = std::bit_cast<float>(bits);
    }
    KMeansConfig config;
    config.k = d == 128 ? 512 : 96;
    config.init = InitMethod::Random;
    config.seed = 3;
    config.tolerance = 0.0;
    expectSameTrajectory(DataView{p.data(), n, d}, config, 6);
  }
}

// Rows at float's small end and rows far apart in scale, at d = 128 with k = 6: blobs scaled
// by 10^−21 (squared distances of about 10^−40: subnormal terms, which round by up to 2^−149
// each, so a lower bound from an exact distance must not trust them relatively), and the same
// tiny rows beside a few rows of magnitude 1,000 on either side of them (the FP16 copies' scale
// then comes from the large rows and the tiny ones fall below FP16's normal range: E's absolute
// term; their centroids' sums, quantised at the data's scale, come out 0: exact ties). The CPU's
// labels and centroids every iteration.
TEST(HighDimTensorFamily, TinyRowsAndRowsFarApartInScaleFollowTheCpu) {
  KMS_REQUIRE_CUDA();
  const int d = 128;
  const std::size_t n = 6000;
  for (const bool with_large_rows : {false, true}) {
    std::vector<float> p = blobPoints(n, d, 6, 57, 4.0f, 1.0f);
    for (float& v : p)
      v *= 1e-21f;
    if (with_large_rows)  // ±1,000 about 0, so that centring leaves the tiny rows tiny
      for (std::size_t i = 0; i < n; i += 1000)
        for (int c = 0; c < d; ++c)
          p[i * d + c] = (i % 2000 == 0 ? 1000.0f : -1000.0f) + static_cast<float>(c % 7);
    KMeansConfig config;
    config.k = 6;
    config.init = InitMethod::KMeansPlusPlus;
    config.seed = 13;
    config.tolerance = 0.0;
    expectSameTrajectory(DataView{p.data(), n, d}, config, 6);
  }
}

// The one-term passes on the FP16 copies against the same passes on the FP32 words read as TF32
// (CudaTuning::half_copies = false, the path for a device with no room for the copies): the same
// labels and centroids every iteration, on standard normal rows (many rows listed) at d = 100
// (copies padded to 104 halves) and d = 99 (the FP32 words copied a float at a time).
TEST(HighDimTensorFamily, HalfCopiesMatchTheTf32Words) {
  KMS_REQUIRE_CUDA();
  for (int d : {100, 99}) {
    const std::size_t n = 20000;
    std::mt19937 rng(41 + d);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> p(n * static_cast<std::size_t>(d));
    for (float& v : p)
      v = normal(rng);
    TestingOptions words;
    words.cuda.half_copies = false;
    auto halves = createEngine(BackendKind::Cuda, TestingOptions{}).engine;
    auto tf32 = createEngine(BackendKind::Cuda, words).engine;
    const DataView view{p.data(), n, d};
    halves->setData(view);
    tf32->setData(view);
    KMeansConfig config;
    config.k = 300;
    config.init = InitMethod::Random;
    config.seed = 9;
    config.tolerance = 0.0;
    expectSameEngineRun(*halves, *tf32, config, 6, 4);
  }
}

// The family against the generic kernel it replaced (CudaTuning::high_dim_rows = false): the
// same labels and centroids every iteration, weights included.
TEST(HighDimFamily, MatchesTheGenericKernel) {
  KMS_REQUIRE_CUDA();
  const int d = 160;
  const std::size_t n = 6000;
  const std::vector<float> p = blobPoints(n, d, 12, 77, 4.0f, 1.0f);
  std::vector<float> w(n);
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> weight(0.5f, 2.0f);
  for (float& x : w)
    x = weight(rng);
  TestingOptions generic;
  generic.cuda.high_dim_rows = false;
  auto family = createEngine(BackendKind::Cuda, TestingOptions{}).engine;
  auto plain = createEngine(BackendKind::Cuda, generic).engine;
  const DataView view{p.data(), n, d, w.data()};
  family->setData(view);
  plain->setData(view);
  KMeansConfig config;
  config.k = 24;
  config.seed = 8;
  config.tolerance = 0;
  family->initialize(config);
  plain->initialize(config);
  for (int t = 1; t <= 6; ++t) {
    const IterationStats a = family->step(), b = plain->step();
    EXPECT_EQ(a.changed, b.changed) << "iteration " << t;
    Snapshot sa, sb;
    family->snapshot(sa);
    plain->snapshot(sb);
    ASSERT_EQ(sa.labels, sb.labels) << "iteration " << t;
    ASSERT_EQ(sa.centroids, sb.centroids) << "iteration " << t;
  }
}

// Data streamed from host memory (nothing fits the device): the kernels read the mapped rows
// in place, with the same results.
TEST(HighDimFamily, StreamedFromHostMemoryMatchesTheCpu) {
  KMS_REQUIRE_CUDA();
  const int d = 200;
  const std::size_t n = 3000;
  const std::vector<float> p = blobPoints(n, d, 10, 5, 4.0f, 1.0f);
  TestingOptions streamed;
  streamed.max_device_bytes = 1;
  KMeansConfig config;
  config.k = 20;
  config.seed = 2;
  expectSameTrajectory(DataView{p.data(), n, d}, config, 5, streamed);
}

// The tensor-core family against the FP32 family (CudaTuning::tensor_cores = false): the same
// labels and centroids every iteration, weights included, on blobs spread so that the TF32 bound
// settles most rows and on tight ones where many rows go to the three-term pass.
class HighDimTensorVersusFp32 : public ::testing::TestWithParam<float> {};

TEST_P(HighDimTensorVersusFp32, SameLabelsAndCentroids) {
  KMS_REQUIRE_CUDA();
  const int d = 136;
  const std::size_t n = 9000;
  const std::vector<float> p = blobPoints(n, d, 40, 91, GetParam(), 1.0f);
  std::vector<float> w(n);
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> weight(0.5f, 2.0f);
  for (float& x : w)
    x = weight(rng);
  TestingOptions fp32;
  fp32.cuda.tensor_cores = false;
  auto tensor = createEngine(BackendKind::Cuda, TestingOptions{}).engine;
  auto plain = createEngine(BackendKind::Cuda, fp32).engine;
  const DataView view{p.data(), n, d, w.data()};
  tensor->setData(view);
  plain->setData(view);
  KMeansConfig config;
  config.k = 300;  // 16-bit labels, three centroid tiles (the last one partial)
  config.seed = 12;
  expectSameEngineRun(*tensor, *plain, config, 6, 4);
}

INSTANTIATE_TEST_SUITE_P(Spreads, HighDimTensorVersusFp32, ::testing::Values(8.0f, 0.05f),
                         [](const ::testing::TestParamInfo<float>& info) {
                           return info.param > 1.0f ? std::string("spread") : std::string("tight");
                         });

// Many centroids equally near (within far less than the TF32 bound) to every row: the rank pass
// lists every row, the collect pass finds more centroids within its threshold than it keeps, the
// three-term pass cannot settle those rows within its own bound either, and the exact search over
// all k decides — the CPU's labels, ties to the lower index.
class HighDimCrowdedTies : public ::testing::TestWithParam<int> {};

TEST_P(HighDimCrowdedTies, ExactSearchDecides) {
  KMS_REQUIRE_CUDA();
  const int d = GetParam();
  const int k = 160;
  std::mt19937 rng(11 + d);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> base(d);
  for (float& v : base)
    v = 3.0f * normal(rng);
  // Centroids: the same point moved a few ulps in a few coordinates, some exactly equal.
  std::vector<float> centroids(static_cast<std::size_t>(k) * d);
  for (int j = 0; j < k; ++j)
    for (int c = 0; c < d; ++c) {
      float v = base[c];
      if (c == j % d && j % 7 != 0) v = std::nextafter(v, j % 2 ? INFINITY : -INFINITY);
      centroids[static_cast<std::size_t>(j) * d + c] = v;
    }
  const std::size_t n = 2048;
  std::vector<float> p(n * d);
  for (std::size_t i = 0; i < n; ++i)
    for (int c = 0; c < d; ++c)
      p[i * d + c] = base[c] + (i % 3 == 0 ? 0.0f : 0.25f * normal(rng));
  KMeansConfig config = givenCentroids(centroids, k);
  expectSameTrajectory(DataView{p.data(), n, d}, config, 2);
}

INSTANTIATE_TEST_SUITE_P(Dims, HighDimCrowdedTies, ::testing::Values(128, 768, 1024),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return "d" + std::to_string(info.param);
                         });

// Rows around one point b (a quarter exactly on it, the rest within `spread` of it) and k
// centroids: the first `crowd` near b, each at `near(j, c, b_c)` in coordinate c, the rest far
// from all of them.
struct Crowd {
  std::vector<float> centroids, points;
};
template <typename Near>
Crowd crowdAroundOnePoint(int d, int k, int crowd, unsigned seed, float spread, Near near) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> base(d);
  for (float& v : base)
    v = 3.0f * normal(rng);
  Crowd out;
  out.centroids.resize(static_cast<std::size_t>(k) * d);
  for (int j = 0; j < k; ++j)
    for (int c = 0; c < d; ++c)
      out.centroids[static_cast<std::size_t>(j) * d + c] =
          j < crowd ? near(j, c, base[c])
                    : base[c] + (c == j % d ? 60.0f : 0.0f) + (j % 2 ? 25.0f : -25.0f);
  const std::size_t n = 4096;
  out.points.resize(n * d);
  for (std::size_t i = 0; i < n; ++i)
    for (int c = 0; c < d; ++c)
      out.points[i * d + c] = base[c] + (i % 4 == 0 ? 0.0f : spread * normal(rng));
  return out;
}

// A few centroids (five) equally near every row within far less than either bound, the rest
// far away: the collect pass lists all five (no more than it keeps) and their exact distances
// decide (no three-term pass, no search of all k) — the CPU's labels, ties to the lower index.
class HighDimFewTies : public ::testing::TestWithParam<int> {};

TEST_P(HighDimFewTies, CandidatesDecide) {
  KMS_REQUIRE_CUDA();
  const int d = GetParam();
  const int k = 40;
  const Crowd data = crowdAroundOnePoint(d, k, 5, 23 + d, 0.25f, [](int j, int c, float v) {
    return c == j && j != 0 ? std::nextafter(v, j % 2 ? INFINITY : -INFINITY) : v;
  });
  KMeansConfig config = givenCentroids(data.centroids, k);
  expectSameTrajectory(DataView{data.points.data(), data.points.size() / d, d}, config, 3);
}

INSTANTIATE_TEST_SUITE_P(Dims, HighDimFewTies, ::testing::Values(128, 768),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return "d" + std::to_string(info.param);
                         });

// Twelve centroids whose squared distances to b differ by 0.4 — within the one-term bound (2E₁
// is several units here) but far outside the three-term one — the rest far away: the collect
// pass finds more centroids within the threshold than it keeps and forwards the rows, and the
// three-term pass decides them — the CPU's labels.
class HighDimBetweenBounds : public ::testing::TestWithParam<int> {};

TEST_P(HighDimBetweenBounds, ForwardedRowsFollowTheCpu) {
  KMS_REQUIRE_CUDA();
  const int d = GetParam();
  const int k = 40;
  const Crowd data = crowdAroundOnePoint(d, k, 12, 29 + d, 0.05f, [](int j, int c, float v) {
    return c == j ? v + std::sqrt(0.4f * static_cast<float>(j)) : v;  // ‖b − c_j‖² ≈ 0.4·j
  });
  KMeansConfig config = givenCentroids(data.centroids, k);
  expectSameTrajectory(DataView{data.points.data(), data.points.size() / d, d}, config, 3);
}

INSTANTIATE_TEST_SUITE_P(Dims, HighDimBetweenBounds, ::testing::Values(128, 768),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return "d" + std::to_string(info.param);
                         });

// k = 65,535 (the engine's largest): 512 centroid tiles a row, against the FP32 family.
TEST(HighDimTensorFamily, SixtyFiveThousandClusters) {
  KMS_REQUIRE_CUDA();
  const int d = 128, k = 65535;
  const std::size_t n = 200000;
  const std::vector<float> p = blobPoints(n, d, 4096, 3, 6.0f, 1.0f);
  TestingOptions fp32;
  fp32.cuda.tensor_cores = false;
  auto tensor = createEngine(BackendKind::Cuda, TestingOptions{}).engine;
  auto plain = createEngine(BackendKind::Cuda, fp32).engine;
  const DataView view{p.data(), n, d};
  tensor->setData(view);
  plain->setData(view);
  KMeansConfig config;
  config.k = k;
  config.init = InitMethod::Random;
  config.seed = 21;
  expectSameEngineRun(*tensor, *plain, config, 3, 2);
}

// The tensor family's bounds over long runs: blobs that settle and uniform data, where k-means
// creeps for many iterations and rows sit near the borders while centroids drift a little each
// time — the same trajectory as the CPU every iteration, the first iteration ranking every row
// and later ones settling most rows by their bounds alone.
struct HighDimBoundsCase {
  bool blobs;
  int d;
  int k;
  bool settles;  ///< most rows are settled by their bounds at the end
};

class HighDimBounds : public ::testing::TestWithParam<HighDimBoundsCase> {};

TEST_P(HighDimBounds, SettledRowsKeepTheCpuLabels) {
  KMS_REQUIRE_CUDA();
  const HighDimBoundsCase c = GetParam();
  const std::size_t n = 24000;
  const std::vector<float> p =
      c.blobs ? blobPoints(n, c.d, c.k, 17, 30.0f, 1.0f) : uniformPoints(n, c.d, 19);
  KMeansConfig config;
  config.k = c.k;
  config.init = InitMethod::Random;
  config.seed = 8;
  config.empty_clusters = EmptyClusterPolicy::ReseedFarthest;
  const int iterations = 30;
  const std::vector<IterationStats> stats =
      expectSameTrajectory(DataView{p.data(), n, c.d}, config, iterations);
  ASSERT_EQ(stats.size(), static_cast<std::size_t>(iterations));
  EXPECT_EQ(stats.front().rows_searched, static_cast<std::int64_t>(n))
      << "the first iteration ranks every row";
  const IterationStats& last = stats.back();
  EXPECT_GE(last.rows_searched, 0);
  EXPECT_LE(last.rows_searched, static_cast<std::int64_t>(n));
  if (c.settles) {  // uniform data keep many rows near a border: no promise there
    EXPECT_LT(last.rows_searched, static_cast<std::int64_t>(n / 2))
        << "the bounds settle most rows once the centroids move little";
    EXPECT_LT(last.distances_computed, static_cast<std::int64_t>(n) * c.k / 2);
  }
  RecordProperty("last_rows_ranked", static_cast<int>(last.rows_searched));
  EXPECT_GE(last.distances_computed, static_cast<std::int64_t>(n) - last.rows_searched)
      << "a settled row still costs its own distance";
}

INSTANTIATE_TEST_SUITE_P(Data, HighDimBounds,
                         ::testing::Values(HighDimBoundsCase{true, 128, 64, true},
                                           HighDimBoundsCase{false, 96, 40, false},
                                           // 300 random starts over 300 blobs: many blobs
                                           // hold two or three centroids, their rows near ties
                                           HighDimBoundsCase{true, 768, 300, false}),
                         [](const ::testing::TestParamInfo<HighDimBoundsCase>& info) {
                           return std::string(info.param.blobs ? "blobs" : "uniform") + "_d" +
                                  std::to_string(info.param.d) + "_k" +
                                  std::to_string(info.param.k);
                         });

// Rows on the bisector of two centroids and a few ulps off it, in every coordinate's scale:
// the fast scores ‖c‖² − 2x·c of the two are equal within their rounding, so only the exact
// distances (in the CPU's order) decide — ties to the lower index.
class HighDimNearTies : public ::testing::TestWithParam<int> {};

TEST_P(HighDimNearTies, ExactDistancesDecide) {
  KMS_REQUIRE_CUDA();
  const int d = GetParam();
  const int k = 4;
  std::mt19937 rng(7 + d);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  // Centroids: a, its mirror image in the first coordinate's hyperplane, and two far away.
  std::vector<float> centroids(static_cast<std::size_t>(k) * d);
  for (int c = 0; c < d; ++c) {
    const float v = normal(rng);
    centroids[c] = v;
    centroids[d + c] = c == 0 ? -v : v;
    centroids[2 * d + c] = v + 40.0f;
    centroids[3 * d + c] = v - 40.0f;
  }
  centroids[0] = 0.75f;
  centroids[d] = -0.75f;
  const std::size_t n = 4096;
  std::vector<float> p(n * d);
  for (std::size_t i = 0; i < n; ++i) {
    for (int c = 0; c < d; ++c)
      p[i * d + c] = centroids[c] + 0.5f * normal(rng);
    // On the bisector (x₀ = 0), or a few ulps of the scale off it either way.
    const int off = static_cast<int>(i % 9) - 4;
    p[i * d] = off == 0 ? 0.0f : std::ldexp(static_cast<float>(off), -22);
  }
  KMeansConfig config = givenCentroids(centroids, k);
  expectSameTrajectory(DataView{p.data(), n, d}, config, 3);
}

INSTANTIATE_TEST_SUITE_P(Dims, HighDimNearTies, ::testing::Values(65, 128, 768, 1024),
                         [](const ::testing::TestParamInfo<int>& info) {
                           return "d" + std::to_string(info.param);
                         });

}  // namespace
}  // namespace kms::test
