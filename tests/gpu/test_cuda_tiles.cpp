// Point tiles (d ≤ 4): the rows sorted along a Morton curve in tiles of 32, whole tiles settled
// by a ball test, the others row by row against a few candidate centroids. The labels must be
// the CPU backend's and the centroids bit-identical, iteration by iteration, on data where most
// tiles settle (photo-like pictures, so the tests would notice tiles that never settle) and on
// data built to sit on the tests' edges: tiles of identical rows exactly on a bisector, balls
// just inside and just outside a centroid's half gap, coordinates whose squares overflow.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>

#include "gpu_test_support.h"
#include "kmeans/testing.h"
#include "picture_data.h"
#include "support/compact_data.h"

namespace kms {
namespace {

using test::picture;

TestingOptions rowsOnly() {
  TestingOptions options;
  options.cuda.point_tiles = PointTiles::Never;
  return options;
}

/// Tiles throughout, also where the data are too sparse for them (PointTiles::Auto would give
/// them up for the row kernel after two iterations).
TestingOptions tilesAlways() {
  TestingOptions options;
  options.cuda.point_tiles = PointTiles::Always;
  return options;
}

struct TrajectoryOptions {
  int iterations = 30;
  bool expect_settled = true;  ///< half the rows or more settled by whole tiles from iteration 6
};

/// test::expectSameTrajectory on tiles throughout (the inertia of settled tiles comes from their
/// moments, in double: within the CPU's float rounding of each distance).
void expectSameTrajectory(const DataView& view, const KMeansConfig& config,
                          const TrajectoryOptions& o = {}) {
  const auto stats = test::expectSameTrajectory(view, config, o.iterations, tilesAlways());
  std::int64_t least_searched = INT64_MAX;
  for (std::size_t t = 5; t < stats.size(); ++t)
    least_searched = std::min(least_searched, stats[t].rows_searched);
  if (o.expect_settled)  // rows looked at one by one: the smaller share once the run has settled
    EXPECT_LT(least_searched, static_cast<std::int64_t>(view.n / 2)) << "tiles never settle";
}

struct TileCase {
  int d;
  int k;
  bool reseed;   ///< a third of the centroids start far away: clusters empty and re-seed
  bool counted;  ///< the picture's distinct values with their counts
  int step;      ///< posterised to levels this far apart (1: every 8-bit level)
};

class TilesGpuVersusCpu : public ::testing::TestWithParam<TileCase> {};

TEST_P(TilesGpuVersusCpu, SameTrajectory) {
  KMS_REQUIRE_CUDA();
  const TileCase c = GetParam();
  // 331 × 307 pixels: not a multiple of the tile's 32 rows.
  const auto p = picture(331, 307, c.d, 40 + c.d + c.k, c.step);
  // Posterised pictures of few channels repeat colours enough for most tiles to settle.
  const bool dense = c.step >= 16 && c.d <= 3 && c.k <= 64;
  const KMeansConfig config = test::pictureStart(c.k, c.d, 5 + c.k, c.reseed);
  if (c.counted) {
    const test::CompactData compact = test::compactOf(p, c.d);
    expectSameTrajectory(compact.view(), config, {30, false});
  } else {
    expectSameTrajectory(DataView{p.data(), p.size() / c.d, c.d}, config, {30, dense});
  }
}

std::string tileName(const ::testing::TestParamInfo<TileCase>& info) {
  const TileCase& c = info.param;
  return "d" + std::to_string(c.d) + "_k" + std::to_string(c.k) + (c.reseed ? "_reseed" : "") +
         (c.counted ? "_counts" : "") + "_step" + std::to_string(c.step);
}

INSTANTIATE_TEST_SUITE_P(
    Pictures, TilesGpuVersusCpu,
    ::testing::Values(TileCase{3, 16, false, false, 16}, TileCase{3, 64, true, false, 16},
                      TileCase{2, 40, false, false, 16}, TileCase{3, 16, false, false, 1},
                      TileCase{3, 256, false, false, 1}, TileCase{3, 300, true, false, 16},
                      TileCase{3, 1024, false, false, 1}, TileCase{1, 16, false, false, 1},
                      TileCase{1, 5, true, false, 1}, TileCase{4, 100, true, false, 1},
                      TileCase{3, 1, false, false, 16}, TileCase{3, 2, false, false, 1},
                      TileCase{3, 16, false, true, 1}, TileCase{3, 256, true, true, 16},
                      TileCase{4, 64, false, true, 1}, TileCase{1, 128, false, false, 1},
                      TileCase{2, 200, true, false, 1}),
    tileName);

// Tiles of identical rows exactly on the bisector of two centroids (a ball of radius 0 whose
// centre is equidistant: both are candidates, the lower index wins), and groups a few ULPs to
// either side, with two far groups pulling the centroids across them over many iterations.
TEST(CudaTiles, IdenticalRowsOnABisectorFollowTheCpu) {
  KMS_REQUIRE_CUDA();
  std::vector<float> p;
  std::mt19937 rng(9);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (int g = 0; g < 2000; ++g) {  // groups of 64 identical rows near x = 0.5
    float x = 0.5f;
    for (int step = 0; step < g % 5; ++step)
      x = std::nextafter(x, g % 2 ? 0.0f : 1.0f);
    if (g % 7 == 0) x = 0.45f + 0.1f * u(rng);
    for (int r = 0; r < 64; ++r)
      p.insert(p.end(), {x, 0.25f, 0.75f});
  }
  for (int i = 0; i < 30000; ++i)
    p.insert(p.end(), {-2.0f + 0.01f * u(rng), 0.25f, 0.75f});
  for (int i = 0; i < 25000; ++i)
    p.insert(p.end(), {3.0f + 0.01f * u(rng), 0.25f, 0.75f});
  // Centroids 0 and 1 astride x = 0.5 exactly (0.25 and 0.75), a third far away.
  const std::vector<float> start = {0.25f, 0.25f, 0.75f, 0.75f, 0.25f, 0.75f, 9.0f, 9.0f, 9.0f};
  expectSameTrajectory(DataView{p.data(), p.size() / 3, 3}, test::givenCentroids(start, 3),
                       {50, false});
}

// Balls that end just inside and just outside a centroid's half gap: tight groups of rows at
// distances from their centroid that cross s(c) = half the distance to the nearest other
// centroid by a few units of rounding (and rows exactly on the bisector), with the centroids
// held near their places by heavy groups at their own positions.
TEST(CudaTiles, BallsAtTheHalfGapFollowTheCpu) {
  KMS_REQUIRE_CUDA();
  std::vector<float> p;
  const float a = 0.2f, b = 0.8f;  // two centroids on the x axis; s = 0.3
  for (int i = 0; i < 20000; ++i) {
    p.insert(p.end(), {a, 0.0f});
    p.insert(p.end(), {b, 0.0f});
  }
  std::mt19937 rng(4);
  std::uniform_real_distribution<float> tiny(-1e-6f, 1e-6f);
  for (int g = 0; g < 300; ++g) {
    float x = 0.5f;  // the half gap from a, then ULPs and tiny offsets either side
    for (int step = 0; step < g % 9; ++step)
      x = std::nextafter(x, g % 2 ? 0.0f : 1.0f);
    const float y = g % 3 == 0 ? tiny(rng) : 0.0f;
    for (int r = 0; r < 32; ++r)
      p.insert(p.end(), {x + (r % 4 == 0 ? tiny(rng) : 0.0f), y});
  }
  const std::vector<float> start = {a, 0.0f, b, 0.0f};
  expectSameTrajectory(DataView{p.data(), p.size() / 2, 2}, test::givenCentroids(start, 2),
                       {12, false});
}

// Coordinates up to 1.5e19: squared distances of far pairs overflow float. The balls are too
// large to prove anything with, so every row searches all k exactly, as the CPU does (ties of ∞
// to index 0).
TEST(CudaTiles, HugeCoordinatesAreSearchedRowByRow) {
  KMS_REQUIRE_CUDA();
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1.5e19f, 1.5e19f);
  std::vector<float> p(3 * 4001);
  for (auto& v : p)
    v = u(rng);
  const std::vector<float> start(p.begin(), p.begin() + 3 * 5);
  expectSameTrajectory(DataView{p.data(), p.size() / 3, 3}, test::givenCentroids(start, 5),
                       {8, false});
}

// Fewer rows than one tile, and one row.
TEST(CudaTiles, FewerRowsThanATile) {
  KMS_REQUIRE_CUDA();
  const auto p = test::uniformPoints(19, 3, 2, 0.0f, 1.0f);
  const std::vector<float> start(p.begin(), p.begin() + 3 * 4);
  expectSameTrajectory(DataView{p.data(), 19, 3}, test::givenCentroids(start, 4), {6, false});
  const std::vector<float> one = {0.5f, 0.25f};
  expectSameTrajectory(DataView{one.data(), 1, 2}, test::givenCentroids(one, 1), {3, false});
}

// The same run with and without tiles: identical labels and centroids every iteration, the
// inertia equal to a few units of double rounding, and far fewer rows looked at one by one.
TEST(CudaTiles, TilesAndRowsGiveTheSameRun) {
  KMS_REQUIRE_CUDA();
  const auto p = picture(640, 480, 3, 77, 16);
  const DataView view{p.data(), p.size() / 3, 3};
  auto tiles = createEngine(BackendKind::Cuda, tilesAlways()).engine;
  auto rows = createEngine(BackendKind::Cuda, rowsOnly()).engine;
  tiles->setData(view);
  rows->setData(view);
  KMeansConfig config;
  config.k = 48;
  config.init = InitMethod::GreedyKMeansPlusPlus;
  config.seed = 5;
  config.empty_clusters = EmptyClusterPolicy::ReseedFarthest;
  const auto stats = test::expectSameEngineRun(*tiles, *rows, config, 40, 7);
  ASSERT_FALSE(HasFailure());
  std::int64_t searched_tiles = 0;
  for (std::size_t t = 10; t < stats.size(); ++t)  // iterations 11 to 40
    searched_tiles += stats[t].rows_searched;
  // Most rows were settled with their whole tile (rows_searched: rows looked at one by one).
  EXPECT_LT(searched_tiles, static_cast<std::int64_t>(30 * view.n / 2));
  // Replays (history) see the original row order either way.
  Snapshot last;
  tiles->snapshot(last);
  std::vector<std::int32_t> la, lb;
  tiles->assign(last.centred_centroids, la);
  rows->assign(last.centred_centroids, lb);
  EXPECT_EQ(la, lb);
}

// Chunks of very different costs (a posterised picture, where whole tiles settle, beside an
// 8-bit one, whose tiles straddle many regions): from the second iteration on, the tile kernel
// takes the chunks in the order of their last cost (TileSchedule), which must leave every
// result as it was — each chunk taken exactly once, whatever the order — also through empty
// clusters re-seeded (ASecondRunOnTheSameEngineIsTheFirstAgain has a capture and a second run).
TEST(CudaTiles, ChunksTakenCostliestFirstFollowTheCpu) {
  KMS_REQUIRE_CUDA();
  auto p = picture(400, 300, 3, 91, 32);
  const auto noisy = picture(400, 300, 3, 92);
  p.insert(p.end(), noisy.begin(), noisy.end());
  auto start = test::uniformPoints(96, 3, 17, 0.1f, 0.9f);
  for (int j = 0; j < 96; j += 5)
    start[std::size_t(j) * 3 + 1] += 40.0f;  // far away: emptied and re-seeded
  KMeansConfig config = test::givenCentroids(start, 96);
  config.empty_clusters = EmptyClusterPolicy::ReseedFarthest;
  expectSameTrajectory(DataView{p.data(), p.size() / 3, 3}, config, {40, false});
}

// Enough tiles that warps take several chunks each (the grid holds at most four blocks of eight
// warps per multiprocessor: 4,224 warps on 132 of them, against the 146,250 chunks here), so
// that after the first iteration the chunks come from the counter in cost order, not only from
// each warp's first ticket: the CPU's labels and centroids every iteration.
TEST(CudaTiles, SeveralChunksAWarpInCostOrderFollowTheCpu) {
  KMS_REQUIRE_CUDA();
  const auto p = picture(2600, 1800, 3, 93, 8);  // 4.68 M rows
  const auto start = test::uniformPoints(40, 3, 19, 0.1f, 0.9f);
  expectSameTrajectory(DataView{p.data(), p.size() / 3, 3}, test::givenCentroids(start, 40),
                       {8, false});
}

// A crowded neighbourhood: 216 of 256 centroids on a lattice half an 8-bit level apart around
// one colour, so that the walks of tiles there meet dozens of centroids at nearly equal
// distances (often more than a mixed tile's eight candidates: then its rows search all k), and
// rows of 8-bit values fall on (or a rounding away from) the lattice's bisectors. Empty clusters
// keep their centroids, so the lattice stays crowded. The CPU's labels and centroids every
// iteration.
TEST(CudaTiles, CrowdedCentroidsFollowTheCpu) {
  KMS_REQUIRE_CUDA();
  const auto p = picture(360, 280, 3, 57);
  std::vector<float> start;
  const float level = 1.0f / 255.0f;
  const float origin[3] = {p[0], p[1], p[2]};  // a colour of the picture
  for (int i = 0; i < 6; ++i)
    for (int j = 0; j < 6; ++j)
      for (int l = 0; l < 6; ++l) {
        const int step[3] = {i - 3, j - 3, l - 3};
        for (int c = 0; c < 3; ++c)
          start.push_back(origin[c] + (0.25f + 0.5f * static_cast<float>(step[c])) * level);
      }
  const auto spread = test::uniformPoints(40, 3, 23, 0.05f, 0.95f);
  start.insert(start.end(), spread.begin(), spread.end());
  KMeansConfig config = test::givenCentroids(start, 256);
  config.empty_clusters = EmptyClusterPolicy::KeepCentroid;
  expectSameTrajectory(DataView{p.data(), p.size() / 3, 3}, config, {20, false});
}

// Same data, same start: the same inertia to the last bit on every run (the tiles' moments are
// added in an order fixed by the grid, not by which warp came first).
TEST(CudaTiles, RepeatRunsAreBitIdentical) {
  KMS_REQUIRE_CUDA();
  const auto p = picture(500, 400, 3, 12);
  const DataView view{p.data(), p.size() / 3, 3};
  std::vector<double> inertia[2];
  std::vector<float> centroids[2];
  for (int run = 0; run < 2; ++run) {
    auto e = createEngine(BackendKind::Cuda, tilesAlways()).engine;
    e->setData(view);
    KMeansConfig config;
    config.k = 32;
    config.seed = 3;
    config.tolerance = 0;
    config.max_iterations = 25;
    e->initialize(config);
    for (int it = 0; it < 25; ++it)
      inertia[run].push_back(e->step().inertia);
    Snapshot s;
    e->snapshot(s);
    centroids[run] = s.centroids;
  }
  EXPECT_EQ(inertia[0], inertia[1]);
  EXPECT_EQ(centroids[0], centroids[1]);
}

// A second run on the same engine starts with the tiles' state the first one left (owners,
// bounds, the iteration's shared counters, labels in the sorted order): it must be the first run
// again — inertia to the last bit, changed counts, centroids, labels — as a fresh engine's is,
// also across a snapshot capture, which rewrites every label into the other half.
TEST(CudaTiles, ASecondRunOnTheSameEngineIsTheFirstAgain) {
  KMS_REQUIRE_CUDA();
  const auto p = picture(700, 500, 3, 31, 4);
  const DataView view{p.data(), p.size() / 3, 3};
  KMeansConfig config;
  config.k = 64;
  config.seed = 8;
  config.tolerance = 0;
  config.max_iterations = 30;
  config.empty_clusters = EmptyClusterPolicy::ReseedFarthest;
  struct Run {
    std::vector<double> inertia;
    std::vector<std::size_t> changed;
    Snapshot last;
  };
  const auto run = [&](Engine& e) {
    Run r;
    e.initialize(config);
    for (int it = 0; it < 30; ++it) {
      if (it == 12) e.requestSnapshot();
      const IterationStats s = e.step();
      r.inertia.push_back(s.inertia);
      r.changed.push_back(s.changed);
    }
    e.snapshot(r.last);
    return r;
  };
  auto used = createEngine(BackendKind::Cuda, tilesAlways()).engine;
  used->setData(view);
  const Run first = run(*used);
  const Run second = run(*used);  // starts from the state the first run left
  auto fresh = createEngine(BackendKind::Cuda, tilesAlways()).engine;
  fresh->setData(view);
  const Run third = run(*fresh);
  for (const Run* other : {&second, &third}) {
    EXPECT_EQ(first.inertia, other->inertia);
    EXPECT_EQ(first.changed, other->changed);
    EXPECT_EQ(first.last.centred_centroids, other->last.centred_centroids);
    EXPECT_EQ(first.last.labels, other->last.labels);
  }
}

}  // namespace
}  // namespace kms
