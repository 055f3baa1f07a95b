// Compact data (distinct rows with counts) against the expanded data on the CPU backend: from
// the same initial centroids, the same labels per point, bit-identical centroids, the same
// changed counts and convergence — including empty clusters and their re-seeding.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include "common/seeding.h"
#include "kmeans/backend.h"
#include "kmeans/errors.h"
#include "support/compact_data.h"
#include "support/reference_kmeans.h"

namespace kms {
namespace {

using test::CompactData;
using test::compactOf;

KMeansConfig givenStart(const std::vector<float>& centroids, int k, EmptyClusterPolicy policy) {
  KMeansConfig c;
  c.k = k;
  c.init = InitMethod::Given;
  c.initial_centroids = centroids;
  c.tolerance = 0.0;
  c.max_iterations = 40;
  c.empty_clusters = policy;
  return c;
}

struct ExactnessCase {
  int d;
  int k;
  int levels;  // values per coordinate: few levels, many repeats
  EmptyClusterPolicy policy;
};

class CompactVersusExpanded : public ::testing::TestWithParam<ExactnessCase> {};

TEST_P(CompactVersusExpanded, SameLabelsAndBitIdenticalCentroids) {
  const ExactnessCase c = GetParam();
  const auto expanded = test::levelPoints(20000, c.d, c.levels, 7 + c.d * 13 + c.k);
  const CompactData compact = compactOf(expanded, c.d);
  ASSERT_LT(compact.rows(), 20000u / 3) << "the case should have many repeats";
  // Half the start centroids are far outside the data, so clusters go empty and are re-seeded.
  auto start = test::uniformPoints(std::size_t(c.k), c.d, 5 + c.k, 0.0f, 1.0f);
  for (int j = 0; j < c.k; j += 2)
    start[std::size_t(j) * c.d] += 50.0f;
  const KMeansConfig config = givenStart(start, c.k, c.policy);

  auto full = createCpuEngine(3);
  full->setData(DataView{expanded.data(), expanded.size() / c.d, c.d});
  auto small = createCpuEngine(2);
  small->setData(compact.view());
  full->initialize(config);
  small->initialize(config);
  int reseeded = 0;
  while (!full->finished()) {
    const IterationStats a = full->step();
    const IterationStats b = small->step();
    Snapshot sa, sb;
    full->snapshot(sa);
    small->snapshot(sb);
    ASSERT_EQ(a.changed, b.changed) << "iteration " << a.iteration;
    ASSERT_EQ(a.empty_clusters, b.empty_clusters) << "iteration " << a.iteration;
    ASSERT_EQ(sa.centroids, sb.centroids) << "iteration " << a.iteration;
    for (std::size_t i = 0; i < sa.labels.size(); ++i)
      ASSERT_EQ(sa.labels[i], sb.labels[compact.index[i]]) << "point " << i;
    EXPECT_EQ(float(a.max_shift), float(b.max_shift));
    EXPECT_NEAR(a.inertia, b.inertia, 1e-9 * a.inertia + 1e-12);
    ASSERT_EQ(a.converged, b.converged);
    ASSERT_EQ(small->finished(), full->finished());
    if (a.empty_clusters > 0) ++reseeded;
  }
  EXPECT_GT(reseeded, 0) << "the case should exercise empty clusters";
}

INSTANTIATE_TEST_SUITE_P(
    Grid, CompactVersusExpanded,
    ::testing::Values(ExactnessCase{1, 4, 9, EmptyClusterPolicy::ReseedFarthest},
                      ExactnessCase{2, 6, 7, EmptyClusterPolicy::ReseedFarthest},
                      ExactnessCase{3, 16, 6, EmptyClusterPolicy::ReseedFarthest},
                      ExactnessCase{3, 16, 6, EmptyClusterPolicy::KeepCentroid},
                      ExactnessCase{4, 9, 4, EmptyClusterPolicy::ReseedFarthest},
                      ExactnessCase{5, 12, 3, EmptyClusterPolicy::ReseedFarthest}),
    [](const auto& info) {
      return "d" + std::to_string(info.param.d) + "_k" + std::to_string(info.param.k) +
             (info.param.policy == EmptyClusterPolicy::KeepCentroid ? "_keep" : "_reseed");
    });

/// Runs both engines from `config` to the end and requires the same trajectory: changed counts,
/// bit-identical centroids and per-point labels at every iteration. Returns the iterations run.
int sameTrajectory(const std::vector<float>& expanded, const CompactData& compact, int d,
                   const KMeansConfig& config) {
  auto full = createCpuEngine(2);
  full->setData(DataView{expanded.data(), expanded.size() / std::size_t(d), d});
  auto small = createCpuEngine(2);
  small->setData(compact.view());
  full->initialize(config);
  small->initialize(config);
  int iterations = 0;
  while (!full->finished()) {
    const IterationStats a = full->step();
    const IterationStats b = small->step();
    ++iterations;
    Snapshot sa, sb;
    full->snapshot(sa);
    small->snapshot(sb);
    EXPECT_EQ(a.changed, b.changed) << "iteration " << a.iteration;
    EXPECT_EQ(sa.centroids, sb.centroids) << "iteration " << a.iteration;
    std::size_t wrong = 0;
    for (std::size_t i = 0; i < sa.labels.size(); ++i)
      wrong += sa.labels[i] != sb.labels[compact.index[i]] ? 1 : 0;
    EXPECT_EQ(wrong, 0u) << "iteration " << a.iteration;
    if (wrong > 0 || ::testing::Test::HasFailure()) break;
    EXPECT_EQ(small->finished(), full->finished());
  }
  return iterations;
}

TEST(Counts, LongPhotoLikeRunsKeepTheFullSearchsLabels) {
  // The compact backend settles most rows with distance bounds once the centroids slow down;
  // a long run on photo-like data (8-bit levels, thousands of distinct colours, a tail of tiny
  // centroid moves) must still give the labels of the full search at every iteration.
  std::mt19937 rng(11);
  std::normal_distribution<float> noise(0.0f, 0.08f);
  std::uniform_int_distribution<int> pick(0, 5);
  const float centres[6][3] = {{0.2f, 0.3f, 0.7f}, {0.8f, 0.7f, 0.2f}, {0.5f, 0.5f, 0.5f},
                               {0.1f, 0.6f, 0.2f}, {0.9f, 0.2f, 0.3f}, {0.4f, 0.8f, 0.9f}};
  std::vector<float> expanded;
  for (int i = 0; i < 60000; ++i) {
    const int g = pick(rng);
    for (int c = 0; c < 3; ++c) {
      const float v = std::clamp(centres[g][c] + noise(rng), 0.0f, 1.0f);
      expanded.push_back(std::round(v * 255.0f) / 255.0f);
    }
  }
  const CompactData compact = compactOf(expanded, 3);
  ASSERT_GT(compact.rows(), 5000u);
  std::vector<float> start;  // 16 of the points (seeding with counts draws differently)
  for (std::size_t j = 0; j < 16; ++j)
    start.insert(start.end(), expanded.begin() + long(j * 3701 * 3),
                 expanded.begin() + long(j * 3701 * 3 + 3));
  KMeansConfig config = givenStart(start, 16, EmptyClusterPolicy::ReseedFarthest);
  config.max_iterations = 150;
  EXPECT_GT(sameTrajectory(expanded, compact, 3, config), 60) << "a long tail of small moves";
}

TEST(Counts, RowsOnTheBisectorFollowTheTieRule) {
  // 1-D values i/64 with counts; two centroids whose bisector passes through values as they
  // move, so rows sit exactly on it (equal distances: the lower index wins) or a rounding away.
  std::vector<float> expanded;
  for (int i = 0; i <= 64; ++i)
    for (int r = 0; r < 1 + (i * 7) % 5; ++r)
      expanded.push_back(float(i) / 64.0f);
  const CompactData compact = compactOf(expanded, 1);
  for (const float a : {0.25f, 0.3f, 0.0625f}) {
    const KMeansConfig config =
        givenStart({a, 1.0f - a / 3.0f, 0.5f}, 3, EmptyClusterPolicy::ReseedFarthest);
    sameTrajectory(expanded, compact, 1, config);
  }
}

TEST(Counts, ReseedingTakesEachPositionOnceAndBreaksTiesByCoordinates) {
  // Four positions at the same distance from centroid 0 = (0, 0), listed in an order that is
  // not the lexicographic one, each repeated; two far centroids go empty.
  const std::vector<float> p = {0, 2, 0, 2, 2, 0, -2, 0, 2, 0, 0, -2, 0, 0};
  auto engine = createCpuEngine(1);
  engine->setData(DataView{p.data(), p.size() / 2, 2});
  engine->initialize(givenStart({0, 0, 90, 90, 95, 95}, 3, EmptyClusterPolicy::ReseedFarthest));
  EXPECT_EQ(engine->step().empty_clusters, 2);
  Snapshot s;
  engine->snapshot(s);
  // Farthest first; among equals the smaller (x, y): (−2, 0), then (0, −2).
  EXPECT_EQ(std::vector<float>(s.centroids.begin() + 2, s.centroids.end()),
            (std::vector<float>{-2, 0, 0, -2}));
}

TEST(Counts, ValidationNamesTheProblem) {
  const std::vector<float> p = {0, 1, 2};
  const std::vector<std::uint32_t> zero = {1, 0, 2};
  const std::vector<float> w = {1, 1, 1};
  auto engine = createCpuEngine(1);
  try {
    engine->setData(DataView{p.data(), 3, 1, nullptr, zero.data()});
    FAIL() << "a zero count was accepted";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("count of point 1 is zero"), std::string::npos);
  }
  const std::vector<std::uint32_t> ones = {1, 1, 1};
  EXPECT_THROW(engine->setData(DataView{p.data(), 3, 1, w.data(), ones.data()}), InvalidArgument);
}

TEST(Counts, ChangedCountsAndConvergenceAreInPoints) {
  const std::vector<float> p = {0, 10};
  const std::vector<std::uint32_t> m = {3, 5};
  auto engine = createCpuEngine(1);
  engine->setData(DataView{p.data(), 2, 1, nullptr, m.data()});
  engine->initialize(givenStart({1, 9}, 2, EmptyClusterPolicy::KeepCentroid));
  const IterationStats s = engine->step();
  EXPECT_EQ(s.changed, 8u);
  EXPECT_DOUBLE_EQ(s.inertia, 3.0 * 1.0 + 5.0 * 1.0);
  Snapshot snap;
  engine->snapshot(snap);
  EXPECT_EQ(snap.centroids, (std::vector<float>{0, 10}));
  EXPECT_EQ(snap.labels, (std::vector<std::int32_t>{0, 1}));
}

TEST(Counts, KMeansPlusPlusAndRandomSeedingAreDeterministicAndUseCounts) {
  // One value holds almost all points: seeding in proportion to counts takes it first nearly
  // always; the draws repeat exactly for a seed and across thread counts.
  std::vector<float> p;
  std::vector<std::uint32_t> m;
  for (int v = 0; v < 50; ++v) {
    p.push_back(float(v));
    m.push_back(v == 17 ? 1000000u : 1u);
  }
  for (InitMethod init :
       {InitMethod::Random, InitMethod::KMeansPlusPlus, InitMethod::GreedyKMeansPlusPlus}) {
    int first_is_heavy = 0;
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      KMeansConfig c;
      c.k = 4;
      c.init = init;
      c.seed = seed;
      Snapshot a, b;
      auto one = createCpuEngine(1), two = createCpuEngine(2);
      one->setData(DataView{p.data(), p.size(), 1, nullptr, m.data()});
      two->setData(DataView{p.data(), p.size(), 1, nullptr, m.data()});
      one->initialize(c);
      two->initialize(c);
      one->snapshot(a);
      two->snapshot(b);
      EXPECT_EQ(a.centroids, b.centroids);
      std::vector<float> sorted = a.centroids;
      std::sort(sorted.begin(), sorted.end());
      EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end())
          << "seeding picked one value twice";
      if (a.centroids[0] == 17.0f) ++first_is_heavy;
    }
    EXPECT_GE(first_is_heavy, 19) << toString(init);
  }
}

