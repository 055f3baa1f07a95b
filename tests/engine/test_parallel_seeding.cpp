// k-means|| seeding (InitMethod::KMeansParallel, common/parallel_seeding.h) on the CPU: what it
// samples, that its starts are as good as greedy k-means++'s where the clusters are clear, that
// neither the thread count nor the split of the rows changes it (test_distributed.cpp runs it on
// 1–4 ranks), and that degenerate data and an interrupt are handled.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <set>

#include "common/exact_math.h"
#include "common/parallel_sampling.h"
#include "common/parallel_seeding.h"
#include "common/seeding.h"
#include "kmeans/backend.h"
#include "kmeans/errors.h"
#include "support/reference_kmeans.h"

namespace kms {
namespace {

struct Finished {
  Snapshot start;  ///< the seeded centroids (iteration 0)
  Snapshot last;
  std::vector<IterationStats> stats;
};

Finished run(const std::vector<float>& points, int d, const KMeansConfig& config, int threads,
             const std::vector<std::uint32_t>* counts = nullptr) {
  auto engine = createCpuEngine(threads);
  DataView view{points.data(), points.size() / std::size_t(d), d};
  if (counts) view.counts = counts->data();
  engine->setData(view);
  engine->initialize(config);
  Finished out;
  engine->snapshot(out.start);
  while (!engine->finished())
    out.stats.push_back(engine->step());
  engine->snapshot(out.last);
  return out;
}

KMeansConfig parallelConfig(int k, std::uint64_t seed = 3) {
  KMeansConfig config;
  config.k = k;
  config.seed = seed;
  config.init = InitMethod::KMeansParallel;
  return config;
}

TEST(ParallelSeeding, SamplingFollowsTheTermAndTheRowAlone) {
  // A row is taken with probability min(1, ℓ·term / potential): always at ℓ·term ≥ potential,
  // never at term 0, and about ℓ·term / potential of the time otherwise — decided by the global
  // row index, so asking twice gives the same answer.
  int taken = 0;
  const int rows = 200000;
  for (int r = 0; r < rows; ++r) {
    EXPECT_TRUE(seeding::sampledInRound(9, 2, std::uint64_t(r), 50, 100, 2.0));
    EXPECT_FALSE(seeding::sampledInRound(9, 2, std::uint64_t(r), 0, 100, 2.0));
    const bool once = seeding::sampledInRound(9, 2, std::uint64_t(r), 1, 1000, 100.0);  // p = 0.1
    EXPECT_EQ(once, seeding::sampledInRound(9, 2, std::uint64_t(r), 1, 1000, 100.0));
    taken += once;
  }
  EXPECT_NEAR(double(taken) / rows, 0.1, 0.003);  // > 4 standard deviations
  // Another round or seed draws other numbers.
  int same = 0;
  for (int r = 0; r < 10000; ++r)
    same += seeding::sampledInRound(9, 2, std::uint64_t(r), 1, 1000, 100.0) ==
            seeding::sampledInRound(9, 3, std::uint64_t(r), 1, 1000, 100.0);
  EXPECT_LT(same, 9000);
}

TEST(ParallelSeeding, FindsEveryWellSeparatedBlobAsGreedyKMeansPlusPlusDoes) {
  // 64 blobs far apart: a start with a centroid in every blob converges to the same optimum.
  const int d = 8, blobs = 64;
  std::vector<float> centres;
  const auto points = test::blobPoints(60000, d, blobs, 11, 40.0f, 1.0f, &centres);
  KMeansConfig greedy = parallelConfig(blobs);
  greedy.init = InitMethod::GreedyKMeansPlusPlus;
  const Finished g = run(points, d, greedy, 2);
  const Finished p = run(points, d, parallelConfig(blobs), 2);
  // Every blob holds a seeded centroid: the nearest blob centre of each seed, all distinct.
  std::set<int> seeded;
  for (int j = 0; j < blobs; ++j) {
    int best = 0;
    double best_d2 = INFINITY;
    for (int b = 0; b < blobs; ++b) {
      double d2 = 0;
      for (int c = 0; c < d; ++c) {
        const double t =
            p.start.centroids[std::size_t(j) * d + c] - centres[std::size_t(b) * d + c];
        d2 += t * t;
      }
      if (d2 < best_d2) best_d2 = d2, best = b;
    }
    EXPECT_LT(best_d2, 25.0 * d) << "seed " << j << " lies between blobs";
    seeded.insert(best);
  }
  EXPECT_EQ(seeded.size(), std::size_t(blobs));
  EXPECT_LE(p.stats.back().inertia, g.stats.back().inertia * 1.0001);
  EXPECT_LE(p.stats.size(), g.stats.size() + 3);
}

TEST(ParallelSeeding, TheThreadCountChangesNothing) {
  const int d = 3;
  const auto points = test::uniformPoints(50000, d, 21);
  for (int k : {5, 40}) {
    KMeansConfig config = parallelConfig(k, 8);
    config.max_iterations = 20;  // uniform data settle slowly; 20 iterations show it
    const Finished one = run(points, d, config, 1);
    const Finished two = run(points, d, config, 2);
    EXPECT_EQ(one.start.centroids, two.start.centroids) << "k = " << k;
    EXPECT_EQ(one.last.centroids, two.last.centroids) << "k = " << k;
    EXPECT_EQ(one.last.labels, two.last.labels) << "k = " << k;
    // And another seed starts elsewhere.
    config.seed = 9;
    EXPECT_NE(run(points, d, config, 2).start.centroids, one.start.centroids);
  }
}

TEST(ParallelSeeding, FewerDistinctRowsThanClustersStillGiveKCentroids) {
  // Three distinct rows, k = 5: every row sits on a candidate after the first rounds (the
  // potential reaches 0); the candidates repeat and the run's empty clusters re-seed.
  const int d = 2;
  std::vector<float> points;
  for (int i = 0; i < 3000; ++i) {
    points.push_back(float(i % 3));
    points.push_back(float(i % 3) * 2.0f);
  }
  const Finished f = run(points, d, parallelConfig(5), 2);
  ASSERT_EQ(f.start.centroids.size(), std::size_t(5 * d));
  for (float v : f.last.centroids)
    EXPECT_TRUE(std::isfinite(v));
  EXPECT_EQ(f.stats.back().inertia, 0.0);
}

TEST(ParallelSeeding, CountedRowsWeighTheirCandidates) {
  // Compact data (distinct rows with counts): a heavy row pulls a centroid onto itself.
  const int d = 2;
  auto points = test::uniformPoints(20000, d, 4);
  std::vector<std::uint32_t> counts(points.size() / d, 1);
  points[0] = 5.0f, points[1] = 5.0f;  // far outside [−1, 1]², a thousand times over
  counts[0] = 1000;
  const Finished f = run(points, d, parallelConfig(6), 2, &counts);
  bool on_heavy_row = false;
  for (int j = 0; j < 6; ++j)
    on_heavy_row = on_heavy_row || (f.last.centroids[std::size_t(j) * d] == 5.0f &&
                                    f.last.centroids[std::size_t(j) * d + 1] == 5.0f);
  EXPECT_TRUE(on_heavy_row);
}

TEST(ParallelSeeding, AnInterruptStopsTheSeeding) {
  const int d = 4;
  const auto points = test::uniformPoints(40000, d, 6);
  auto engine = createCpuEngine(2);
  engine->setData({points.data(), points.size() / std::size_t(d), d});
  std::atomic<bool> stop{true};
  engine->setInterruptFlag(&stop);
  EXPECT_THROW(engine->initialize(parallelConfig(16)), Interrupted);
  stop = false;  // and the engine seeds afresh afterwards
  engine->initialize(parallelConfig(16));
  EXPECT_NO_THROW(engine->step());
}

/// Rows on the host, the seeding's passes written plainly (one row after another): the
/// reference the engines' holders are checked against, and a way to split one process's rows
/// among several holders as the sharded GPU engine does.
class PlainRows final : public seeding::ParallelSeedingRows {
 public:
  PlainRows(const float* centred, std::size_t first, std::size_t n, int d)
      : x_(centred), first_(first), n_(n), d_(d), d2_(n), nearest_(n) {}
  std::size_t firstGlobalRow() const override { return first_; }
  std::size_t rowCount() const override { return n_; }
  void lowerWith(const float* c, std::size_t first, std::size_t count, double scale) override {
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < n_; ++i) {
      for (std::size_t j = 0; j < count; ++j) {
        const float dist = exact::squaredDistance(x_ + i * d_, c + j * d_, d_);
        if ((first == 0 && j == 0) || dist < d2_[i]) d2_[i] = dist, nearest_[i] = first + j;
      }
      sum += std::uint64_t(seeding::potentialTerm(d2_[i], scale));
    }
    potential_ = std::int64_t(sum);
  }
  std::int64_t lowered() override { return potential_; }
  void sampleRound(std::uint64_t seed, int round, std::int64_t potential, double oversampling,
                   double scale) override {
    rows_.clear();
    for (std::size_t i = 0; i < n_; ++i)
      if (seeding::sampledInRound(seed, round, first_ + i, seeding::potentialTerm(d2_[i], scale),
                                  potential, oversampling))
        rows_.push_back(i);
  }
  std::vector<std::size_t> sampled() override { return rows_; }
  void centredRows(const std::vector<std::size_t>& rows, float* out) override {
    for (std::size_t r = 0; r < rows.size(); ++r)
      std::copy_n(x_ + rows[r] * d_, d_, out + r * d_);
  }
  void sumCandidateWeights(std::size_t, double weight_scale) override { scale_ = weight_scale; }
  void addCandidateWeights(std::int64_t* sums) override {
    for (std::size_t i = 0; i < n_; ++i)
      sums[nearest_[i]] += seeding::potentialTerm(1.0f, scale_);
  }
  void release() override {}

