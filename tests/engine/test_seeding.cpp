// Deterministic seeding helpers, the thread pool, and the CPU engine's pruned k-means++ against a
// full pass over every row at every step.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <set>
#include <stdexcept>

#include "common/constants.h"
#include "common/exact_math.h"
#include "common/seeding.h"
#include "common/thread_pool.h"
#include "kmeans/backend.h"
#include "kmeans/engine.h"
#include "support/compact_data.h"
#include "support/reference_kmeans.h"

namespace kms {
namespace {

TEST(Seeding, DistinctIndicesAreDistinctInRangeAndRepeatable) {
  for (int k : {1, 5, 100, 1000}) {
    const auto a = seeding::distinctIndices(1000, k, 7);
    const auto b = seeding::distinctIndices(1000, k, 7);
    EXPECT_EQ(a, b);
    std::set<std::size_t> s(a.begin(), a.end());
    EXPECT_EQ(s.size(), static_cast<std::size_t>(k));
    EXPECT_LT(*s.rbegin(), 1000u);
  }
  EXPECT_NE(seeding::distinctIndices(1000, 10, 1), seeding::distinctIndices(1000, 10, 2));
}

TEST(Seeding, UniformIsInUnitIntervalAndSpread) {
  double sum = 0;
  for (int i = 0; i < 10000; ++i) {
    const double u = seeding::uniform(3, 4, i);
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
  }
  EXPECT_NEAR(sum / 10000, 0.5, 0.02);
  EXPECT_EQ(seeding::plusPlusUniform(9, 3), seeding::plusPlusUniform(9, 3));
}

TEST(Seeding, PickChunkFindsTheChunkHoldingTheDraw) {
  const std::vector<double> sums = {1.0, 0.0, 3.0};
  auto p = seeding::pickChunk(sums, 0.1);  // target 0.4 lies in chunk 0
  EXPECT_EQ(p.chunk, 0);
  EXPECT_DOUBLE_EQ(p.target, 0.4);
  p = seeding::pickChunk(sums, 0.5);  // target 2.0: past chunk 0 (1.0), chunk 1 is empty
  EXPECT_EQ(p.chunk, 2);
  EXPECT_DOUBLE_EQ(p.target, 1.0);
  EXPECT_EQ(seeding::pickChunk({0.0, 0.0}, 0.3).chunk, -1);
}

TEST(ThreadPool, RunsEveryTaskOnceAndRethrows) {
  ThreadPool pool(4);
  EXPECT_EQ(pool.size(), 4);
  for (int round = 0; round < 50; ++round) {
    std::vector<std::atomic<int>> hits(257);
    pool.parallelFor(hits.size(), [&](std::size_t t, int worker) {
      ASSERT_GE(worker, 0);
      ASSERT_LT(worker, 4);
      hits[t]++;
    });
    for (auto& h : hits)
      ASSERT_EQ(h.load(), 1);
  }
  EXPECT_THROW(pool.parallelFor(10,
                                [](std::size_t t, int) {
                                  if (t == 5) throw std::runtime_error("boom");
                                }),
               std::runtime_error);
  std::atomic<int> after{0};
  pool.parallelFor(3, [&](std::size_t, int) { after++; });
  EXPECT_EQ(after.load(), 3);
}

/// k-means++ (greedy or plain) as one full pass over every row at every step: what the CPU
/// engine's pruned seeding (cpu_seeding.cpp) must reproduce bit for bit. Centred centroids.
std::vector<float> fullPassSeeding(const DataView& data, int k, std::uint64_t seed, bool greedy) {
  const std::size_t n = data.n;
  const int d = data.d;
  const DataSummary summary = summarizeData(data);
  std::vector<float> x(n * std::size_t(d));
  for (std::size_t i = 0; i < n; ++i)
    for (int c = 0; c < d; ++c)
      x[i * d + c] = exact::sub(data.points[i * d + c], summary.mid[std::size_t(c)]);
  const bool scaled = data.weights || data.counts;
  const auto weight = [&](std::size_t i) {
    return data.weights ? data.weights[i] : data.counts ? float(data.counts[i]) : 1.0f;
  };
  std::vector<float> d2(n, 0.0f), centroids(std::size_t(k) * d);
  const auto mass = [&](std::size_t i, int j) {
    return j == 0 ? weight(i) : scaled ? exact::mul(weight(i), d2[i]) : d2[i];
  };
  const std::size_t chunks = (n + kSamplingChunk - 1) / kSamplingChunk;
  std::vector<double> sums(chunks);
  const auto draw = [&](int j, double u) -> std::size_t {
    const seeding::ChunkPick pick = seeding::pickChunk(sums, u);
    if (pick.chunk < 0) return std::min(n - 1, std::size_t(u * double(n)));
    const std::size_t begin = std::size_t(pick.chunk) * kSamplingChunk;
    const std::size_t end = std::min(n, begin + kSamplingChunk);
    double prefix = 0.0;
    std::size_t last_positive = begin;
    for (std::size_t i = begin; i < end; ++i) {
      const float p = mass(i, j);
      if (p > 0.0f) last_positive = i;
      prefix += p;
      if (prefix > pick.target) return i;
    }
    return last_positive;
  };
  const int candidates = greedy ? seeding::greedyCandidates(k) : 1;
  const double scale = greedy ? seeding::potentialScale(summary) : 1.0;
  for (int j = 0; j < k; ++j) {
    for (std::size_t c = 0; c < chunks; ++c) {
      double s = 0.0;
      for (std::size_t i = c * kSamplingChunk; i < std::min(n, (c + 1) * kSamplingChunk); ++i) {
        if (j > 0) {
          const float dn = exact::squaredDistance(&x[i * d], &centroids[std::size_t(j - 1) * d], d);
          if (j == 1 || dn < d2[i]) d2[i] = dn;
        }
        s += mass(i, j);
      }
      sums[c] = s;
    }
    float* out = &centroids[std::size_t(j) * d];
    if (j == 0 || !greedy) {
      std::copy_n(&x[draw(j, seeding::plusPlusUniform(seed, j)) * d], d, out);
      continue;
    }
    int best = 0;
    std::int64_t best_potential = 0;
    for (int l = 0; l < candidates; ++l) {
      const float* cand = &x[draw(j, seeding::greedyUniform(seed, j, l)) * d];
      std::int64_t p = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const float nearest = std::min(d2[i], exact::squaredDistance(&x[i * d], cand, d));
        p += seeding::potentialTerm(scaled ? exact::mul(weight(i), nearest) : nearest, scale);
      }
      if (l == 0 || p < best_potential) {
        best = l;
        best_potential = p;
        std::copy_n(cand, d, out);
      }
    }
    (void)best;
  }
  return centroids;
}

TEST(Seeding, PrunedPlusPlusEqualsAFullPassEveryStep) {
  // Photo-like counted rows, plain clustered points, weighted points; k up to 200 so that
  // most buckets fall out of reach; 2 threads so that buckets split between them.
  const auto expanded = test::levelPoints(60000, 3, 30, 4);
  const test::CompactData counted = test::compactOf(expanded, 3);
  const auto blobs = test::blobPoints(20000, 5, 12, 9, 3.0f, 0.7f);
  const auto uniform = test::uniformPoints(15000, 2, 6);
  std::vector<float> weights(7500);
  for (std::size_t i = 0; i < weights.size(); ++i)
    weights[i] = 0.25f + float(i % 7);
  const struct {
    const char* name;
    DataView view;
  } cases[] = {{"counted colours", counted.view()},
               {"blobs", DataView{blobs.data(), 4000, 5}},
               {"weighted", DataView{uniform.data(), 7500, 2, weights.data()}}};
  for (const auto& c : cases)
    for (const bool greedy : {true, false})
      for (const int k : {7, 200}) {
        SCOPED_TRACE(std::string(c.name) + (greedy ? " greedy" : " plain") +
                     " k = " + std::to_string(k));
        auto engine = createCpuEngine(2);
        engine->setData(c.view);
        KMeansConfig config;
        config.k = k;
        config.seed = 21;
        config.init = greedy ? InitMethod::GreedyKMeansPlusPlus : InitMethod::KMeansPlusPlus;
        engine->initialize(config);
        Snapshot start;
        engine->snapshot(start);
        const std::vector<float> want = fullPassSeeding(c.view, k, config.seed, greedy);
        ASSERT_EQ(start.centred_centroids.size(), want.size());
        EXPECT_EQ(
            std::memcmp(start.centred_centroids.data(), want.data(), want.size() * sizeof(float)),
            0);
      }
}

}  // namespace
}  // namespace kms
