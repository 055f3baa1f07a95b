// The CPU engine's sorted search (few dimensions, many centroids: the centroids walked in order of
// their projection on the data's principal axis) against scoring every centroid: the same run,
// iteration by iteration, bit for bit — on plain, weighted and counted rows, with exact ties.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "kmeans/engine.h"
#include "kmeans/testing.h"
#include "support/compact_data.h"
#include "support/reference_kmeans.h"

namespace kms {
namespace {

std::unique_ptr<Engine> cpuEngine(bool sortedSearch, int threads) {
  TestingOptions options;
  options.cpu_threads = threads;
  options.cpu.sorted_search = sortedSearch;
  return createEngine(BackendKind::Cpu, options).engine;
}

/// Runs both engines on `data` from `config` to the end and expects the same run: every
/// iteration's stats, then the labels and centroids, bit for bit.
void expectSameRuns(const DataView& data, const KMeansConfig& config, const std::string& what) {
  auto sorted = cpuEngine(true, 2);
  auto full = cpuEngine(false, 2);
  sorted->setData(data);
  full->setData(data);
  sorted->initialize(config);
  full->initialize(config);
  int iterations = 0;
  while (!full->finished()) {
    ASSERT_FALSE(sorted->finished()) << what << ": stopped early, at " << iterations;
    const IterationStats a = sorted->step(), b = full->step();
    ++iterations;
    ASSERT_EQ(a.changed, b.changed) << what << ", iteration " << iterations;
    ASSERT_EQ(a.inertia, b.inertia) << what << ", iteration " << iterations;
    ASSERT_EQ(a.empty_clusters, b.empty_clusters) << what << ", iteration " << iterations;
  }
  EXPECT_TRUE(sorted->finished()) << what;
  Snapshot sa, sb;
  sorted->snapshot(sa);
  full->snapshot(sb);
  EXPECT_EQ(sa.labels, sb.labels) << what;
  ASSERT_EQ(sa.centroids.size(), sb.centroids.size()) << what;
  for (std::size_t i = 0; i < sa.centroids.size(); ++i)
    ASSERT_EQ(std::bit_cast<std::uint32_t>(sa.centroids[i]),
              std::bit_cast<std::uint32_t>(sb.centroids[i]))
        << what << ", centroid value " << i;
  EXPECT_GT(iterations, 1) << what;
}

TEST(CpuSortedSearch, GivesTheFullSearchsRunOnPlainAndWeightedRows) {
  for (int d : {1, 2, 3, 4}) {
    for (int k : {32, 256}) {
      const auto points = test::blobPoints(8000, d, 40, 11 + std::uint64_t(d), 3.0f, 1.0f);
      std::vector<float> weights(points.size() / std::size_t(d));
      std::mt19937 rng(5);
      for (float& w : weights)
        w = 0.25f + float(rng() % 8) * 0.5f;
      for (InitMethod init : {InitMethod::GreedyKMeansPlusPlus, InitMethod::Random}) {
        KMeansConfig config;
        config.k = k;
        config.seed = 3;
        config.init = init;
        config.max_iterations = 60;
        const std::string what = "d = " + std::to_string(d) + ", k = " + std::to_string(k) + ", " +
                                 std::string(toString(init));
        expectSameRuns(DataView{points.data(), weights.size(), d}, config, what);
        expectSameRuns(DataView{points.data(), weights.size(), d, weights.data()}, config,
                       what + ", weighted");
      }
    }
  }
}

TEST(CpuSortedSearch, GivesTheFullSearchsRunOnCountedRowsWithExactTies) {
  // Colours on a coarse lattice (8-bit-like levels): exact repeats, centroids seeded on data
  // rows (exact zero distances) and rows exactly halfway between centroids (exact ties), the
  // situation the lower-index rule decides.
  for (int d : {2, 3, 4}) {
    for (int levels : {5, 17}) {
      const auto points = test::levelPoints(60000, d, levels, 21 + std::uint64_t(levels));
      const test::CompactData compact = test::compactOf(points, d);
      for (int k : {32, 64}) {
        if (std::size_t(k) > compact.rows()) continue;
        for (InitMethod init : {InitMethod::Random, InitMethod::KMeansPlusPlus}) {
          KMeansConfig config;
          config.k = k;
          config.seed = 9;
          config.init = init;
          config.max_iterations = 80;
          expectSameRuns(compact.view(), config,
                         "counted, d = " + std::to_string(d) + ", " + std::to_string(levels) +
                             " levels, k = " + std::to_string(k) + ", " +
                             std::string(toString(init)));
        }
      }
    }
  }
}

TEST(CpuSortedSearch, CentroidsWithEqualProjectionsAndDuplicatesAreStillFound) {
  // Given centroids on a line perpendicular to the first axis (equal projections on the x axis
  // of data spread along x), some of them duplicated: the walk must not stop at a projection
  // that several centroids share.
  const int d = 2, k = 40;
  std::vector<float> points;
  for (int i = 0; i < 4000; ++i) {
    points.push_back(float(i % 400) * 0.25f);  // spread along x: the principal axis
    points.push_back(float(i / 400) * 0.01f);
  }
  KMeansConfig config;
  config.k = k;
  config.init = InitMethod::Given;
  config.max_iterations = 20;
  for (int j = 0; j < k; ++j) {
    config.initial_centroids.push_back(50.0f);                   // one projection
    config.initial_centroids.push_back(float(j % 30) * 0.003f);  // ten duplicates
  }
  expectSameRuns(DataView{points.data(), points.size() / d, d}, config, "equal projections");
}

TEST(CpuSortedSearch, FollowsTheFullSearchAtFloatsEnds) {
  // Centroids so far apart that their squared distance overflows float: a half gap from that
  // square must not become ∞ (it would keep every row whose own distance is finite). Iteration 1
  // puts the middle group with centroid 0; the update brings centroid 1 nearer to it.
  for (int d : {3, 40}) {
    std::vector<float> p;
    const auto row = [&](float x) {
      p.push_back(x);
      for (int c = 1; c < d; ++c)
        p.push_back(0.0f);
    };
    for (int i = 0; i < 1000; ++i)
      row(0.0f);
    for (int i = 0; i < 10; ++i)
      row(1.5e19f);
    for (int i = 0; i < 1000; ++i)
      row(2.5e19f);
    KMeansConfig config;
    config.k = 2;
    config.init = InitMethod::Given;
    config.initial_centroids.assign(2 * std::size_t(d), 0.0f);
    config.initial_centroids[std::size_t(d)] = 4e19f;
    config.max_iterations = 6;
    config.tolerance = 0.0;
    expectSameRuns(DataView{p.data(), p.size() / std::size_t(d), d}, config,
                   "far apart, d = " + std::to_string(d));
  }
  // Coordinates around 1e-20, whose squares are subnormal: relative rounding bounds fail there.
  for (int k : {12, 40}) {
    auto p = test::levelPoints(30000, 3, 9, 31);
    for (float& v : p)
      v *= 1e-20f;
    KMeansConfig config;
    config.k = k;
    config.init = InitMethod::Given;
    config.initial_centroids = test::uniformPoints(std::size_t(k), 3, 8, 0.0f, 1e-20f);
    config.max_iterations = 12;
    config.tolerance = 0.0;
    expectSameRuns(DataView{p.data(), p.size() / 3, 3}, config, "tiny, k = " + std::to_string(k));
    const test::CompactData compact = test::compactOf(p, 3);
    expectSameRuns(compact.view(), config, "tiny, counted, k = " + std::to_string(k));
  }
}

}  // namespace
}  // namespace kms