 private:
  const float* x_;
  std::size_t first_, n_;
  int d_;
  std::vector<float> d2_;
  std::vector<std::size_t> nearest_;
  std::int64_t potential_ = 0;
  std::vector<std::size_t> rows_;
  double scale_ = 1.0;
};

TEST(ParallelSeeding, HoldersOfAnySplitGiveTheEnginesCentroids) {
  // One process's rows split among 1, 2 or 3 holders (the sharded GPU engine's GPUs) seed alike,
  // and as the CPU engine does on all of them.
  const int d = 6, k = 30;
  const std::size_t n = 30000;
  const auto points = test::blobPoints(n, d, 25, 8, 5.0f, 1.0f);
  const DataSummary summary = summarizeData({points.data(), n, d});
  std::vector<float> centred(points.size());
  for (std::size_t v = 0; v < points.size(); ++v)
    centred[v] = exact::sub(points[v], summary.mid[v % d]);
  auto engine = createCpuEngine(2);
  engine->setData({points.data(), n, d});
  engine->initialize(parallelConfig(k, 4));
  Snapshot start;
  engine->snapshot(start);
  for (const std::vector<std::size_t>& cuts :
       {std::vector<std::size_t>{0, n}, {0, 4096, n}, {0, 100, 20000, n}}) {
    std::vector<std::unique_ptr<PlainRows>> holders;
    std::vector<seeding::ParallelSeedingRows*> rows;
    for (std::size_t h = 0; h + 1 < cuts.size(); ++h) {
      holders.push_back(std::make_unique<PlainRows>(centred.data() + cuts[h] * d, cuts[h],
                                                    cuts[h + 1] - cuts[h], d));
      rows.push_back(holders.back().get());
    }
    seeding::ParallelSeedingReport report;
    const auto seeded =
        seeding::seedKMeansParallel(rows, *soloCollective(), n, summary, k, d, 4, {}, {}, &report);
    EXPECT_EQ(seeded, start.centred_centroids) << holders.size() << " holders";
    EXPECT_EQ(report.rounds, seeding::kParallelRounds);
    EXPECT_GT(report.candidates, std::size_t(4 * k));  // about 2k a round
    EXPECT_LT(report.candidates, std::size_t(16 * k));
  }
}

TEST(ParallelSeeding, IsTheDefaultOnlyForLargeData) {
  // kmeans-cli without --init: k-means|| where greedy k-means++'s k steps cost seconds on GPUs.
  EXPECT_EQ(defaultInitFor(50'000'000, 16, 256, true), InitMethod::KMeansParallel);
  EXPECT_EQ(defaultInitFor(8'000'000, 64, 256, true), InitMethod::KMeansParallel);
  EXPECT_EQ(defaultInitFor(2'000'000, 128, 1024, true), InitMethod::KMeansParallel);
  EXPECT_EQ(defaultInitFor(538'753, 3, 256, true), InitMethod::GreedyKMeansPlusPlus);  // a photo
  EXPECT_EQ(defaultInitFor(1'000'000, 64, 256, true), InitMethod::GreedyKMeansPlusPlus);
  EXPECT_EQ(defaultInitFor(100'000, 128, 1024, true), InitMethod::GreedyKMeansPlusPlus);
  // On the CPU both cost about the same distances: greedy, which starts better.
  EXPECT_EQ(defaultInitFor(50'000'000, 16, 256, false), InitMethod::GreedyKMeansPlusPlus);
}

TEST(ParallelSeeding, IsNamedAndParsed) {
  EXPECT_EQ(parseInitMethod("kmeans||"), InitMethod::KMeansParallel);
  EXPECT_EQ(parseInitMethod("k-means||"), InitMethod::KMeansParallel);
  EXPECT_EQ(parseInitMethod("parallel"), InitMethod::KMeansParallel);
  EXPECT_EQ(toString(InitMethod::KMeansParallel), "kmeans||");
}

}  // namespace
}  // namespace kms
