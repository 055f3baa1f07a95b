// The CPU backend against a brute-force double-precision reference, known answers, determinism
// and edge cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "kmeans/backend.h"
#include "support/reference_kmeans.h"

namespace kms {
namespace {

using test::referenceDistance;
using test::referenceStep;
using test::toDouble;

std::unique_ptr<Engine> engineOn(const std::vector<float>& p, int d, int threads = 0,
                                 const std::vector<float>* w = nullptr) {
  auto e = createCpuEngine(threads);
  e->setData(DataView{p.data(), p.size() / d, d, w ? w->data() : nullptr});
  return e;
}

KMeansConfig givenConfig(const std::vector<float>& centroids, int k) {
  KMeansConfig c;
  c.k = k;
  c.init = InitMethod::Given;
  c.initial_centroids = centroids;
  c.max_iterations = 100;
  c.tolerance = 0;
  return c;
}

// Labels equal to the reference except at ties: where they differ, both centroids must be
// equally near (relative 1e-5 of the squared distance, plus a tiny absolute slack).
void expectLabelsEqualUpToTies(const std::vector<float>& p, int d, const std::vector<double>& cents,
                               const std::vector<int>& ref, const std::vector<std::int32_t>& got) {
  ASSERT_EQ(ref.size(), got.size());
  std::size_t ties = 0;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    if (ref[i] == got[i]) continue;
    const double a = referenceDistance(p, d, i, cents, ref[i]);
    const double b = referenceDistance(p, d, i, cents, got[i]);
    ASSERT_NEAR(a, b, 1e-5 * std::max(a, b) + 1e-9)
        << "point " << i << " labels " << ref[i] << " vs " << got[i];
    ++ties;
  }
  EXPECT_LE(ties, ref.size() / 1000 + 1) << "suspiciously many ties";
}

class OneStepVersusReference : public ::testing::TestWithParam<std::tuple<int, int, int>> {};

TEST_P(OneStepVersusReference, LabelsCentroidsAndInertiaAgree) {
  const auto [n, d, k] = GetParam();
  const auto p = test::uniformPoints(n, d, 1000 + n + d * 7 + k, -3.0f, 5.0f);
  const auto init = test::uniformPoints(k, d, 77 + k, -3.0f, 5.0f);
  auto engine = engineOn(p, d, 3);
  KMeansConfig config = givenConfig(init, k);
  config.empty_clusters = EmptyClusterPolicy::KeepCentroid;  // as the reference does
  engine->initialize(config);
  const IterationStats stats = engine->step();
  Snapshot snap;
  engine->snapshot(snap);

  // The engine works in coordinates centred on the bounding box, so its starting centroids are
  // init − mid + mid; compare against the centroids it actually used.
  const auto ref = referenceStep(p, nullptr, d, toDouble(init), k);
  expectLabelsEqualUpToTies(p, d, toDouble(init), ref.labels, snap.labels);
  EXPECT_NEAR(stats.inertia, ref.inertia, 1e-5 * ref.inertia);
  EXPECT_EQ(stats.changed, static_cast<std::size_t>(n));
  EXPECT_EQ(stats.iteration, 1);
  EXPECT_EQ(stats.empty_clusters, static_cast<int>(ref.empty.size()));
  const double scale = 8.0;
  for (std::size_t i = 0; i < ref.centroids.size(); ++i)
    ASSERT_NEAR(snap.centroids[i], ref.centroids[i], 2e-6 * scale) << "centroid value " << i;
}

INSTANTIATE_TEST_SUITE_P(
    Grid, OneStepVersusReference,
    ::testing::Values(std::make_tuple(1000, 1, 3), std::make_tuple(2000, 2, 5),
                      std::make_tuple(3000, 3, 16), std::make_tuple(1500, 4, 9),
                      std::make_tuple(1500, 8, 7), std::make_tuple(999, 9, 128),
                      std::make_tuple(1000, 17, 4), std::make_tuple(600, 64, 10),
                      std::make_tuple(4000, 3, 256), std::make_tuple(50, 2, 50)));

TEST(CpuEngine, FullRunMatchesReferenceOnSeparatedBlobs) {
  for (int d : {2, 3, 5}) {
    const int k = 6;
    const auto p = test::blobPoints(3000, d, k, 5 + d, 10.0f, 0.5f);
    auto engine = engineOn(p, d);
    KMeansConfig c;
    c.k = k;
    c.seed = 42;
    c.max_iterations = 50;
    c.tolerance = 0;
    engine->initialize(c);
    Snapshot snap;
    engine->snapshot(snap);
    std::vector<double> cents = toDouble(snap.centroids);
    test::ReferenceStep ref;
    while (!engine->finished()) {
      const auto stats = engine->step();
      ref = referenceStep(p, nullptr, d, cents, k);
      cents = ref.centroids;
      engine->snapshot(snap);
      ASSERT_EQ(std::vector<int>(snap.labels.begin(), snap.labels.end()), ref.labels)
          << "d=" << d << " iteration " << stats.iteration;
      ASSERT_NEAR(stats.inertia, ref.inertia, 1e-5 * ref.inertia);
    }
    EXPECT_TRUE(engine->converged());
    EXPECT_LT(engine->iteration(), 50);
  }
}

TEST(CpuEngine, KnownAnswerTwoPairs) {
  const std::vector<float> p = {0, 0, 0, 1, 10, 10, 10, 11};
  auto engine = engineOn(p, 2, 1);
  engine->initialize(givenConfig({0, 0, 10, 10}, 2));
  auto s1 = engine->step();
  EXPECT_DOUBLE_EQ(s1.inertia, 2.0);  // two points at distance 1 from the initial centroids
  EXPECT_FLOAT_EQ(static_cast<float>(s1.max_shift), 0.5f);
  auto s2 = engine->step();
  EXPECT_DOUBLE_EQ(s2.inertia, 1.0);  // 4 × 0.5²
  EXPECT_EQ(s2.changed, 0u);
  EXPECT_TRUE(s2.converged);
  Snapshot snap;
  engine->snapshot(snap);
  EXPECT_EQ(snap.centroids, (std::vector<float>{0, 0.5f, 10, 10.5f}));
  EXPECT_EQ(snap.labels, (std::vector<std::int32_t>{0, 0, 1, 1}));
}

TEST(CpuEngine, KnownAnswerOneDimension) {
  const std::vector<float> p = {1, 2, 3, 10, 11, 12};
  auto engine = engineOn(p, 1);
  KMeansConfig c = givenConfig({1, 2}, 2);
  engine->initialize(c);
  engine->run();
  Snapshot snap;
  engine->snapshot(snap);
  EXPECT_EQ(snap.centroids, (std::vector<float>{2, 11}));
  EXPECT_DOUBLE_EQ(snap.stats.inertia, 4.0);
  EXPECT_TRUE(engine->converged());
}

TEST(CpuEngine, SameSeedIsBitIdenticalAcrossThreadCounts) {
  const auto p = test::uniformPoints(20000, 3, 9);
  Snapshot reference;
  for (int threads : {1, 2, 3, 8}) {
    for (InitMethod init : {InitMethod::KMeansPlusPlus, InitMethod::Random}) {
      auto engine = engineOn(p, 3, threads);
      KMeansConfig c;
      c.k = 20;
      c.init = init;
      c.seed = 1234;
      c.max_iterations = 15;
      engine->initialize(c);
      std::vector<double> inertias;
      engine->run([&](const IterationStats& s) {
        inertias.push_back(s.inertia);
        return true;
      });
      Snapshot snap;
      engine->snapshot(snap);
      if (threads == 1 && init == InitMethod::KMeansPlusPlus) {
        reference = snap;
        continue;
      }
      if (init != InitMethod::KMeansPlusPlus) continue;
      EXPECT_EQ(snap.centroids, reference.centroids) << threads << " threads";
      EXPECT_EQ(snap.labels, reference.labels) << threads << " threads";
      EXPECT_EQ(snap.stats.inertia, reference.stats.inertia) << threads << " threads";
    }
  }
}

TEST(CpuEngine, DifferentSeedsGiveDifferentStarts) {
  const auto p = test::uniformPoints(5000, 2, 3);
  Snapshot a, b;
  for (auto [seed, out] : {std::pair{1ull, &a}, std::pair{2ull, &b}}) {
    auto engine = engineOn(p, 2);
    KMeansConfig c;
    c.k = 8;
    c.seed = seed;
    engine->initialize(c);
    engine->snapshot(*out);
  }
  EXPECT_NE(a.centroids, b.centroids);
}

TEST(CpuEngine, RandomInitPicksDistinctDataPoints) {
  const auto p = test::uniformPoints(500, 2, 4);
  auto engine = engineOn(p, 2);
  KMeansConfig c;
  c.k = 50;
  c.init = InitMethod::Random;
  engine->initialize(c);
  Snapshot snap;
  engine->snapshot(snap);
  EXPECT_EQ(snap.iteration, 0);
  EXPECT_TRUE(snap.labels.empty());
  // Engines work in coordinates centred on the bounding box, so a chosen point comes back after
  // one subtraction and one addition of the centre: equal to a data point within an ulp or two.
  std::set<std::size_t> matched;
  for (int j = 0; j < 50; ++j) {
    const float cx = snap.centroids[2 * j], cy = snap.centroids[2 * j + 1];
    std::size_t nearest = 0;
    float best = 1e30f;
    for (std::size_t i = 0; i < 500; ++i) {
      const float dist = std::fabs(p[2 * i] - cx) + std::fabs(p[2 * i + 1] - cy);
      if (dist < best) best = dist, nearest = i;
    }
    EXPECT_LE(best, 4e-7f) << "centroid " << j << " is not a data point";
    matched.insert(nearest);
  }
  EXPECT_EQ(matched.size(), 50u);
}

TEST(CpuEngine, KEqualsOneIsTheMean) {
  const std::vector<float> p = {1, 2, 3, 4, 5, 6, 7, 8};
  auto engine = engineOn(p, 2);
  KMeansConfig c;
  c.k = 1;
  engine->initialize(c);
  engine->run();
  Snapshot snap;
  engine->snapshot(snap);
  EXPECT_EQ(snap.centroids, (std::vector<float>{4, 5}));
  EXPECT_DOUBLE_EQ(snap.stats.inertia, 40.0);
}

TEST(CpuEngine, KEqualsNGivesZeroInertia) {
  const auto p = test::uniformPoints(64, 3, 8);
  auto engine = engineOn(p, 3);
  KMeansConfig c;
  c.k = 64;
  engine->initialize(c);
  const auto last = engine->run();
  EXPECT_EQ(last.inertia, 0.0);
  EXPECT_TRUE(engine->converged());
}

TEST(CpuEngine, DuplicatePointsLeaveClustersEmptyWithoutFailing) {
  const std::vector<float> p(30, 2.5f);  // 10 identical 3-D points
  for (auto policy : {EmptyClusterPolicy::KeepCentroid, EmptyClusterPolicy::ReseedFarthest}) {
    auto engine = engineOn(p, 3);
    KMeansConfig c;
    c.k = 3;
    c.empty_clusters = policy;
    engine->initialize(c);
    const auto s1 = engine->step();
    EXPECT_EQ(s1.empty_clusters, 2);
    EXPECT_EQ(s1.inertia, 0.0);
    const auto s2 = engine->step();
    EXPECT_EQ(s2.changed, 0u);
    EXPECT_TRUE(s2.converged);
    Snapshot snap;
    engine->snapshot(snap);
    for (float v : snap.centroids)
      EXPECT_EQ(v, 2.5f);
  }
}

TEST(CpuEngine, EmptyClusterPolicies) {
  // Points near the origin; centroid 1 starts far away and receives nothing.
  const std::vector<float> p = {0, 0, 1, 0, 0, 1, 3, 3};
  {
    auto engine = engineOn(p, 2);
    KMeansConfig c = givenConfig({0, 0, 100, 100}, 2);
    c.empty_clusters = EmptyClusterPolicy::KeepCentroid;
    engine->initialize(c);
    EXPECT_EQ(engine->step().empty_clusters, 1);
    Snapshot snap;
    engine->snapshot(snap);
    EXPECT_EQ(snap.centroids[2], 100.0f);
    EXPECT_EQ(snap.centroids[3], 100.0f);
  }
  {
    auto engine = engineOn(p, 2);
    KMeansConfig c = givenConfig({0, 0, 100, 100}, 2);
    c.empty_clusters = EmptyClusterPolicy::ReseedFarthest;
    engine->initialize(c);
    EXPECT_EQ(engine->step().empty_clusters, 1);
    Snapshot snap;
    engine->snapshot(snap);
    // (3,3) is the point farthest from centroid 0 = (0,0).
    EXPECT_EQ(snap.centroids[2], 3.0f);
    EXPECT_EQ(snap.centroids[3], 3.0f);
    const auto s2 = engine->step();
    EXPECT_EQ(s2.empty_clusters, 0);
    engine->snapshot(snap);
    EXPECT_EQ(snap.labels, (std::vector<std::int32_t>{0, 0, 0, 1}));
  }
}

TEST(CpuEngine, IntegerWeightsActLikeRepeatedPoints) {
  const auto base = test::blobPoints(400, 2, 4, 11, 6.0f, 0.7f);
  std::vector<float> weights(400), repeated;
  for (std::size_t i = 0; i < 400; ++i) {
    weights[i] = static_cast<float>(1 + i % 3);
    for (int r = 0; r < 1 + static_cast<int>(i % 3); ++r)
      repeated.insert(repeated.end(), {base[2 * i], base[2 * i + 1]});
  }
  const std::vector<float> init = {0, 0, 6, 0, 12, 0, 18, 6};
  auto weighted = engineOn(base, 2, 0, &weights);
  auto plain = engineOn(repeated, 2);
  weighted->initialize(givenConfig(init, 4));
  plain->initialize(givenConfig(init, 4));
  const auto sw = weighted->run();
  const auto sp = plain->run();
  EXPECT_NEAR(sw.inertia, sp.inertia, 1e-5 * sp.inertia);
  Snapshot a, b;
  weighted->snapshot(a);
  plain->snapshot(b);
  for (std::size_t i = 0; i < a.centroids.size(); ++i)
    EXPECT_NEAR(a.centroids[i], b.centroids[i], 1e-5);
}

TEST(CpuEngine, StopsAtMaxIterationsAndOnTolerance) {
  const auto p = test::uniformPoints(5000, 2, 21);
  auto engine = engineOn(p, 2);
  KMeansConfig c;
  c.k = 30;
  c.max_iterations = 3;
  c.tolerance = 0;
  engine->initialize(c);
  engine->run();
  EXPECT_EQ(engine->iteration(), 3);
  EXPECT_TRUE(engine->finished());
  c.max_iterations = 500;
  c.tolerance = 0.05;  // stop once fewer than 5% of points move
  engine->initialize(c);
  const auto last = engine->run();
  EXPECT_TRUE(last.converged);
  EXPECT_LT(engine->iteration(), 500);
  Snapshot snap;
  engine->snapshot(snap);
  // Either rule may have fired: fewer than 5% moved, or the largest shift fell under 5% of scale.
  const double scale = 2.0;  // uniform in [-1, 1) on both axes
  EXPECT_TRUE(static_cast<double>(last.changed) < 0.05 * 5000 ||
              last.max_shift < 0.05 * scale * 1.01);
}

TEST(CpuEngine, InertiaNeverIncreases) {
  const auto p = test::uniformPoints(8000, 4, 31);
  auto engine = engineOn(p, 4);
  KMeansConfig c;
  c.k = 25;
  c.init = InitMethod::Random;
  c.tolerance = 0;
  c.max_iterations = 40;
  engine->initialize(c);
  double previous = std::numeric_limits<double>::infinity();
  engine->run([&](const IterationStats& s) {
    EXPECT_LE(s.inertia, previous * (1 + 1e-6)) << "iteration " << s.iteration;
    previous = s.inertia;
    return true;
  });
}

TEST(CpuEngine, StepsInBatchesAreStepByStepAndStopWhereItStops) {
  const auto pts = test::blobPoints(3000, 3, 6, 21, 4.0f, 0.5f);
  KMeansConfig c;
  c.k = 6;
  c.seed = 2;
  c.max_iterations = 100;
  auto batched = createCpuEngine(2);
  auto stepped = createCpuEngine(2);
  for (Engine* e : {batched.get(), stepped.get()}) {
    e->setData(DataView{pts.data(), pts.size() / 3, 3});
    e->initialize(c);
  }
  std::vector<IterationStats> stats;
  EXPECT_EQ(batched->steps(3, stats), 3);
  while (batched->steps(4, stats) > 0) {
  }
  EXPECT_TRUE(batched->finished());
  EXPECT_EQ(batched->steps(4, stats), 0);
  ASSERT_EQ(batched->iteration(), static_cast<int>(stats.size()));
  for (const IterationStats& b : stats) {
    const IterationStats s = stepped->step();
    EXPECT_EQ(b.iteration, s.iteration);
    EXPECT_EQ(b.inertia, s.inertia);
    EXPECT_EQ(b.changed, s.changed);
    EXPECT_EQ(b.converged, s.converged);
  }
  EXPECT_TRUE(stepped->finished());
  EXPECT_TRUE(stats.back().converged);  // well before max_iterations
  // run() without a callback goes in batches and ends at the same iteration.
  batched->initialize(c);
  const IterationStats last = batched->run();
  EXPECT_EQ(last.iteration, stats.back().iteration);
  EXPECT_EQ(last.inertia, stats.back().inertia);
}

TEST(CpuEngine, StepBeforeInitializeThrows) {
  auto engine = createCpuEngine(1);
  EXPECT_THROW(engine->step(), std::logic_error);
}

}  // namespace
}  // namespace kms
