// Compact data (distinct rows with counts) on the CUDA backend: the compact kernels (d ≤ 4 with
// k ≤ 1024, d ≤ 16 with k ≤ 256) and the generic kernel (anything else) against the CPU backend
// on the same compact data, and against the expanded data on the GPU — identical labels,
// bit-identical centroids, the same changed counts and convergence, re-seeding included.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include <random>

#include "gpu_test_support.h"
#include "kmeans/compact.h"
#include "kmeans/testing.h"
#include "support/compact_data.h"

namespace kms {
namespace {

using test::CompactData;
using test::compactOf;

struct CountsCase {
  int d;
  int k;
  int levels;
  bool reseed;
  bool tiles = false;  ///< d ≤ 4: point tiles throughout (PointTiles::Always), else rows
};

std::unique_ptr<Engine> engineOn(BackendKind kind, const CompactData& data,
                                 PointTiles tiles = PointTiles::Auto) {
  TestingOptions options;
  options.cuda.point_tiles = tiles;
  auto e = kind == BackendKind::Cpu ? createCpuEngine(0) : createEngine(kind, options).engine;
  e->setData(data.view());
  return e;
}

KMeansConfig startFar(const CountsCase& c) {
  // Every third centroid starts far outside the data, so clusters go empty early.
  auto start = test::uniformPoints(std::size_t(c.k), c.d, 31 + c.k + c.d, 0.0f, 1.0f);
  for (int j = 0; j < c.k; j += 3)
    start[std::size_t(j) * c.d] += 40.0f;
  KMeansConfig config = test::givenCentroids(start, c.k);
  config.max_iterations = 30;
  config.empty_clusters =
      c.reseed ? EmptyClusterPolicy::ReseedFarthest : EmptyClusterPolicy::KeepCentroid;
  return config;
}

class CompactGpuVersusCpu : public ::testing::TestWithParam<CountsCase> {};

TEST_P(CompactGpuVersusCpu, SameTrajectory) {
  KMS_REQUIRE_CUDA();
  const CountsCase c = GetParam();
  const auto expanded = test::levelPoints(60000, c.d, c.levels, 3 + c.d * 7 + c.k);
  const CompactData data = compactOf(expanded, c.d);
  ASSERT_GE(data.rows(), std::size_t(c.k));
  auto gpu = engineOn(BackendKind::Cuda, data, c.tiles ? PointTiles::Always : PointTiles::Never);
  auto cpu = engineOn(BackendKind::Cpu, data);
  const KMeansConfig config = startFar(c);
  // Rows: the same float distances as the CPU's, summed in another order. Tiles: a settled
  // tile's inertia comes from its moments in double, so the CPU's own rounding of each distance
  // (relative (d + 2)·2⁻²⁴ at most) is the difference.
  // Sorted runs (d = 1, rows) take the inertia from exact moments: the same bound.
  const double tolerance = c.tiles || c.d == 1 ? (c.d + 2) * 6e-8 : 1e-9;
  gpu->initialize(config);
  cpu->initialize(config);
  while (!cpu->finished()) {
    ASSERT_FALSE(gpu->finished());
    const IterationStats sg = gpu->step();
    const IterationStats sc = cpu->step();
    Snapshot g, s;
    gpu->snapshot(g);
    cpu->snapshot(s);
    ASSERT_EQ(g.labels, s.labels) << "iteration " << sc.iteration;
    ASSERT_EQ(g.centroids, s.centroids) << "iteration " << sc.iteration;
    ASSERT_EQ(sg.changed, sc.changed) << "iteration " << sc.iteration;
    ASSERT_EQ(sg.empty_clusters, sc.empty_clusters) << "iteration " << sc.iteration;
    ASSERT_NEAR(sg.inertia, sc.inertia, tolerance * sc.inertia + 1e-12);
    ASSERT_EQ(float(sg.max_shift), float(sc.max_shift));
    ASSERT_EQ(sg.converged, sc.converged);
  }
  EXPECT_TRUE(gpu->finished());
}

INSTANTIATE_TEST_SUITE_P(
    Grid, CompactGpuVersusCpu,
    ::testing::Values(CountsCase{1, 5, 40, true}, CountsCase{2, 16, 30, true},
                      CountsCase{3, 16, 24, true}, CountsCase{3, 16, 24, false},
                      CountsCase{3, 64, 24, true}, CountsCase{3, 300, 24, true},
                      CountsCase{4, 40, 10, true}, CountsCase{3, 1024, 40, false},
                      CountsCase{3, 1100, 40, false},  // beyond the fused kernel: generic
                      CountsCase{5, 12, 6, true}, CountsCase{9, 20, 3, true},
                      // d > 4 is compiled for 8 and 16 (zero-padded), k ≤ 256 there.
                      CountsCase{12, 100, 3, true}, CountsCase{16, 256, 3, false},
                      CountsCase{9, 300, 3, false}),  // k > 256 with d > 4: generic
    [](const auto& info) {
      return "d" + std::to_string(info.param.d) + "_k" + std::to_string(info.param.k) +
             (info.param.reseed ? "_reseed" : "_keep");
    });

// The d ≤ 4 cases again on point tiles.
INSTANTIATE_TEST_SUITE_P(
    GridTiles, CompactGpuVersusCpu,
    ::testing::Values(CountsCase{1, 5, 40, true, true}, CountsCase{2, 16, 30, true, true},
                      CountsCase{3, 16, 24, true, true}, CountsCase{3, 16, 24, false, true},
                      CountsCase{3, 64, 24, true, true}, CountsCase{3, 300, 24, true, true},
                      CountsCase{4, 40, 10, true, true}, CountsCase{3, 1024, 40, false, true}),
    [](const auto& info) {
      return "d" + std::to_string(info.param.d) + "_k" + std::to_string(info.param.k) +
             (info.param.reseed ? "_reseed" : "_keep");
    });

TEST(CudaCounts, CompactEqualsExpandedOnTheGpu) {
  KMS_REQUIRE_CUDA();
  const int d = 3, k = 24;
  const auto expanded = test::levelPoints(200000, d, 20, 77);
  const CompactData data = compactOf(expanded, d);
  auto full = createEngine(BackendKind::Cuda).engine;
  full->setData(DataView{expanded.data(), expanded.size() / d, d});
  auto small = engineOn(BackendKind::Cuda, data);
  const KMeansConfig config = startFar({d, k, 20, true});
  full->initialize(config);
  small->initialize(config);
  while (!full->finished()) {
    const IterationStats a = full->step();
    const IterationStats b = small->step();
    Snapshot sa, sb;
    full->snapshot(sa);
    small->snapshot(sb);
    ASSERT_EQ(a.changed, b.changed);
    ASSERT_EQ(sa.centroids, sb.centroids) << "iteration " << a.iteration;
    for (std::size_t i = 0; i < sa.labels.size(); ++i)
      ASSERT_EQ(sa.labels[i], sb.labels[data.index[i]]) << "point " << i;
    ASSERT_EQ(a.converged, b.converged);
  }
  EXPECT_TRUE(small->finished());
}

TEST(CudaCounts, NearTiesAreResolvedLikeTheCpu) {
  KMS_REQUIRE_CUDA();
  // Points on (or a rounding error off) the bisector of two centroids, with large counts.
  const int d = 3, k = 2;
  std::vector<float> p;
  std::vector<std::uint32_t> m;
  for (int i = 0; i < 4000; ++i) {
    const float t = float(i) / 4000.0f;
    float x = 0.5f;  // a few ULPs either side of the bisector x = 0.5, or on it
    for (int step = 0; step < i % 5; ++step)
      x = std::nextafter(x, i % 3 == 0 ? 0.0f : 1.0f);
    p.insert(p.end(), {x, t, 1.0f - t});
    m.push_back(1u + std::uint32_t(i % 7) * 100000u);
  }
  const std::vector<float> centroids = {0.25f, 0.5f, 0.5f, 0.75f, 0.5f, 0.5f};
  auto gpu = createEngine(BackendKind::Cuda).engine;
  auto cpu = createCpuEngine(0);
  for (auto* e : {gpu.get(), cpu.get()}) {
    e->setData(DataView{p.data(), m.size(), d, nullptr, m.data()});
    e->initialize(test::givenCentroids(centroids, k));
    e->step();
  }
  Snapshot g, s;
  gpu->snapshot(g);
  cpu->snapshot(s);
  EXPECT_EQ(g.labels, s.labels);
  EXPECT_EQ(g.centroids, s.centroids);
}

TEST(CudaCounts, SeedingWithCountsMatchesTheCpu) {
  KMS_REQUIRE_CUDA();
  const auto expanded = test::levelPoints(100000, 3, 16, 5);
  const CompactData data = compactOf(expanded, 3);
  for (InitMethod init :
       {InitMethod::Random, InitMethod::KMeansPlusPlus, InitMethod::GreedyKMeansPlusPlus}) {
    KMeansConfig config;
    config.k = 32;
    config.init = init;
    config.seed = 1234;
    auto gpu = engineOn(BackendKind::Cuda, data);
    auto cpu = engineOn(BackendKind::Cpu, data);
    gpu->initialize(config);
    cpu->initialize(config);
    Snapshot g, s;
    gpu->snapshot(g);
    cpu->snapshot(s);
    EXPECT_EQ(g.centroids, s.centroids) << toString(init);
  }
}

TEST(CudaCounts, CapturedSnapshotsOfTheFusedKernelAreConsistent) {
  KMS_REQUIRE_CUDA();
  const auto expanded = test::levelPoints(300000, 3, 30, 9);
  const CompactData data = compactOf(expanded, 3);
  KMeansConfig config;
  config.k = 16;
  config.seed = 3;
  config.tolerance = 0;
  config.max_iterations = 40;
  auto gpu = engineOn(BackendKind::Cuda, data);
  auto cpu = engineOn(BackendKind::Cpu, data);
  gpu->initialize(config);
  cpu->initialize(config);
  std::vector<Snapshot> cpu_states(1);
  cpu->snapshot(cpu_states[0]);
  int captures = 0;
  while (!gpu->finished()) {
    gpu->requestSnapshot();
    gpu->step();
    cpu->step();
    cpu_states.emplace_back();
    cpu->snapshot(cpu_states.back());
    Snapshot captured;
    if (gpu->takeCapturedSnapshot(captured)) {
      ++captures;
      const Snapshot& truth = cpu_states.at(std::size_t(captured.iteration));
      ASSERT_EQ(captured.labels, truth.labels) << "iteration " << captured.iteration;
      ASSERT_EQ(captured.centroids, truth.centroids) << "iteration " << captured.iteration;
    }
  }
  EXPECT_GT(captures, 0);
}

TEST(CudaCounts, ReseedingOfExpandedDataFollowsTheCpuOrder) {
  KMS_REQUIRE_CUDA();
  // Repeated positions at equal distances, in an order unlike the lexicographic one: the GPU's
  // per-pixel re-seeding must pick the same positions as the CPU's.
  std::vector<float> p;
  for (int r = 0; r < 500; ++r)
    p.insert(p.end(), {0, 2, 2, 0, -2, 0, 0, -2, 0, 0, 1, 1});
  const std::vector<float> start = {0, 0, 90, 90, 95, 95, 99, 99};
  auto gpu = test::cudaEngineOn(p, 2);
  auto cpu = test::cpuEngineOn(p, 2);
  KMeansConfig config = test::givenCentroids(start, 4);
  config.empty_clusters = EmptyClusterPolicy::ReseedFarthest;
  gpu->initialize(config);
  cpu->initialize(config);
  EXPECT_EQ(gpu->step().empty_clusters, 3);
  cpu->step();
  Snapshot g, s;
  gpu->snapshot(g);
  cpu->snapshot(s);
  EXPECT_EQ(g.centroids, s.centroids);
  EXPECT_EQ(std::vector<float>(s.centroids.begin() + 2, s.centroids.end()),
            (std::vector<float>{-2, 0, 0, -2, 0, 2}));
}

TEST(CudaCounts, DeviceCompactionEqualsTheCpus) {
  KMS_REQUIRE_CUDA();
  std::mt19937_64 rng(11);
  for (std::size_t n : {std::size_t(1), std::size_t(1000), std::size_t(4096) * 4096}) {
    std::vector<std::uint32_t> pixels(n);
    std::uint32_t colour = 0xff000000u;
    for (auto& p : pixels) {
      if (rng() % 5 == 0) colour = 0xff000000u | (std::uint32_t(rng()) & 0xffffffu);
      p = colour ^ (std::uint32_t(rng() % 4) << 8);
    }
    pixels[0] = 0xffffffffu;  // the cube's last colour
    double ms = -1.0;
    const DistinctColours gpu = distinctColoursOnDevice(pixels.data(), n, 0, &ms);
    const DistinctColours cpu = distinctColours(pixels.data(), n);
    EXPECT_EQ(gpu.keys, cpu.keys) << n;
    EXPECT_EQ(gpu.counts, cpu.counts) << n;
    EXPECT_EQ(gpu.index, cpu.index) << n;
    EXPECT_GE(ms, 0.0);
  }
}

}  // namespace
}  // namespace kms

namespace kms {
namespace {

TEST(CudaCounts, AssignReplaysTheCompactKernelsLabels) {
  KMS_REQUIRE_CUDA();
  // The compact kernel settles most rows with bounds; assign() searches every row.
  const auto expanded = test::levelPoints(60000, 3, 14, 5);
  const CompactData compact = compactOf(expanded, 3);
  auto gpu = engineOn(BackendKind::Cuda, compact);
  KMeansConfig config;
  config.k = 16;
  config.tolerance = 0.0;
  config.max_iterations = 40;
  gpu->initialize(config);
  Snapshot before, after;
  gpu->snapshot(before);
  std::vector<std::int32_t> replayed;
  while (!gpu->finished()) {
    gpu->step();
    gpu->snapshot(after);
    gpu->assign(before.centred_centroids, replayed);
    ASSERT_EQ(replayed, after.labels) << "iteration " << after.iteration;
    std::swap(before, after);
  }
}

}  // namespace
}  // namespace kms
