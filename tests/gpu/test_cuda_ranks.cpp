// GPUs in separate processes (the sharded engine with a Collective; threads stand in for the
// processes here, one GPU each, tests/support/thread_collective.h): the labels, centroids and
// stats of one GPU on all the rows, bit for bit, for uneven shares, every seeding and re-seeds.
// Needs two GPUs (uses every GPU of the machine); skips otherwise.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <thread>
#include <vector>

#include "gpu_test_support.h"
#include "kmeans/backend.h"
#include "kmeans/collective.h"
#include "kmeans/errors.h"
#include "support/starts_check.h"
#include "support/thread_collective.h"

namespace kms::test {
namespace {

struct RankRun {
  std::vector<IterationStats> stats;
  std::vector<std::vector<float>> history;  ///< centroids after each iteration (0: the start)
  std::vector<float> centroids;
  std::vector<std::int32_t> labels;  ///< every rank's, in rank order
  std::string error;
};

RankRun runOn(Engine& engine, KMeansConfig config) {
  RankRun out;
  config.keep_history = true;
  engine.initialize(config);
  while (!engine.finished())
    out.stats.push_back(engine.step());
  Snapshot s;
  for (int t = 0; t <= engine.iteration(); ++t) {
    engine.snapshotAt(t, s);
    out.history.push_back(s.centroids);
  }
  engine.snapshot(s);
  out.centroids = s.centroids;
  out.labels = s.labels;
  return out;
}

/// Rank r on GPU r, rows [bounds[r], bounds[r + 1]).
RankRun runRanks(const std::vector<float>& p, int d, const KMeansConfig& config,
                 const std::vector<std::size_t>& bounds) {
  const int ranks = int(bounds.size()) - 1;
  ThreadWorld world(ranks);
  std::vector<RankRun> runs(static_cast<std::size_t>(ranks));
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      RankRun& out = runs[std::size_t(r)];
      try {
        EngineOptions options;
        options.collective = world.rank(r);
        options.cuda_device = r;
        auto engine = createEngine(BackendKind::Cuda, options).engine;
        const std::size_t first = bounds[std::size_t(r)], last = bounds[std::size_t(r) + 1];
        engine->setData({p.data() + first * d, last - first, d});
        out = runOn(*engine, config);
      } catch (const std::exception& e) {
        out.error = e.what();
      }
    });
  for (auto& t : threads)
    t.join();
  RankRun all = runs[0];
  for (int r = 1; r < ranks; ++r) {
    EXPECT_EQ(runs[std::size_t(r)].error, all.error);
    EXPECT_TRUE(sameFloats(runs[std::size_t(r)].centroids, all.centroids)) << "rank " << r;
    all.labels.insert(all.labels.end(), runs[std::size_t(r)].labels.begin(),
                      runs[std::size_t(r)].labels.end());
  }
  return all;
}

void expectSame(const RankRun& one, const RankRun& ranks, const std::string& what) {
  ASSERT_TRUE(ranks.error.empty()) << what << ": " << ranks.error;
  if (!one.stats.empty() && !ranks.stats.empty())
    EXPECT_EQ(ranks.stats[0].empty_clusters, one.stats[0].empty_clusters)
        << what << ": iteration 1 left " << one.stats[0].empty_clusters << " / "
        << ranks.stats[0].empty_clusters << " clusters empty, inertia " << one.stats[0].inertia
        << " / " << ranks.stats[0].inertia;
  ASSERT_EQ(ranks.stats.size(), one.stats.size()) << what;
  for (std::size_t t = 0; t < one.stats.size(); ++t) {
    EXPECT_EQ(ranks.stats[t].changed, one.stats[t].changed) << what << ", iteration " << t + 1;
    EXPECT_EQ(ranks.stats[t].max_shift, one.stats[t].max_shift) << what;
    EXPECT_EQ(ranks.stats[t].empty_clusters, one.stats[t].empty_clusters) << what;
    EXPECT_NEAR(ranks.stats[t].inertia, one.stats[t].inertia, 1e-9 * std::abs(one.stats[t].inertia))
        << what;
  }
  EXPECT_TRUE(sameFloats(ranks.centroids, one.centroids)) << what;
  EXPECT_EQ(ranks.labels, one.labels) << what;
  // Where they part: the first iteration whose centroids differ, and which values.
  for (std::size_t t = 0; t < one.history.size() && t < ranks.history.size(); ++t) {
    if (sameFloats(one.history[t], ranks.history[t])) continue;
    std::string values;
    for (std::size_t i = 0; i < one.history[t].size(); ++i)
      if (one.history[t][i] != ranks.history[t][i])
        values += std::to_string(i) + ":" + std::to_string(one.history[t][i]) + "/" +
                  std::to_string(ranks.history[t][i]) + " ";
    ADD_FAILURE() << what << ": the centroids first differ after iteration " << t
                  << " (flat index: one / ranks) " << values.substr(0, 600);
    break;
  }
}