/// The k-means++ potential of `centroids`: Σ min ‖x − c‖².
double potential(const std::vector<float>& p, int d, const std::vector<float>& centroids) {
  double total = 0.0;
  const std::size_t k = centroids.size() / std::size_t(d);
  for (std::size_t i = 0; i < p.size() / std::size_t(d); ++i) {
    double best = 1e300;
    for (std::size_t j = 0; j < k; ++j) {
      double s = 0.0;
      for (int c = 0; c < d; ++c) {
        const double t = double(p[i * d + c]) - centroids[j * d + c];
        s += t * t;
      }
      best = std::min(best, s);
    }
    total += best;
  }
  return total;
}

TEST(GreedyPlusPlus, IsDeterministicAcrossThreadsAndBeatsPlainKMeansPlusPlus) {
  const auto p = test::blobPoints(6000, 2, 12, 21, 4.0f, 1.2f);
  double plain = 0.0, greedy = 0.0;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    KMeansConfig c;
    c.k = 12;
    c.seed = seed;
    Snapshot one, two, pp;
    c.init = InitMethod::GreedyKMeansPlusPlus;
    auto a = createCpuEngine(1), b = createCpuEngine(2);
    a->setData(DataView{p.data(), 6000, 2});
    b->setData(DataView{p.data(), 6000, 2});
    a->initialize(c);
    b->initialize(c);
    a->snapshot(one);
    b->snapshot(two);
    ASSERT_EQ(one.centroids, two.centroids) << "seed " << seed;
    c.init = InitMethod::KMeansPlusPlus;
    a->initialize(c);
    a->snapshot(pp);
    greedy += potential(p, 2, one.centroids);
    plain += potential(p, 2, pp.centroids);
  }
  EXPECT_LT(greedy, plain) << "keeping the best of several candidates lowers the potential";
  EXPECT_EQ(seeding::greedyCandidates(12), 4);  // 2 + ⌊ln 12⌋
  EXPECT_EQ(parseInitMethod("greedy"), InitMethod::GreedyKMeansPlusPlus);
  EXPECT_EQ(toString(InitMethod::GreedyKMeansPlusPlus), "greedy-kmeans++");
}

