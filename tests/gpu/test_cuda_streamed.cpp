// Data that do not fit in GPU memory stay in page-locked host memory and stream to the GPU every
// iteration (EngineOptions::max_device_bytes makes any data "too large"): copied a chunk at a
// time through two device buffers on the compact and wide kernels, read in place by the others.
// The streamed run must be the in-memory run exactly: labels, centroids, inertia, every
// iteration, for every kernel family (compact, point-per-thread, tiled, generic), in chunks
// that do not divide the rows and read in place, seeding, re-seeding, snapshots and replays. A
// device that is full when the data arrive streams them too.
#include <gtest/gtest.h>

#if KMS_HAVE_CUDA
#include <cuda_runtime.h>
#endif

#include <cstdio>
#include <string>
#include <tuple>
#include <utility>

#include "gpu_test_support.h"
#include "kmeans/errors.h"
#include "kmeans/testing.h"
#include "support/compact_data.h"

namespace kms {
namespace {

struct StreamCase {
  const char* name;
  int d;
  int k;
  bool weighted;
  bool counted;
  InitMethod init;
  bool reseed;
};

/// An engine giving the data at most `max_device_bytes` (0: what is free), streamed data copied
/// in chunks of `chunk_bytes` (0: read in place).
std::unique_ptr<Engine> cudaEngine(
    std::size_t max_device_bytes,
    std::size_t chunk_bytes = TestingOptions{}.cuda.stream_chunk_bytes) {
  TestingOptions options;
  options.max_device_bytes = max_device_bytes;
  options.cuda.stream_chunk_bytes = chunk_bytes;
  // Streamed data have no point tiles or sorted runs (their sorted copy would need the device
  // memory they do not fit in); the in-memory run looks at every row too, so both run the same
  // kernels.
  options.cuda.point_tiles = PointTiles::Never;
  options.cuda.sorted_runs = false;  // the same reason, for d = 1
  return createEngine(BackendKind::Cuda, options).engine;
}

bool streamed(const Engine& e) {
  return e.info().device.find("streamed from host memory") != std::string::npos;
}

/// How the streamed engine of a case reads its data: copied in chunks of a seventh of the
/// data's bytes (a last chunk shorter than the others); the same with the GPU giving the data
/// half their size, so that the first chunks stay there and the rest are copied; or in place.
enum class Reading { Chunks, SomeKept, InPlace };

bool copiedInChunks(const Engine& e) {
  return e.info().device.find("copied in chunks") != std::string::npos;
}

/// The chunks an engine keeps on the GPU and the data's chunks, from its device description
/// ("(K of C kept on the GPU)"); {-1, -1} when it copies none.
std::pair<int, int> keptChunks(const Engine& e) {
  const std::string text = e.info().device;
  int kept = -1, chunks = -1;
  const std::size_t at = text.find(" kept on the GPU");
  if (at == std::string::npos) return {kept, chunks};
  const std::size_t open = text.rfind('(', at);
  std::sscanf(text.c_str() + open, "(%d of %d", &kept, &chunks);
  return {kept, chunks};
}

class StreamedEqualsInMemory : public ::testing::TestWithParam<std::tuple<StreamCase, Reading>> {};

TEST_P(StreamedEqualsInMemory, EveryIteration) {
  KMS_REQUIRE_CUDA();
  const StreamCase c = std::get<0>(GetParam());
  const Reading reading = std::get<1>(GetParam());
  std::vector<float> p = c.counted ? test::levelPoints(300000, c.d, 12, 3)
                                   : test::uniformPoints(150000, c.d, 7 + c.d, -1.0f, 2.0f);
  std::vector<float> w;
  if (c.weighted) w = test::uniformPoints(p.size() / c.d, 1, 9, 0.0f, 3.0f);
  test::CompactData compact;
  DataView view{p.data(), p.size() / c.d, c.d, c.weighted ? w.data() : nullptr};
  if (c.counted) {
    compact = test::compactOf(p, c.d);
    view = compact.view();
  }
  const std::size_t data_bytes =
      view.n * (view.d * sizeof(float) + (view.weights ? 4 : 0) + (view.counts ? 4 : 0));
  auto in_memory = cudaEngine(0);
  auto from_host = cudaEngine(reading == Reading::SomeKept ? data_bytes / 2 : 1,
                              reading == Reading::InPlace ? 0 : data_bytes / 7);
  in_memory->setData(view);
  from_host->setData(view);
  ASSERT_FALSE(streamed(*in_memory)) << in_memory->info().device;
  ASSERT_TRUE(streamed(*from_host)) << from_host->info().device;
  KMeansConfig config;
  config.k = c.k;
  config.init = c.init;
  config.seed = 21;
  config.tolerance = 0;
  config.max_iterations = 25;
  config.empty_clusters =
      c.reseed ? EmptyClusterPolicy::ReseedFarthest : EmptyClusterPolicy::KeepCentroid;
  if (c.reseed) {  // start a third of the centroids far away, so clusters empty and re-seed
    auto start = test::uniformPoints(std::size_t(c.k), c.d, 5, 0.0f, 1.0f);
    for (int j = 0; j < c.k; j += 3)
      start[std::size_t(j) * c.d] += 50.0f;
    config = test::givenCentroids(start, c.k);
    config.max_iterations = 25;
    config.empty_clusters = EmptyClusterPolicy::ReseedFarthest;
  }
  in_memory->initialize(config);
  from_host->initialize(config);
  // The compact and wide kernels (no weights) copy the rows in chunks; the others read in place.
  EXPECT_EQ(copiedInChunks(*from_host), reading != Reading::InPlace && !c.weighted)
      << from_host->info().device;
  if (copiedInChunks(*from_host)) {
    const auto [kept, chunks] = keptChunks(*from_host);
    EXPECT_GE(chunks, 7) << from_host->info().device;
    if (reading == Reading::SomeKept) {  // about half of them
      EXPECT_GT(kept, 0) << from_host->info().device;
      EXPECT_LT(kept, chunks) << from_host->info().device;
    } else {
      EXPECT_EQ(kept, 0) << from_host->info().device;
    }
  }
  for (int it = 1; it <= 25; ++it) {
    if (it % 6 == 0) {  // captured snapshots take the other label half for one iteration
      in_memory->requestSnapshot();
      from_host->requestSnapshot();
    }
    const IterationStats a = in_memory->step();
    const IterationStats b = from_host->step();
    // Copied in chunks, the kernels' blocks sum other rows' distances in double: the inertia
    // may differ in its last bits (labels and centroids, integer sums, may not).
    if (reading == Reading::InPlace)
      ASSERT_EQ(a.inertia, b.inertia) << "iteration " << it;
    else
      ASSERT_NEAR(a.inertia, b.inertia, 1e-12 * a.inertia) << "iteration " << it;
    ASSERT_EQ(a.changed, b.changed) << "iteration " << it;
    ASSERT_EQ(a.empty_clusters, b.empty_clusters) << "iteration " << it;
    Snapshot sa, sb;
    in_memory->snapshot(sa);
    from_host->snapshot(sb);
    ASSERT_EQ(sa.labels, sb.labels) << "iteration " << it;
    ASSERT_EQ(sa.centroids, sb.centroids) << "iteration " << it;
  }
  // Replaying labels for given centroids (the history view) reads the streamed points too.
  Snapshot last;
  in_memory->snapshot(last);
  std::vector<std::int32_t> la, lb;
  in_memory->assign(last.centred_centroids, la);
  from_host->assign(last.centred_centroids, lb);
  EXPECT_EQ(la, lb);
}

std::string streamName(const ::testing::TestParamInfo<std::tuple<StreamCase, Reading>>& info) {
  const Reading reading = std::get<1>(info.param);
  return std::string(std::get<0>(info.param).name) + (reading == Reading::Chunks     ? "_chunks"
                                                      : reading == Reading::SomeKept ? "_some_kept"
                                                                                     : "_in_place");
}

INSTANTIATE_TEST_SUITE_P(
    Kernels, StreamedEqualsInMemory,
    ::testing::Combine(
        ::testing::Values(
            StreamCase{"pixels_d3_k16_kmeanspp", 3, 16, false, false, InitMethod::KMeansPlusPlus,
                       false},
            StreamCase{"pixels_d3_k300_reseed", 3, 300, false, false, InitMethod::Given, true},
            StreamCase{"weighted_d3_k24_greedy", 3, 24, true, false,
                       InitMethod::GreedyKMeansPlusPlus, false},
            StreamCase{"weighted_d9_k40_random", 9, 40, true, false, InitMethod::Random, false},
            StreamCase{"counts_d2_k20_kmeanspp", 2, 20, false, true, InitMethod::KMeansPlusPlus,
                       false},
            StreamCase{"counts_d7_k12_reseed", 7, 12, false, true, InitMethod::Given, true},
            StreamCase{"d64_k32_random", 64, 32, false, false, InitMethod::Random, false}),
        ::testing::Values(Reading::Chunks, Reading::SomeKept, Reading::InPlace)),
    streamName);

#if KMS_HAVE_CUDA  // the test takes device memory itself
// A device with too little free memory for the data (another program holds the rest): the data
// stream from host memory instead of failing, and the run is the same.
TEST(CudaStreamed, AFullDeviceStreamsTheDataInstead) {
  KMS_REQUIRE_CUDA();
  const auto p = test::uniformPoints(400000, 16, 4);  // 25.6 MB of points
  auto reference = cudaEngine(0);
  reference->setData(DataView{p.data(), 400000, 16});
  auto engine = cudaEngine(0);
  // Take all but 24 MiB of the device's free memory, as another program might.
  std::size_t free_bytes = 0, total_bytes = 0;
  ASSERT_EQ(cudaMemGetInfo(&free_bytes, &total_bytes), cudaSuccess);
  struct Hog {
    void* p = nullptr;
    ~Hog() {
      if (p) cudaFree(p);
    }
  } hog;
  const std::size_t keep = std::size_t(24) << 20;
  ASSERT_GT(free_bytes, keep);
  const cudaError_t taken = cudaMalloc(&hog.p, free_bytes - keep);
  if (taken != cudaSuccess) {
    cudaGetLastError();  // clear it (this test's own CUDA runtime keeps it until read)
    GTEST_SKIP() << "could not take the device's free memory: " << cudaGetErrorString(taken);
  }
  engine->setData(DataView{p.data(), 400000, 16});
  EXPECT_TRUE(streamed(*engine)) << engine->info().device;
  KMeansConfig config;
  config.k = 50;
  config.seed = 3;
  config.max_iterations = 10;
  config.tolerance = 0;
  reference->initialize(config);
  engine->initialize(config);
  // Chunk buffers cut to a quarter of what is free still leave the run its copies.
  EXPECT_TRUE(copiedInChunks(*engine)) << engine->info().device;
  for (int it = 0; it < 10; ++it) {
    const double expected = reference->step().inertia;
    EXPECT_NEAR(engine->step().inertia, expected, 1e-12 * expected);  // summed by other blocks
  }
  Snapshot a, b;
  reference->snapshot(a);
  engine->snapshot(b);
  EXPECT_EQ(a.labels, b.labels);
  EXPECT_EQ(a.centroids, b.centroids);
}

#endif

}  // namespace
}  // namespace kms