int gpus() {
  const CudaStatus status = cudaStatus();
  return status.available ? status.device_count : 0;
}

TEST(CudaRanks, ProcessesOfOneGpuEachGiveOneGpusRunBitForBit) {
  const int ranks = gpus();
  if (ranks < 2) GTEST_SKIP() << "needs two CUDA devices; " << ranks << " here";
  for (const int d : {2, 16, 100}) {
    const std::size_t n = 9 * kShareRowMultiple + 1234;
    const auto p = gaussianBlobs(n, d, 20, 7 + std::uint64_t(d), 1.5f);
    for (InitMethod init :
         {InitMethod::GreedyKMeansPlusPlus, InitMethod::KMeansParallel, InitMethod::Random}) {
      KMeansConfig config;
      config.k = d == 100 ? 40 : 24;
      config.init = init;
      config.seed = 3;
      config.max_iterations = 60;
      EngineOptions one;
      auto single = createEngine(BackendKind::Cuda, one).engine;
      single->setData({p.data(), n, d});
      const RankRun alone = runOn(*single, config);
      std::vector<double> uneven;
      for (int r = 0; r < ranks; ++r)
        uneven.push_back(double(1 + (3 * r) % 4));
      for (const auto& bounds : {shareBoundaries(n, ranks), shareBoundaries(n, ranks, uneven)})
        expectSame(alone, runRanks(p, d, config, bounds),
                   "d = " + std::to_string(d) + ", " + std::string(toString(init)) + ", " +
                       std::to_string(ranks) + " ranks");
    }
  }
}

TEST(CudaRanks, ReseedsAcrossProcessesChooseOneGpusPositions) {
  const int ranks = gpus();
  if (ranks < 2) GTEST_SKIP() << "needs two CUDA devices; " << ranks << " here";
  const int d = 8;
  const std::size_t n = 4 * kShareRowMultiple + 77;
  auto p = gaussianBlobs(n, d, 6, 99, 1.0f);
  for (std::size_t i = 0; i < n; i += 5)  // duplicates on other ranks: ties in the re-seeds
    std::copy_n(&p[((i * 7919) % n) * d], d, &p[i * d]);
  KMeansConfig config;
  config.k = 30;
  config.init = InitMethod::Given;
  config.max_iterations = 8;
  config.initial_centroids.assign(std::size_t(config.k) * d, 0.0f);
  for (int j = 0; j < config.k; ++j)
    for (int c = 0; c < d; ++c)
      config.initial_centroids[std::size_t(j) * d + c] = j < 5 ? float(j - c) : 80.0f + float(j);
  EngineOptions one;
  auto single = createEngine(BackendKind::Cuda, one).engine;
  single->setData({p.data(), n, d});
  {  // The same start, empty clusters kept: the assignment and the sums alone.
    KMeansConfig keep = config;
    keep.empty_clusters = EmptyClusterPolicy::KeepCentroid;
    expectSame(runOn(*single, keep), runRanks(p, d, keep, shareBoundaries(n, ranks)),
               "empty clusters kept");
  }
  const RankRun alone = runOn(*single, config);
  ASSERT_GT(alone.stats.at(0).empty_clusters, 10);
  EngineOptions every;
  every.cuda_all_devices = true;
  auto sharded = createEngine(BackendKind::Cuda, every).engine;
  sharded->setData({p.data(), n, d});
  expectSame(alone, runOn(*sharded, config), "re-seeds, every GPU in one process");
  expectSame(alone, runRanks(p, d, config, shareBoundaries(n, ranks)), "re-seeds");
  // And the CPU backend's run, for good measure.
  auto cpu = createCpuEngine(2);
  cpu->setData({p.data(), n, d});
  const RankRun onCpu = runOn(*cpu, config);
  EXPECT_TRUE(sameFloats(onCpu.centroids, alone.centroids));
  EXPECT_EQ(onCpu.labels, alone.labels);
}

}  // namespace
}  // namespace kms::test
