// CUDA backend specifics: edge cases, empty clusters, snapshots while iterating, errors, memory.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "gpu_test_support.h"
#include "kmeans/errors.h"

namespace kms {
namespace {

using test::cpuEngineOn;
using test::cudaEngineOn;
using test::givenCentroids;

TEST(CudaEngine, AssignReplaysEveryIterationLikeTheCpu) {
  KMS_REQUIRE_CUDA();
  // Overlapping blobs (many near-ties), 16-bit labels (k > 256) and 8-bit ones.
  const auto points = test::blobPoints(40000, 3, 8, 4, 1.0f, 0.7f);
  for (const int k : {9, 300}) {
    auto gpu = cudaEngineOn(points, 3);
    auto cpu = cpuEngineOn(points, 3);
    KMeansConfig config;
    config.k = k;
    config.init = InitMethod::Random;
    config.tolerance = 0.0;
    config.max_iterations = 12;
    gpu->initialize(config);
    cpu->initialize(config);
    Snapshot before, after, cpuAfter;
    gpu->snapshot(before);
    std::vector<std::int32_t> onGpu, onCpu;
    while (!gpu->finished()) {
      gpu->step();
      cpu->step();
      gpu->snapshot(after);
      cpu->snapshot(cpuAfter);
      ASSERT_EQ(after.centred_centroids, cpuAfter.centred_centroids) << "k " << k;
      gpu->assign(before.centred_centroids, onGpu);
      cpu->assign(before.centred_centroids, onCpu);
      ASSERT_EQ(onGpu, after.labels) << "k " << k << ", iteration " << after.iteration;
      ASSERT_EQ(onCpu, onGpu) << "k " << k << ", iteration " << after.iteration;
      std::swap(before, after);
    }
  }
}

TEST(CudaEngine, SnapshotAtGivesBackEveryIterationLikeTheCpu) {
  KMS_REQUIRE_CUDA();
  const auto points = test::blobPoints(30000, 3, 6, 2, 1.0f, 0.6f);
  auto gpu = cudaEngineOn(points, 3);
  auto cpu = cpuEngineOn(points, 3);
  KMeansConfig config;
  config.k = 12;
  config.tolerance = 0.0;
  config.max_iterations = 20;
  config.keep_history = true;
  gpu->initialize(config);
  cpu->initialize(config);
  gpu->run();
  cpu->run();
  Snapshot a, b;
  for (int t = gpu->iteration(); t >= 0; --t) {
    gpu->snapshotAt(t, a);
    cpu->snapshotAt(t, b);
    ASSERT_EQ(a.centroids, b.centroids) << "iteration " << t;
    ASSERT_EQ(a.centred_centroids, b.centred_centroids) << "iteration " << t;
    ASSERT_EQ(a.labels, b.labels) << "iteration " << t;
    ASSERT_EQ(a.stats.changed, b.stats.changed) << "iteration " << t;
  }
}

TEST(CudaEngine, ReportsTheDevice) {
  KMS_REQUIRE_CUDA();
  auto created = createEngine(BackendKind::Auto);
  EXPECT_EQ(created.kind, BackendKind::Cuda);
  EXPECT_TRUE(created.note.empty());
  const BackendInfo info = created.engine->info();
  EXPECT_EQ(info.backend, "cuda");
  EXPECT_NE(info.device.find(cudaStatus().device), std::string::npos);
}

TEST(CudaEngine, KEqualsOneIsTheMean) {
  KMS_REQUIRE_CUDA();
  const std::vector<float> p = {1, 2, 3, 4, 5, 6, 7, 8};
  auto gpu = cudaEngineOn(p, 2);
  KMeansConfig c;
  c.k = 1;
  gpu->initialize(c);
  gpu->run();
  Snapshot s;
  gpu->snapshot(s);
  EXPECT_EQ(s.centroids, (std::vector<float>{4, 5}));
  EXPECT_DOUBLE_EQ(s.stats.inertia, 40.0);
  EXPECT_TRUE(gpu->converged());
}

TEST(CudaEngine, KEqualsNGivesZeroInertia) {
  KMS_REQUIRE_CUDA();
  const auto p = test::uniformPoints(500, 3, 8);
  auto gpu = cudaEngineOn(p, 3);
  KMeansConfig c;
  c.k = 500;  // 16-bit labels, k-means++ on every point
  gpu->initialize(c);
  const auto last = gpu->run();
  EXPECT_EQ(last.inertia, 0.0);
  EXPECT_TRUE(gpu->converged());
}

TEST(CudaEngine, DuplicatePointsMatchCpu) {
  KMS_REQUIRE_CUDA();
  std::vector<float> p(3 * 1000, 2.5f);
  for (std::size_t i = 0; i < 300; ++i)
    p[3 * i] = -1.0f;  // two distinct locations
  for (auto policy : {EmptyClusterPolicy::KeepCentroid, EmptyClusterPolicy::ReseedFarthest}) {
    auto gpu = cudaEngineOn(p, 3);
    auto cpu = cpuEngineOn(p, 3);
    KMeansConfig c;
    c.k = 5;
    c.empty_clusters = policy;
    gpu->initialize(c);
    cpu->initialize(c);
    for (int it = 0; it < 4; ++it) {
      const auto sg = gpu->step();
      const auto sc = cpu->step();
      EXPECT_EQ(sg.empty_clusters, sc.empty_clusters) << "iteration " << it;
      EXPECT_EQ(sg.inertia, sc.inertia);
      EXPECT_EQ(sg.converged, sc.converged);
    }
    Snapshot g, s;
    gpu->snapshot(g);
    cpu->snapshot(s);
    EXPECT_EQ(g.centroids, s.centroids);
    EXPECT_EQ(g.labels, s.labels);
  }
}

TEST(CudaEngine, EmptyClustersReseedLikeTheCpu) {
  KMS_REQUIRE_CUDA();
  // Several centroids start far from every point: they are empty after the first iteration.
  const auto p = test::uniformPoints(20000, 2, 31, 0.0f, 1.0f);
  std::vector<float> init = {0.2f, 0.2f, 0.8f, 0.8f, 50, 50, 60, 60, -40, 3, 0.5f, 0.5f, 70, -70};
  for (auto policy : {EmptyClusterPolicy::KeepCentroid, EmptyClusterPolicy::ReseedFarthest}) {
    auto gpu = cudaEngineOn(p, 2);
    auto cpu = cpuEngineOn(p, 2);
    KMeansConfig c = givenCentroids(init, 7);
    c.empty_clusters = policy;
    gpu->initialize(c);
    cpu->initialize(c);
    for (int it = 1; it <= 5; ++it) {
      const auto sg = gpu->step();
      const auto sc = cpu->step();
      if (it == 1) EXPECT_EQ(sg.empty_clusters, 4);
      EXPECT_EQ(sg.empty_clusters, sc.empty_clusters) << "iteration " << it;
      EXPECT_NEAR(sg.inertia, sc.inertia, 1e-5 * sc.inertia);
      EXPECT_EQ(static_cast<float>(sg.max_shift), static_cast<float>(sc.max_shift))
          << "iteration " << it;
      Snapshot g, s;
      gpu->snapshot(g);
      cpu->snapshot(s);
      ASSERT_EQ(g.centroids, s.centroids) << "iteration " << it;
      ASSERT_EQ(g.labels, s.labels) << "iteration " << it;
    }
  }
}

TEST(CudaEngine, CapturedSnapshotsAreConsistentWhileIterating) {
  KMS_REQUIRE_CUDA();
  const std::size_t n = 2000000;
  const auto p = test::uniformPoints(n, 3, 77, 0.0f, 1.0f);
  auto gpu = cudaEngineOn(p, 3);
  auto cpu = cpuEngineOn(p, 3);
  KMeansConfig c;
  c.k = 32;
  c.seed = 5;
  c.max_iterations = 40;
  c.tolerance = 0;
  gpu->initialize(c);
  cpu->initialize(c);
  // CPU trajectory for reference, one snapshot per iteration.
  std::vector<Snapshot> reference(1);
  cpu->snapshot(reference[0]);
  while (!cpu->finished()) {
    cpu->step();
    reference.emplace_back();
    cpu->snapshot(reference.back());
  }
  int captured = 0;
  gpu->requestSnapshot();
  while (!gpu->finished()) {
    gpu->step();
    Snapshot s;
    if (gpu->takeCapturedSnapshot(s)) {
      ++captured;
      ASSERT_GE(s.iteration, 1);
      ASSERT_LE(s.iteration, gpu->iteration());
      const Snapshot& ref = reference.at(static_cast<std::size_t>(s.iteration));
      // Labels and centroids of one capture come from the same iteration.
      ASSERT_EQ(s.stats.iteration, s.iteration);
      ASSERT_EQ(s.labels, ref.labels) << "iteration " << s.iteration;
      ASSERT_EQ(s.centroids, ref.centroids) << "iteration " << s.iteration;
      ASSERT_EQ(s.stats.changed, ref.stats.changed);
      gpu->requestSnapshot();
    }
  }
  EXPECT_GT(captured, 3);
}

TEST(CudaEngine, SnapshotBeforeTheFirstIteration) {
  KMS_REQUIRE_CUDA();
  const auto p = test::uniformPoints(1000, 4, 3);
  auto gpu = cudaEngineOn(p, 4);
  KMeansConfig c;
  c.k = 10;
  c.init = InitMethod::Random;
  gpu->initialize(c);
  Snapshot s;
  gpu->snapshot(s);
  EXPECT_EQ(s.iteration, 0);
  EXPECT_TRUE(s.labels.empty());
  EXPECT_EQ(s.centroids.size(), 40u);
}

TEST(CudaEngine, ErrorsMatchTheCpuBackend) {
  KMS_REQUIRE_CUDA();
  auto gpu = createEngine(BackendKind::Cuda).engine;
  EXPECT_THROW(gpu->step(), std::logic_error);
  std::vector<float> nan = {0, 1, std::numeric_limits<float>::quiet_NaN(), 3};
  try {
    gpu->setData(DataView{nan.data(), 2, 2, nullptr});
    FAIL() << "NaN accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("NaN at point 1, coordinate 0"), std::string::npos);
  }
  const auto p = test::uniformPoints(10, 2, 1);
  gpu->setData(DataView{p.data(), 10, 2, nullptr});
  KMeansConfig c;
  c.k = 11;
  EXPECT_THROW(gpu->initialize(c), InvalidArgument);
  c.k = 3;
  EXPECT_NO_THROW(gpu->initialize(c));
  EXPECT_NO_THROW(gpu->step());
}

TEST(CudaEngine, DataLargerThanDeviceAndHostMemoryIsAClearError) {
  KMS_REQUIRE_CUDA();
  auto gpu = createEngine(BackendKind::Cuda).engine;
  const std::vector<float> tiny(64, 1.0f);
  // 2^31 − 1 points of 64 floats (512 GiB): too large for the GPU and for streaming from host
  // memory; refused from the sizes alone, before any read.
  try {
    gpu->setData(DataView{tiny.data(), static_cast<std::size_t>(INT32_MAX), 64, nullptr});
    FAIL() << "no error";
  } catch (const DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("GPU memory"), std::string::npos) << e.what();
  }
  // The engine stays usable.
  const auto p = test::uniformPoints(100, 2, 1);
  gpu->setData(DataView{p.data(), 100, 2, nullptr});
  KMeansConfig c;
  c.k = 4;
  gpu->initialize(c);
  EXPECT_NO_THROW(gpu->run());
}

}  // namespace
}  // namespace kms
