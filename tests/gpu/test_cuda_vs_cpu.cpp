// The CUDA backend against the CPU backend on random data: identical labels (up to ties),
// inertia equal to relative 1e-5, identical initial centroids, bit-identical repeat runs.
#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

#include "gpu_test_support.h"

namespace kms {
namespace {

using test::cpuEngineOn;
using test::cudaEngineOn;
using test::expectSameLabelsUpToTies;
using test::givenCentroids;

struct GridCase {
  std::size_t n;
  int d;
  int k;
  bool weighted;
};

class OneStepGpuVersusCpu : public ::testing::TestWithParam<GridCase> {};

// From the same given centroids, three iterations on both backends: identical labels (the GPU
// re-ranks near ties with the CPU's exact distances), inertia within 1e-5, and bit-identical
// centroids (the exact integer sums make the update independent of the summation order).
TEST_P(OneStepGpuVersusCpu, LabelsInertiaAndCentroidsAgree) {
  KMS_REQUIRE_CUDA();
  const GridCase c = GetParam();
  const auto p = test::uniformPoints(c.n, c.d, 17 + c.n + c.d * 131 + c.k, -2.0f, 3.0f);
  std::vector<float> w;
  if (c.weighted) {
    w = test::uniformPoints(c.n, 1, 5 + c.k, 0.0f, 4.0f);
  }
  const auto init = test::uniformPoints(c.k, c.d, 99 + c.k * 7 + c.d, -2.0f, 3.0f);
  auto gpu = cudaEngineOn(p, c.d, c.weighted ? &w : nullptr);
  auto cpu = cpuEngineOn(p, c.d, c.weighted ? &w : nullptr);
  gpu->initialize(givenCentroids(init, c.k));
  cpu->initialize(givenCentroids(init, c.k));
  for (int iteration = 1; iteration <= 3; ++iteration) {
    Snapshot before;
    cpu->snapshot(before);  // centroids both backends assign with (identical so far, or close)
    const IterationStats sg = gpu->step();
    const IterationStats sc = cpu->step();
    Snapshot g, s;
    gpu->snapshot(g);
    cpu->snapshot(s);
    ASSERT_EQ(g.iteration, iteration);
    const std::size_t ties = expectSameLabelsUpToTies(p, c.d, before.centroids, s.labels, g.labels);
    ASSERT_EQ(ties, 0u) << "iteration " << iteration;
    EXPECT_NEAR(sg.inertia, sc.inertia, 1e-5 * sc.inertia) << "iteration " << iteration;
    EXPECT_EQ(sg.empty_clusters, sc.empty_clusters);
    if (iteration == 1) EXPECT_EQ(sg.changed, c.n);
    EXPECT_EQ(sg.changed, sc.changed) << "iteration " << iteration;
    ASSERT_EQ(g.centroids, s.centroids)
        << "iteration " << iteration << ": same labels must give bit-identical centroids";
    EXPECT_EQ(static_cast<float>(sg.max_shift), static_cast<float>(sc.max_shift));
    EXPECT_EQ(sg.converged, sc.converged);
  }
}

std::vector<GridCase> gridCases() {
  std::vector<GridCase> cases;
  // Every compiled dimension, padded dimensions in between, and the generic kernel (d > 64).
  for (int d : {1, 2, 3, 4, 5, 7, 8, 9, 12, 16, 17, 31, 32, 40, 64, 65, 100})
    for (int k : {1, 5, 16, 130})
      cases.push_back({static_cast<std::size_t>(2000 + 37 * d + k), d, k, (d + k) % 3 == 0});
  // Enough points for the point-per-thread kernel (smaller sets go to the tiled kernel),
  // including 16-bit labels and, for d = 16 and k = 1000, centroids staged in chunks.
  for (int d : {1, 2, 5, 8, 9, 16})
    for (int k : {7, 300})
      cases.push_back({200000, d, k, (d + k) % 2 == 1});
  cases.push_back({200000, 16, 1000, false});
  cases.push_back({50000, 3, 256, false});
  cases.push_back({50000, 3, 257, true});  // 16-bit labels
  cases.push_back({20000, 2, 1024, false});
  cases.push_back({8000, 16, 1000, false});
  cases.push_back({30000, 64, 256, false});  // shared accumulators near the limit
  cases.push_back({4000, 64, 1024, false});  // accumulators too large: generic kernel
  cases.push_back({100, 3, 100, false});     // k = n
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Grid, OneStepGpuVersusCpu, ::testing::ValuesIn(gridCases()),
                         [](const ::testing::TestParamInfo<GridCase>& info) {
                           return "n" + std::to_string(info.param.n) + "_d" +
                                  std::to_string(info.param.d) + "_k" +
                                  std::to_string(info.param.k) + (info.param.weighted ? "_w" : "");
                         });

class FullRunGpuVersusCpu
    : public ::testing::TestWithParam<std::tuple<int, int, InitMethod, std::uint64_t>> {};

// Well-separated blobs: same seed ⇒ same initial centroids, identical labels every iteration,
// inertia within 1e-5, same iteration count.
TEST_P(FullRunGpuVersusCpu, IdenticalTrajectories) {
  KMS_REQUIRE_CUDA();
  const auto [d, k, init, seed] = GetParam();
  const auto p = test::blobPoints(40000, d, k, seed + d, 12.0f, 0.6f);
  auto gpu = cudaEngineOn(p, d);
  auto cpu = cpuEngineOn(p, d);
  KMeansConfig config;
  config.k = k;
  config.init = init;
  config.seed = seed;
  config.max_iterations = 60;
  config.tolerance = 0;
  gpu->initialize(config);
  cpu->initialize(config);
  Snapshot g, s;
  gpu->snapshot(g);
  cpu->snapshot(s);
  ASSERT_EQ(g.centroids, s.centroids) << "initial centroids differ";
  while (!cpu->finished()) {
    ASSERT_FALSE(gpu->finished());
    const auto sg = gpu->step();
    const auto sc = cpu->step();
    gpu->snapshot(g);
    cpu->snapshot(s);
    ASSERT_EQ(g.labels, s.labels) << "iteration " << sc.iteration;
    ASSERT_NEAR(sg.inertia, sc.inertia, 1e-5 * sc.inertia) << "iteration " << sc.iteration;
    ASSERT_EQ(sg.changed, sc.changed);
    ASSERT_EQ(g.centroids, s.centroids) << "iteration " << sc.iteration;
  }
  EXPECT_TRUE(gpu->finished());
  EXPECT_EQ(gpu->iteration(), cpu->iteration());
}

std::string trajectoryName(
    const ::testing::TestParamInfo<std::tuple<int, int, InitMethod, std::uint64_t>>& info) {
  const int d = std::get<0>(info.param), k = std::get<1>(info.param);
  const InitMethod init = std::get<2>(info.param);
  const char* name = init == InitMethod::Random                 ? "_random"
                     : init == InitMethod::GreedyKMeansPlusPlus ? "_greedy"
                                                                : "_kmeanspp";
  return "d" + std::to_string(d) + "_k" + std::to_string(k) + name + "_seed" +
         std::to_string(std::get<3>(info.param));
}

INSTANTIATE_TEST_SUITE_P(
    Blobs, FullRunGpuVersusCpu,
    ::testing::Values(std::make_tuple(2, 5, InitMethod::KMeansPlusPlus, 1ull),
                      std::make_tuple(3, 16, InitMethod::KMeansPlusPlus, 7ull),
                      std::make_tuple(3, 16, InitMethod::Random, 7ull),
                      std::make_tuple(3, 16, InitMethod::GreedyKMeansPlusPlus, 7ull),
                      std::make_tuple(16, 300, InitMethod::GreedyKMeansPlusPlus, 2ull),
                      std::make_tuple(9, 40, InitMethod::KMeansPlusPlus, 3ull),
                      std::make_tuple(16, 300, InitMethod::KMeansPlusPlus, 5ull),
                      std::make_tuple(64, 20, InitMethod::Random, 11ull)),
    trajectoryName);

TEST(CudaEngine, SameSeedIsBitIdenticalRunToRun) {
  KMS_REQUIRE_CUDA();
  const auto p = test::uniformPoints(300000, 3, 4242);
  std::vector<std::vector<double>> inertias(2);
  Snapshot snaps[2];
  for (int run = 0; run < 2; ++run) {
    auto gpu = cudaEngineOn(p, 3);
    KMeansConfig config;
    config.k = 64;
    config.seed = 99;
    config.max_iterations = 25;
    gpu->initialize(config);
    gpu->run([&](const IterationStats& s) {
      inertias[run].push_back(s.inertia);
      return true;
    });
    gpu->snapshot(snaps[run]);
  }
  EXPECT_EQ(inertias[0], inertias[1]);
  EXPECT_EQ(snaps[0].centroids, snaps[1].centroids);
  EXPECT_EQ(snaps[0].labels, snaps[1].labels);
}

TEST(CudaEngine, PhotoSizedImageOneStepMatchesCpu) {
  KMS_REQUIRE_CUDA();
  // A 4096 × 4096 RGB-like cloud; one step from the same centroids on both backends.
  const std::size_t n = 4096u * 4096u;
  const auto p = test::uniformPoints(n, 3, 5, 0.0f, 1.0f);
  const auto init = test::uniformPoints(16, 3, 6, 0.0f, 1.0f);
  auto gpu = cudaEngineOn(p, 3);
  auto cpu = cpuEngineOn(p, 3);
  gpu->initialize(givenCentroids(init, 16));
  cpu->initialize(givenCentroids(init, 16));
  const auto sg = gpu->step();
  const auto sc = cpu->step();
  EXPECT_NEAR(sg.inertia, sc.inertia, 1e-5 * sc.inertia);
  Snapshot g, s;
  gpu->snapshot(g);
  cpu->snapshot(s);
  const std::size_t ties = expectSameLabelsUpToTies(p, 3, init, s.labels, g.labels);
  EXPECT_LT(ties, n / 100000);
}

}  // namespace
}  // namespace kms
