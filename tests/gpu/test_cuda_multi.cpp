// Several GPUs (the sharded engine): labels, centroids, stats, history and captures
// bit-identical to one GPU on the same data and seed; clear errors for a missing GPU or NCCL.
// The comparisons need two GPUs and skip otherwise; they use every GPU of the machine, so on a
// four-GPU machine they run on four. The error tests need one or none.
#include <gtest/gtest.h>

#include <cmath>

#include <chrono>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gpu_test_support.h"
#include "kmeans/backend.h"
#include "kmeans/errors.h"
#include "kmeans/testing.h"

#if __has_include(<nccl.h>)
#include "cuda/multi/nccl_library.h"
#define KMS_TEST_NCCL 1
#endif

namespace kms::test {
namespace {

#define KMS_REQUIRE_GPUS(count)                                                            \
  do {                                                                                     \
    const ::kms::CudaStatus kms_status_ = ::kms::cudaStatus();                             \
    if (!kms_status_.available || kms_status_.device_count < (count))                      \
      GTEST_SKIP() << "needs " << (count) << " CUDA devices; " << kms_status_.device_count \
                   << " here (" << kms_status_.reason << ")";                              \
  } while (0)

constexpr std::size_t kChunk = 4096;  // shards start at multiples of the sampling chunk

int gpusHere() {
  return cudaStatus().device_count;
}

/// The GPUs a run over every GPU fills with `n` rows: each takes an equal number of whole
/// sampling chunks (the last one fewer), so small data fill fewer GPUs (ShardedEngine::setData).
int gpusFilled(std::size_t n) {
  const std::size_t chunks = (n + kChunk - 1) / kChunk;
  const std::size_t gpus = static_cast<std::size_t>(gpusHere());
  const std::size_t rows_per_gpu = (chunks + gpus - 1) / gpus * kChunk;
  return static_cast<int>((n + rows_per_gpu - 1) / rows_per_gpu);
}

struct EnginePair {
  std::unique_ptr<Engine> one, all;
  /// d ≤ 4 (point tiles), d = 1 (sorted runs on one GPU) or 17 ≤ d ≤ 64 (distance bounds),
  /// without weights: each GPU cuts its
  /// tiles from its own rows, so the rows-searched counts of one GPU and of the shards mean
  /// different things, and the inertia may differ by the float rounding of some rows' distances
  /// (tile moments and tree sums against the CPU's order), relative (d + 2)·2⁻²⁴ at most. 0: the
  /// same work, the inertia equal to its last bits.
  int rounding_d = 0;
};

/// One engine on GPU 0 and one across every GPU, both holding `view`.
EnginePair enginesOn(const DataView& view, TestingOptions options = {}) {
  EnginePair pair;
  pair.one = createEngine(BackendKind::Cuda, options).engine;
  options.cuda_all_devices = true;
  pair.all = createEngine(BackendKind::Cuda, options).engine;
  pair.one->setData(view);
  pair.all->setData(view);
  const bool tiled =
      view.d <= 4 && !view.weights &&
      (options.cuda.point_tiles == PointTiles::Always ||
       (options.cuda.point_tiles == PointTiles::Auto && !view.counts && view.n >= (1u << 22)));
  const bool wide = options.cuda.distance_bounds && view.d > 16 && view.d <= 64 && !view.weights;
  // d = 1 on one GPU: sorted runs, the inertia from exact moments (shards run the compact rows).
  const bool sorted = view.d == 1 && !view.weights && options.cuda.sorted_runs &&
                      options.cuda.point_tiles != PointTiles::Always;
  if (tiled || wide || sorted) pair.rounding_d = view.d;
  return pair;
}

/// Runs both engines side by side: every iteration's stats, centroids (bit for bit) and labels
/// equal. The inertia is a double summed in another order and may differ in its last bits (with
/// tiles: by the float rounding of the distances of the rows one of them looked at one by one,
/// relative (d + 2)·2⁻²⁴ at most).
void expectSameRun(EnginePair& e, const KMeansConfig& config, int iterations) {
  const double inertia_tolerance = e.rounding_d > 0 ? (e.rounding_d + 2) * 6e-8 : 1e-12;
  e.one->initialize(config);
  e.all->initialize(config);
  Snapshot a, b;
  e.one->snapshot(a);
  e.all->snapshot(b);
  ASSERT_EQ(a.centred_centroids, b.centred_centroids) << "initial centroids";
  EXPECT_EQ(a.centroids, b.centroids);
  for (int t = 1; t <= iterations && !e.one->finished(); ++t) {
    const IterationStats sa = e.one->step();
    const IterationStats sb = e.all->step();
    ASSERT_EQ(sa.changed, sb.changed) << "iteration " << t;
    EXPECT_EQ(sa.max_shift, sb.max_shift) << "iteration " << t;
    EXPECT_EQ(sa.empty_clusters, sb.empty_clusters) << "iteration " << t;
    EXPECT_EQ(sa.converged, sb.converged) << "iteration " << t;
    // GPU 0 alone may use another plan.
    if (sa.rows_searched >= 0 && sb.rows_searched >= 0 && e.rounding_d == 0)
      EXPECT_EQ(sa.rows_searched, sb.rows_searched) << "iteration " << t;
    EXPECT_NEAR(sa.inertia, sb.inertia, inertia_tolerance * std::abs(sa.inertia))
        << "iteration " << t;
    EXPECT_GE(sb.ms.communication_ms, 0.0);
    e.one->snapshot(a);
    e.all->snapshot(b);
    ASSERT_EQ(a.iteration, b.iteration);
    ASSERT_EQ(a.centred_centroids, b.centred_centroids) << "iteration " << t;
    ASSERT_EQ(a.centroids, b.centroids) << "iteration " << t;
    ASSERT_EQ(a.labels, b.labels) << "iteration " << t;
  }
  EXPECT_EQ(e.one->finished(), e.all->finished());
}

TEST(CudaMultiGpu, GreedySeedingAndIterationsMatchOneGpu) {
  KMS_REQUIRE_GPUS(2);
  const int d = 16;
  const std::vector<float> p = gaussianBlobs(5 * kChunk + 777, d, 40, 11);  // an uneven split
  EnginePair e = enginesOn(DataView{p.data(), p.size() / d, d});
  EXPECT_EQ(e.all->info().devices, gpusFilled(p.size() / d));
  KMeansConfig config;
  config.k = 64;
  config.init = InitMethod::GreedyKMeansPlusPlus;
  config.seed = 7;
  config.tolerance = 0;
  expectSameRun(e, config, 15);
}

// Every GPU of the machine holds rows, and each runs its part on its own memory. Four GPUs had
// crashed here (an illegal address in the compact geometry kernel): the run's bounds and
// geometry were allocated, and their kernel launched, on whichever GPU the seeding had left
// current, which worked only where NCCL had enabled peer access between the two — ring
// neighbours, so any two or three GPUs but not four. The ctest entry gpu_multi_without_peer_access
// runs this suite with NCCL's peer-to-peer path off, so that two GPUs catch it too.
TEST(CudaMultiGpu, EveryGpuOfTheMachineHoldsRowsAndMatchesOneGpu) {
  KMS_REQUIRE_GPUS(2);
  const int d = 16;
  const int gpus = gpusHere();
  const std::size_t n = 3 * kChunk * static_cast<std::size_t>(gpus) - 1234;  // uneven shares
  const std::vector<float> p = gaussianBlobs(n, d, 300, 29);
  EnginePair e = enginesOn(DataView{p.data(), n, d});
  ASSERT_EQ(gpusFilled(n), gpus);
  EXPECT_EQ(e.all->info().devices, gpus) << e.all->info().device;
  KMeansConfig config;
  config.k = 256;  // the compact kernels with the spread geometry (k ≥ 64), 8-bit labels
  config.init = InitMethod::GreedyKMeansPlusPlus;
  config.seed = 31;
  config.tolerance = 0;
  config.empty_clusters = EmptyClusterPolicy::ReseedFarthest;
  expectSameRun(e, config, 12);
  // A second run on the same engines (buffers kept from the first), with 16-bit labels.
  config.k = 300;
  config.seed = 32;
  expectSameRun(e, config, 6);
}

TEST(CudaMultiGpu, PlusPlusWithWeightsMatchesOneGpu) {
  KMS_REQUIRE_GPUS(2);
  const int d = 5;
  const std::vector<float> p = gaussianBlobs(7 * kChunk + 1, d, 12, 3);
  std::vector<float> w(p.size() / d);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> weight(0.1f, 3.0f);
  for (auto& x : w)
    x = weight(rng);
  EnginePair e = enginesOn(DataView{p.data(), p.size() / d, d, w.data()});
  KMeansConfig config;
  config.k = 24;
  config.init = InitMethod::KMeansPlusPlus;
  config.seed = 3;
  expectSameRun(e, config, 30);
}

TEST(CudaMultiGpu, CountsWithRandomStartMatchOneGpu) {
  KMS_REQUIRE_GPUS(2);
  const int d = 3;
  const std::vector<float> p = gaussianBlobs(4 * kChunk + 300, d, 10, 8);
  std::vector<std::uint32_t> counts(p.size() / d);
  std::mt19937 rng(9);
  for (auto& c : counts)
    c = 1 + rng() % 50;
  EnginePair e = enginesOn(DataView{p.data(), p.size() / d, d, nullptr, counts.data()});
  KMeansConfig config;
  config.k = 16;
  config.init = InitMethod::Random;
  config.seed = 21;
  expectSameRun(e, config, 20);
}

TEST(CudaMultiGpu, EmptyClustersReseedTheSameFarthestPositionsAcrossGpus) {
  KMS_REQUIRE_GPUS(2);
  // Points within radius 4 of the origin; three centroids far away stay empty and are re-seeded
  // at the farthest positions, all at distance 16: (−4, 0) twice (once on each GPU), (0, −4) on
  // the second GPU, (0, 4) on the first and (4, 0) on the second. The order by coordinates
  // decides: (−4, 0), (0, −4), (0, 4) — each GPU sees only part of them.
  const int d = 2;
  const std::size_t n = 2 * kChunk + 100;
  std::vector<float> p(n * d);
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> near(-2.0f, 2.0f);
  for (auto& x : p)
    x = near(rng);
  const auto put = [&](std::size_t i, float x, float y) {
    p[i * d] = x;
    p[i * d + 1] = y;
  };
  put(10, -4.0f, 0.0f);
  put(20, 0.0f, 4.0f);
  put(kChunk * 2 + 5, -4.0f, 0.0f);
  put(kChunk * 2 + 6, 4.0f, 0.0f);
  put(kChunk * 2 + 7, 0.0f, -4.0f);
  EnginePair e = enginesOn(DataView{p.data(), n, d});
  EXPECT_EQ(e.all->info().devices, gpusFilled(n));  // the positions lie on the first and last
  KMeansConfig config = givenCentroids({0, 0, 100, 100, 200, 200, 300, 300}, 4);
  config.empty_clusters = EmptyClusterPolicy::ReseedFarthest;
  e.one->initialize(config);
  e.all->initialize(config);
  const IterationStats sa = e.one->step(), sb = e.all->step();
  EXPECT_EQ(sa.empty_clusters, 3);
  EXPECT_EQ(sb.empty_clusters, 3);
  Snapshot a, b;
  e.one->snapshot(a);
  e.all->snapshot(b);
  EXPECT_EQ(a.centroids, b.centroids);
  const std::vector<float> reseeded(b.centroids.begin() + 2, b.centroids.end());
  EXPECT_EQ(reseeded, (std::vector<float>{-4, 0, 0, -4, 0, 4}));
  expectSameRun(e, config, 8);
}

TEST(CudaMultiGpu, TensorCoresAndSixteenBitLabelsMatchOneGpu) {
  KMS_REQUIRE_GPUS(2);
  const int d = 40;
  const std::vector<float> p = gaussianBlobs(3 * kChunk + 5, d, 200, 17);
  EnginePair e = enginesOn(DataView{p.data(), p.size() / d, d});
  KMeansConfig config;
  config.k = 300;
  config.init = InitMethod::KMeansPlusPlus;
  config.seed = 2;
  config.tolerance = 0;
  expectSameRun(e, config, 6);
}

TEST(CudaMultiGpu, StreamedFromHostMemoryMatchesOneGpu) {
  KMS_REQUIRE_GPUS(2);
  const int d = 8;
  const std::vector<float> p = gaussianBlobs(6 * kChunk + 99, d, 20, 5);
  TestingOptions streamed;
  streamed.max_device_bytes = 1;  // nothing fits: every GPU streams its rows from host memory
  EnginePair e = enginesOn(DataView{p.data(), p.size() / d, d}, streamed);
  EXPECT_NE(e.all->info().device.find("streamed"), std::string::npos) << e.all->info().device;
  KMeansConfig config;
  config.k = 32;
  config.seed = 4;
  expectSameRun(e, config, 6);
}

// 17 ≤ d ≤ 64, k ≤ 256: one GPU and the shards on the wide kernels (a bound per row, the update
// from the all-reduced totals) — the same run, re-seeding included.
TEST(CudaMultiGpu, WideRowsWithBoundsMatchOneGpu) {
  KMS_REQUIRE_GPUS(2);
  const int d = 24;
  const std::vector<float> p = gaussianBlobs(8 * kChunk + 321, d, 30, 19);
  EnginePair e = enginesOn(DataView{p.data(), p.size() / d, d});
  KMeansConfig config;
  config.k = 60;
  config.seed = 12;
  config.tolerance = 0;
  config.init = InitMethod::GreedyKMeansPlusPlus;
  config.empty_clusters = EmptyClusterPolicy::ReseedFarthest;
  expectSameRun(e, config, 25);
}

// Point tiles on one GPU and on every GPU (each cuts its tiles from its own rows and takes its
// tiles' inertia before the all-reduce): a picture-like point set whose tiles settle, with
// re-seeding — the same run.
TEST(CudaMultiGpu, PointTilesOnOneGpuMatchTheShards) {
  KMS_REQUIRE_GPUS(2);
  const int d = 3;
  std::vector<float> p = gaussianBlobs(9 * kChunk + 123, d, 14, 23);
  for (float& v : p)  // a photo's repeats: coordinates on a grid of 1/32
    v = std::round(v * 32.0f) / 32.0f;
  TestingOptions options;
  options.cuda.point_tiles = PointTiles::Always;
  EnginePair e = enginesOn(DataView{p.data(), p.size() / d, d}, options);
  KMeansConfig config;
  config.k = 40;
  config.seed = 9;
  config.tolerance = 0;
  config.empty_clusters = EmptyClusterPolicy::ReseedFarthest;
  expectSameRun(e, config, 25);
}

// d > 64: the high-dimensional family on one GPU and on every GPU (each sums its own rows'
// changes; the update reads the all-reduced totals), with re-seeding — the same run.
TEST(CudaMultiGpu, HighDimensionalRowsMatchOneGpu) {
  KMS_REQUIRE_GPUS(2);
  const int d = 96;
  const std::vector<float> p = gaussianBlobs(5 * kChunk + 91, d, 30, 41);
  EnginePair e = enginesOn(DataView{p.data(), p.size() / d, d});
  KMeansConfig config;
  config.k = 40;
  config.seed = 6;
  config.tolerance = 0;
  config.init = InitMethod::GreedyKMeansPlusPlus;
  config.empty_clusters = EmptyClusterPolicy::ReseedFarthest;
  expectSameRun(e, config, 8);
}

TEST(CudaMultiGpu, SmallDataRunOnOneOfTheGpus) {
  KMS_REQUIRE_GPUS(2);
  const int d = 3;
  const std::vector<float> p = gaussianBlobs(1000, d, 5, 1);  // fewer rows than one sampling chunk
  EnginePair e = enginesOn(DataView{p.data(), p.size() / d, d});
  EXPECT_EQ(e.all->info().devices, 1) << e.all->info().device;
  KMeansConfig config;
  config.k = 5;
  expectSameRun(e, config, 10);
}

TEST(CudaMultiGpu, HistoryAndBackgroundCapturesMatchOneGpu) {
  KMS_REQUIRE_GPUS(2);
  const int d = 4;
  const std::vector<float> p = gaussianBlobs(3 * kChunk + 11, d, 9, 6);
  EnginePair e = enginesOn(DataView{p.data(), p.size() / d, d});
  KMeansConfig config;
  config.k = 9;
  config.seed = 5;
  config.tolerance = 0;
  config.keep_history = true;
  e.one->initialize(config);
  e.all->initialize(config);
  for (int t = 0; t < 3; ++t) {
    e.one->step();
    e.all->step();
  }
  e.all->requestSnapshot();
  Snapshot captured;
  bool taken = false;
  for (int t = 0; t < 4; ++t) {
    e.one->step();
    e.all->step();
    taken = taken || e.all->takeCapturedSnapshot(captured);
  }
  for (int wait = 0; wait < 200 && !taken; ++wait) {  // the copy runs in the background
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
    taken = e.all->takeCapturedSnapshot(captured);
  }
  ASSERT_TRUE(taken);
  EXPECT_EQ(captured.iteration, 4);
  Snapshot a, b;
  e.one->snapshotAt(captured.iteration, a);
  EXPECT_EQ(captured.labels, a.labels);
  EXPECT_EQ(captured.centroids, a.centroids);
  for (int t = 0; t <= e.one->iteration(); ++t) {
    e.one->snapshotAt(t, a);
    e.all->snapshotAt(t, b);
    EXPECT_EQ(a.centroids, b.centroids) << "iteration " << t;
    EXPECT_EQ(a.labels, b.labels) << "iteration " << t;
  }
  std::vector<std::int32_t> la, lb;
  e.one->assign(a.centred_centroids, la);
  e.all->assign(b.centred_centroids, lb);
  EXPECT_EQ(la, lb);
}

TEST(CudaMultiGpu, AMissingGpuIsNamed) {
  KMS_REQUIRE_CUDA();
  TestingOptions options;
  options.cuda_devices = {0, 64};
  try {
    createEngine(BackendKind::Cuda, options);
    FAIL() << "GPU 64 does not exist";
  } catch (const DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("CUDA device 64 does not exist"), std::string::npos)
        << e.what();
  }
}

TEST(CudaMultiGpu, AGpuListedTwiceIsAnError) {
  KMS_REQUIRE_CUDA();
  TestingOptions options;
  options.cuda_devices = {0, 0};
  try {
    createEngine(BackendKind::Cuda, options);
    FAIL() << "GPU 0 listed twice";
  } catch (const DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("listed twice"), std::string::npos) << e.what();
  }
}

