// Engine::assign: the labels of any iteration recomputed from the centroids before it, so
// history needs no stored labels — plain, weighted and compact data, errors.
#include <gtest/gtest.h>

#include <vector>

#include "kmeans/backend.h"
#include "kmeans/errors.h"
#include "support/compact_data.h"
#include "support/reference_kmeans.h"

namespace kms {
namespace {

/// Runs `engine` from `config` to the end; at every iteration t, assign() with the centroids of
/// iteration t − 1 must give exactly the labels iteration t assigned. Returns iterations run.
int replayEveryIteration(Engine& engine, const KMeansConfig& config) {
  engine.initialize(config);
  Snapshot before, after;
  engine.snapshot(before);
  EXPECT_EQ(before.centred_centroids.size(), before.centroids.size());
  std::vector<std::int32_t> replayed;
  int iterations = 0;
  while (!engine.finished()) {
    engine.step();
    ++iterations;
    engine.snapshot(after);
    engine.assign(before.centred_centroids, replayed);
    EXPECT_EQ(replayed, after.labels) << "iteration " << after.iteration;
    if (replayed != after.labels) break;
    std::swap(before, after);
  }
  // Replaying does not disturb the run: the next step continues where it was.
  return iterations;
}

TEST(Assign, ReplaysEveryIterationOfPlainAndWeightedData) {
  const auto points = test::blobPoints(6000, 2, 6, 4, 1.0f, 0.6f);  // overlapping blobs
  std::vector<float> weights(points.size() / 2);
  for (std::size_t i = 0; i < weights.size(); ++i)
    weights[i] = float(1 + i % 5);
  for (const bool weighted : {false, true}) {
    auto engine = createCpuEngine(2);
    engine->setData(
        DataView{points.data(), points.size() / 2, 2, weighted ? weights.data() : nullptr});
    KMeansConfig config;
    config.k = 7;
    config.init = InitMethod::Random;
    config.seed = 5;
    config.tolerance = 0.0;
    config.max_iterations = 60;
    EXPECT_GT(replayEveryIteration(*engine, config), 5) << (weighted ? "weighted" : "plain");
  }
}

TEST(Assign, ReplaysEveryIterationOfCompactData) {
  // Compact data settle most rows with bounds; assign() searches every row: the same labels.
  const auto expanded = test::levelPoints(30000, 3, 12, 21);
  const test::CompactData compact = test::compactOf(expanded, 3);
  auto engine = createCpuEngine(2);
  engine->setData(compact.view());
  KMeansConfig config;
  config.k = 16;
  config.tolerance = 0.0;
  config.max_iterations = 80;
  EXPECT_GT(replayEveryIteration(*engine, config), 5);
}

TEST(Assign, DoesNotDisturbTheRun) {
  const auto points = test::uniformPoints(3000, 3, 9);
  auto a = createCpuEngine(1), b = createCpuEngine(1);
  for (auto* e : {a.get(), b.get()})
    e->setData(DataView{points.data(), 1000, 3});
  KMeansConfig config;
  config.k = 5;
  a->initialize(config);
  b->initialize(config);
  Snapshot s;
  std::vector<std::int32_t> labels;
  for (int t = 0; t < 6; ++t) {
    a->step();
    b->step();
    b->snapshot(s);
    b->assign(std::vector<float>(s.centred_centroids.size(), 0.25f), labels);  // any centroids
  }
  Snapshot sa, sb;
  a->snapshot(sa);
  b->snapshot(sb);
  EXPECT_EQ(sa.labels, sb.labels);
  EXPECT_EQ(sa.centroids, sb.centroids);
}

TEST(History, SnapshotAtGivesBackEveryIterationExactly) {
  // Plain data and compact data (bounds and kept sums): every iteration as it was.
  const auto points = test::blobPoints(5000, 2, 5, 8, 1.0f, 0.5f);
  const auto expanded = test::levelPoints(20000, 3, 10, 4);
  const test::CompactData compact = test::compactOf(expanded, 3);
  for (const bool useCompact : {false, true}) {
    auto engine = createCpuEngine(2);
    if (useCompact)
      engine->setData(compact.view());
    else
      engine->setData(DataView{points.data(), points.size() / 2, 2});
    KMeansConfig config;
    config.k = 6;
    config.init = InitMethod::Random;
    config.tolerance = 0.0;
    config.max_iterations = 25;
    config.keep_history = true;
    engine->initialize(config);
    std::vector<Snapshot> seen(1);
    engine->snapshot(seen[0]);
    while (!engine->finished()) {
      engine->step();
      seen.emplace_back();
      engine->snapshot(seen.back());
    }
    Snapshot again;
    for (int t = int(seen.size()) - 1; t >= 0; --t) {  // backwards, as a user scrubs
      engine->snapshotAt(t, again);
      const Snapshot& then = seen[std::size_t(t)];
      EXPECT_EQ(again.iteration, t);
      EXPECT_EQ(again.centroids, then.centroids) << "iteration " << t;
      EXPECT_EQ(again.centred_centroids, then.centred_centroids) << "iteration " << t;
      EXPECT_EQ(again.labels, then.labels) << "iteration " << t;
      EXPECT_EQ(again.stats.inertia, then.stats.inertia) << "iteration " << t;
      EXPECT_EQ(again.stats.changed, then.stats.changed) << "iteration " << t;
    }
    EXPECT_THROW(engine->snapshotAt(int(seen.size()), again), std::out_of_range);
    EXPECT_THROW(engine->snapshotAt(-1, again), std::out_of_range);
    engine->initialize(config);  // a new run forgets the old one
    EXPECT_THROW(engine->snapshotAt(1, again), std::out_of_range);
    config.keep_history = false;
    engine->initialize(config);
    EXPECT_THROW(engine->snapshotAt(0, again), std::logic_error);
  }
}

TEST(Assign, TiesGoToTheLowerIndexAndErrorsNameTheProblem) {
  const std::vector<float> points = {0.0f, 1.0f, 2.0f, 3.0f};
  auto engine = createCpuEngine(1);
  std::vector<std::int32_t> labels;
  EXPECT_THROW(engine->assign({0.0f}, labels), std::logic_error) << "no data yet";
  engine->setData(DataView{points.data(), 4, 1});
  // The data are centred on 1.5: centred centroids −1 and 1 are the values 0.5 and 2.5.
  engine->assign({-1.0f, 1.0f, -1.0f}, labels);  // centroid 2 equals centroid 0: never chosen
  EXPECT_EQ(labels, (std::vector<std::int32_t>{0, 0, 1, 1}));
  engine->assign({1.0f, -1.0f}, labels);
  EXPECT_EQ(labels, (std::vector<std::int32_t>{1, 1, 0, 0}));
  engine->assign({0.0f, 0.0f}, labels);  // every row on the bisector
  EXPECT_EQ(labels, (std::vector<std::int32_t>{0, 0, 0, 0}));
  EXPECT_THROW(engine->assign({}, labels), InvalidArgument);
  const std::vector<float> twoD = {0, 0, 1, 1};
  engine->setData(DataView{twoD.data(), 2, 2});
  try {
    engine->assign({0.0f, 1.0f, 2.0f}, labels);
    FAIL() << "3 values are not k × 2";
  } catch (const InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("not k × d"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace kms