TEST(Seeding, WeightedDistinctIndicesFollowTheCounts) {
  const std::vector<std::uint32_t> counts = {1, 2, 3, 4, 90};
  std::map<std::size_t, int> first;
  for (std::uint64_t seed = 0; seed < 20000; ++seed) {
    const auto picks = seeding::weightedDistinctIndices(counts.data(), counts.size(), 3, seed);
    ASSERT_EQ(picks.size(), 3u);
    EXPECT_NE(picks[0], picks[1]);
    EXPECT_NE(picks[1], picks[2]);
    EXPECT_NE(picks[0], picks[2]);
    ++first[picks[0]];
  }
  // The first draw is proportional to the counts (100 in all): ±5 standard deviations.
  for (std::size_t i = 0; i < counts.size(); ++i) {
    const double p = counts[i] / 100.0;
    const double expected = 20000 * p, sd = std::sqrt(20000 * p * (1 - p));
    EXPECT_NEAR(first[i], expected, 5 * sd + 1) << "index " << i;
  }
  // All of them when k = n, each once.
  auto all = seeding::weightedDistinctIndices(counts.data(), counts.size(), 5, 3);
  std::sort(all.begin(), all.end());
  EXPECT_EQ(all, (std::vector<std::size_t>{0, 1, 2, 3, 4}));
}

}  // namespace
}  // namespace kms