TEST(CudaMultiGpu, AMissingNcclLibraryIsNamed) {
  KMS_REQUIRE_GPUS(2);
  setenv("KMS_NCCL_LIBRARY", "/nonexistent/libnccl.so.2", 1);
  TestingOptions options;
  options.cuda_all_devices = true;
  std::string message;
  try {
    createEngine(BackendKind::Cuda, options);
  } catch (const DeviceError& e) {
    message = e.what();
  }
  unsetenv("KMS_NCCL_LIBRARY");
  EXPECT_NE(message.find("/nonexistent/libnccl.so.2"), std::string::npos) << message;
}

#if KMS_TEST_NCCL
TEST(NcclLibrary, AMissingLibraryIsNamedWithTheLoadersReason) {
  try {
    cuda::loadNcclLibrary("/nonexistent/libnccl.so.2");
    FAIL() << "loaded a library that does not exist";
  } catch (const DeviceError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find("/nonexistent/libnccl.so.2"), std::string::npos) << message;
    EXPECT_NE(message.find("could not be loaded"), std::string::npos) << message;
    EXPECT_NE(message.find("KMS_NCCL_LIBRARY"), std::string::npos) << message;
  }
}

TEST(NcclLibrary, ALibraryWithoutNcclIsRefused) {
  // A shared library that exists but is not NCCL (the C library): named, with the missing entry.
  try {
    cuda::loadNcclLibrary("libc.so.6");
    FAIL() << "libc accepted as NCCL";
  } catch (const DeviceError& e) {
    EXPECT_NE(std::string(e.what()).find("libc.so.6 has no ncclCommInitAll"), std::string::npos)
        << e.what();
  }
}
#endif

}  // namespace
}  // namespace kms::test
