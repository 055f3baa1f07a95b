// The CPU engine's pruned searches against scoring every centroid: the same run, iteration by
// iteration, bit for bit — on plain, weighted and counted rows, with exact ties. The sorted search
// (few dimensions, many centroids: the centroids walked in order of their projection on the
// data's principal axis) and the group bounds of counted rows (Yinyang: a lower bound per group
// of nearby centroids), each alone and both together.
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

std::unique_ptr<Engine> cpuEngine(CpuTuning tuning, int threads) {
  TestingOptions options;
  options.cpu_threads = threads;
  options.cpu = tuning;
  return createEngine(BackendKind::Cpu, options).engine;
}

constexpr CpuTuning kEveryPruning{};  // the default: both
constexpr CpuTuning kSortedSearchOnly{true, false};
constexpr CpuTuning kGroupBoundsOnly{false, true};
constexpr CpuTuning kFullSearch{false, false};  // the reference

/// What a run's assignments cost: rows searched and distances computed over all iterations.
struct SearchWork {
  std::int64_t rows_searched = 0;
  std::int64_t distances = 0;
  std::int64_t rows_after_first = 0;  // rows the iterations after the first went through
};

/// Runs an engine with `pruned` and one with the full search on `data` from `config` to the end
/// and expects the same run: every iteration's stats, then the labels and centroids, bit for bit.
SearchWork expectSameRuns(const DataView& data, const KMeansConfig& config, const std::string& what,
                          CpuTuning pruned = kEveryPruning) {
  auto sorted = cpuEngine(pruned, 2);
  auto full = cpuEngine(kFullSearch, 2);
  sorted->setData(data);
  full->setData(data);
  sorted->initialize(config);
  full->initialize(config);
  int iterations = 0;
  SearchWork work;
  while (!full->finished()) {
    EXPECT_FALSE(sorted->finished()) << what << ": stopped early, at " << iterations;
    if (sorted->finished()) return work;
    const IterationStats a = sorted->step(), b = full->step();
    ++iterations;
    EXPECT_EQ(a.changed, b.changed) << what << ", iteration " << iterations;
    EXPECT_EQ(a.inertia, b.inertia) << what << ", iteration " << iterations;
    EXPECT_EQ(a.empty_clusters, b.empty_clusters) << what << ", iteration " << iterations;
    if (a.inertia != b.inertia) return work;
    work.rows_searched += a.rows_searched;
    work.distances += a.distances_computed;
    if (iterations > 1) work.rows_after_first += std::int64_t(data.n);
  }
  EXPECT_TRUE(sorted->finished()) << what;
  Snapshot sa, sb;
  sorted->snapshot(sa);
  full->snapshot(sb);
  EXPECT_EQ(sa.labels, sb.labels) << what;
  EXPECT_EQ(sa.centroids.size(), sb.centroids.size()) << what;
  for (std::size_t i = 0; i < std::min(sa.centroids.size(), sb.centroids.size()); ++i)
    if (std::bit_cast<std::uint32_t>(sa.centroids[i]) !=
        std::bit_cast<std::uint32_t>(sb.centroids[i])) {
      ADD_FAILURE() << what << ", centroid value " << i;
      break;
    }
  EXPECT_GT(iterations, 1) << what;
  // The result's labels (assign() with the run's last centroids, which the group bounds answer
  // from the run's state) and, with centroids the run never had, the full search's.
  std::vector<std::int32_t> la, lb;
  sorted->assign(sa.centred_centroids, la);
  full->assign(sb.centred_centroids, lb);
  EXPECT_EQ(la, lb) << what << ": assign() with the final centroids";
  std::vector<float> moved = sa.centred_centroids;
  for (std::size_t v = 0; v < moved.size(); v += 3)
    moved[v] = std::nextafter(moved[v], 1e30f);
  sorted->assign(moved, la);
  full->assign(moved, lb);
  EXPECT_EQ(la, lb) << what << ": assign() with other centroids";
  return work;
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
      for (int k : {32, 64, 256}) {
        if (std::size_t(k) > compact.rows()) continue;
        for (InitMethod init : {InitMethod::Random, InitMethod::KMeansPlusPlus}) {
          KMeansConfig config;
          config.k = k;
          config.seed = 9;
          config.init = init;
          config.max_iterations = 80;
          const std::string what = "counted, d = " + std::to_string(d) + ", " +
                                   std::to_string(levels) + " levels, k = " + std::to_string(k) +
                                   ", " + std::string(toString(init));
          expectSameRuns(compact.view(), config, what);
          if (k < 256) continue;  // the group bounds start at 64; each alone at 256
          expectSameRuns(compact.view(), config, what + ", sorted search only", kSortedSearchOnly);
          expectSameRuns(compact.view(), config, what + ", group bounds only", kGroupBoundsOnly);
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

TEST(CpuGroupBounds, GiveTheFullSearchsRunOnCountedRowsAndPrune) {
  // Counted rows (a photo's distinct colours, or any data with repeats) at many centroids: the
  // group bounds alone and with the sorted search, from each seeding, with re-seeded empty
  // clusters (a centroid's jump lowers its whole group's bounds at once) — and they must settle
  // most rows once the run slows down, or they would be a slower full search.
  for (int d : {3, 24}) {
    const auto points = test::blobPoints(16000, d, 90, 41 + std::uint64_t(d), 2.0f, 1.0f);
    std::vector<float> repeated = points;  // every row twice, and a third of them three times
    repeated.insert(repeated.end(), points.begin(), points.end());
    repeated.insert(
        repeated.end(), points.begin(),
        points.begin() + std::ptrdiff_t(points.size() / 3 / std::size_t(d) * std::size_t(d)));
    const test::CompactData compact = test::compactOf(repeated, d);
    ASSERT_EQ(compact.rows(), points.size() / std::size_t(d));
    for (int k : {64, 256}) {
      for (InitMethod init : {InitMethod::GreedyKMeansPlusPlus, InitMethod::Random}) {
        KMeansConfig config;
        config.k = k;
        config.seed = 17;
        config.init = init;
        config.max_iterations = 40;
        const std::string what = "d = " + std::to_string(d) + ", k = " + std::to_string(k) + ", " +
                                 std::string(toString(init));
        const SearchWork work = expectSameRuns(compact.view(), config, what, kGroupBoundsOnly);
        expectSameRuns(compact.view(), config, what + ", with the sorted search");
        // Iteration 1 searches every row; the bounds must leave most of the others settled.
        const std::int64_t first = std::int64_t(compact.rows());
        EXPECT_LT(work.rows_searched - first, work.rows_after_first / 2) << what;
        EXPECT_LT(work.distances, (work.rows_after_first + first) * k / 4) << what;
      }
    }
  }
}

TEST(CpuGroupBounds, GiveTheFullSearchsRunWithEmptyClustersAndFewRows) {
  // More centroids than the data has places for: clusters empty out and re-seed onto the
  // farthest rows, or keep their place, every iteration; groups of one centroid.
  const auto points = test::levelPoints(5000, 3, 6, 77);  // at most 216 distinct rows
  const test::CompactData compact = test::compactOf(points, 3);
  for (EmptyClusterPolicy policy :
       {EmptyClusterPolicy::ReseedFarthest, EmptyClusterPolicy::KeepCentroid}) {
    KMeansConfig config;
    config.k = int(std::min<std::size_t>(compact.rows(), 200));
    config.seed = 5;
    config.init = InitMethod::Random;
    config.empty_clusters = policy;
    config.max_iterations = 30;
    config.tolerance = 0.0;
    expectSameRuns(compact.view(), config, std::string(toString(policy)), kGroupBoundsOnly);
  }
}

TEST(CpuGroupBounds, FollowTheFullSearchAtFloatsEnds) {
  // Tiny coordinates (subnormal squares) and huge ones (squares that overflow to ∞) at k = 64.
  for (float scale : {1e-20f, 1e18f}) {
    auto p = test::levelPoints(20000, 3, 9, 53);
    for (float& v : p)
      v *= scale;
    const test::CompactData compact = test::compactOf(p, 3);
    KMeansConfig config;
    config.k = 64;
    config.init = InitMethod::Given;
    config.initial_centroids = test::uniformPoints(64, 3, 8, 0.0f, 8.0f * scale);
    config.max_iterations = 12;
    config.tolerance = 0.0;
    expectSameRuns(compact.view(), config, "scale " + std::to_string(scale), kGroupBoundsOnly);
  }
}

}  // namespace
}  // namespace kms
