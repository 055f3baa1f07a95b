// k-means|| on the CUDA engine (cuda_engine_parallel_seeding.cu) picks the rows the CPU engine
// picks: the same starting centroids bit for bit and so the same run — points held in registers
// (d ≤ 32) and read from memory (d = 100), counted rows, weights, and a round's candidates over
// several shared-memory tiles (k = 3,000: 6,000 a round).
#include <gtest/gtest.h>

#include <string>

#include "gpu_test_support.h"
#include "kmeans/backend.h"
#include "support/compact_data.h"
#include "support/reference_kmeans.h"

namespace kms {
namespace {

struct Ends {
  std::vector<float> start, last;
  std::vector<std::int32_t> labels;
  std::vector<IterationStats> stats;
};

Ends runTo(Engine& engine, const DataView& view, const KMeansConfig& config) {
  engine.setData(view);
  engine.initialize(config);
  Ends out;
  Snapshot s;
  engine.snapshot(s);
  out.start = s.centroids;
  while (!engine.finished())
    out.stats.push_back(engine.step());
  engine.snapshot(s);
  out.last = s.centroids;
  out.labels = s.labels;
  return out;
}

void expectSameOnBoth(const DataView& view, int k, std::uint64_t seed, const std::string& what,
                      int max_iterations = 25) {
  KMeansConfig config;
  config.k = k;
  config.seed = seed;
  config.init = InitMethod::KMeansParallel;
  config.max_iterations = max_iterations;
  auto gpu = createEngine(BackendKind::Cuda).engine;
  auto cpu = createCpuEngine(0);
  const Ends g = runTo(*gpu, view, config);
  const Ends c = runTo(*cpu, view, config);
  EXPECT_EQ(g.start, c.start) << what << ": the seeded centroids differ";
  EXPECT_EQ(g.last, c.last) << what;
  EXPECT_EQ(g.labels, c.labels) << what;
  ASSERT_EQ(g.stats.size(), c.stats.size()) << what;
  for (std::size_t t = 0; t < g.stats.size(); ++t)
    EXPECT_EQ(g.stats[t].changed, c.stats[t].changed) << what << ", iteration " << t + 1;
}

TEST(CudaParallelSeeding, PointsPickTheCpusRows) {
  KMS_REQUIRE_CUDA();
  for (const int d : {2, 16, 32, 100}) {
    const std::size_t n = 70000 + 13;
    const auto p = test::gaussianBlobs(n, d, 30, 5 + std::uint64_t(d), 1.5f);
    expectSameOnBoth({p.data(), n, d}, d == 100 ? 40 : 50, 7, "d = " + std::to_string(d));
  }
}

TEST(CudaParallelSeeding, CountedAndWeightedRowsPickTheCpusRows) {
  KMS_REQUIRE_CUDA();
  const auto expanded = test::levelPoints(200000, 3, 24, 12);
  const test::CompactData data = test::compactOf(expanded, 3);
  expectSameOnBoth(data.view(), 64, 3, "counted rows");
  const int d = 5;
  const auto p = test::uniformPoints(40000, d, 8);
  std::vector<float> w(p.size() / d);
  for (std::size_t i = 0; i < w.size(); ++i)
    w[i] = 0.25f * float(1 + (i * 2654435761u) % 13);
  DataView view{p.data(), w.size(), d};
  view.weights = w.data();
  expectSameOnBoth(view, 20, 11, "weighted rows");
}

TEST(CudaParallelSeeding, ManyCandidatesARoundSpanSeveralTiles) {
  KMS_REQUIRE_CUDA();
  const int d = 24;  // 11,264 / 24 = 469 candidates a tile; ~6,000 a round
  const std::size_t n = 60000;
  const auto p = test::gaussianBlobs(n, d, 400, 77, 2.0f);
  expectSameOnBoth({p.data(), n, d}, 3000, 2, "k = 3,000", 3);
}

}  // namespace
}  // namespace kms
