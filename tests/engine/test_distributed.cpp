// A run spread over ranks (threads standing in for processes, tests/support/thread_collective.h)
// gives what one process gives on all the rows, bit for bit: every iteration's stats — the
// inertia included — the centroids and the labels, for any number of ranks and any shares.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <thread>

#include "kmeans/backend.h"
#include "kmeans/collective.h"
#include "kmeans/errors.h"
#include "support/reference_kmeans.h"
#include "support/starts_check.h"
#include "support/thread_collective.h"

namespace kms {
namespace {

using test::sameFloats;

/// What one run left: every iteration's stats, the final centroids (centred and in data units)
/// and every row's label.
struct RunResult {
  std::vector<IterationStats> stats;
  std::vector<float> centroids, centred;
  std::vector<std::int32_t> labels;
  std::string error;  ///< what the engine threw, if it did
};

/// Runs `engine` (data set) from `config` to the end.
RunResult runToEnd(Engine& engine, const KMeansConfig& config) {
  engine.initialize(config);
  RunResult out;
  while (!engine.finished())
    out.stats.push_back(engine.step());
  Snapshot s;
  engine.snapshot(s);
  out.centroids = s.centroids;
  out.centred = s.centred_centroids;
  out.labels = s.labels;
  return out;
}

RunResult runAlone(const std::vector<float>& points, int d, const KMeansConfig& config) {
  auto engine = createCpuEngine(2);
  engine->setData({points.data(), points.size() / std::size_t(d), d});
  return runToEnd(*engine, config);
}

/// Rank r of `bounds.size() − 1` ranks runs rows [bounds[r], bounds[r + 1]); the labels are put
/// back together in rank order. Returns rank 0's view (every rank's stats and centroids are
/// checked equal to it).
RunResult runShared(const std::vector<float>& points, int d, const KMeansConfig& config,
                    const std::vector<std::size_t>& bounds) {
  const int ranks = int(bounds.size()) - 1;
  test::ThreadWorld world(ranks);
  std::vector<RunResult> results(static_cast<std::size_t>(ranks));
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      RunResult& out = results[std::size_t(r)];
      try {
        auto engine = createCpuEngine(1, world.rank(r));
        const std::size_t first = bounds[std::size_t(r)], last = bounds[std::size_t(r) + 1];
        engine->setData({points.data() + first * std::size_t(d), last - first, d});
        out = runToEnd(*engine, config);
      } catch (const std::exception& e) {
        out.error = e.what();
      }
    });
  for (auto& t : threads)
    t.join();
  RunResult all = results[0];
  for (int r = 1; r < ranks; ++r) {
    const RunResult& other = results[std::size_t(r)];
    EXPECT_EQ(other.error, all.error) << "rank " << r;
    EXPECT_TRUE(sameFloats(other.centroids, all.centroids)) << "rank " << r;
    EXPECT_EQ(other.stats.size(), all.stats.size()) << "rank " << r;
    all.labels.insert(all.labels.end(), other.labels.begin(), other.labels.end());
  }
  return all;
}

void expectSameRun(const RunResult& alone, const RunResult& shared, const std::string& what) {
  ASSERT_TRUE(shared.error.empty()) << what << ": " << shared.error;
  ASSERT_EQ(shared.stats.size(), alone.stats.size()) << what;
  for (std::size_t t = 0; t < alone.stats.size(); ++t) {
    EXPECT_EQ(shared.stats[t].changed, alone.stats[t].changed) << what << ", iteration " << t + 1;
    EXPECT_EQ(shared.stats[t].inertia, alone.stats[t].inertia) << what << ", iteration " << t + 1;
    EXPECT_EQ(shared.stats[t].max_shift, alone.stats[t].max_shift) << what;
    EXPECT_EQ(shared.stats[t].empty_clusters, alone.stats[t].empty_clusters) << what;
    EXPECT_EQ(shared.stats[t].converged, alone.stats[t].converged) << what;
  }
  EXPECT_TRUE(sameFloats(shared.centroids, alone.centroids)) << what;
  EXPECT_TRUE(sameFloats(shared.centred, alone.centred)) << what;
  EXPECT_EQ(shared.labels, alone.labels) << what;
}

std::string describeShares(const std::vector<std::size_t>& bounds) {
  std::string s;
  for (std::size_t r = 0; r + 1 < bounds.size(); ++r)
    s += (r ? "/" : "") + std::to_string(bounds[r + 1] - bounds[r]);
  return s;
}

TEST(DistributedRun, SharesShareTheWorkAndNothingElse) {
  const auto even = shareBoundaries(5 * kShareRowMultiple + 100, 3);
  EXPECT_EQ(even, (std::vector<std::size_t>{0, 2 * kShareRowMultiple, 4 * kShareRowMultiple,
                                            5 * kShareRowMultiple + 100}));  // 2, 2, 1.01 blocks
  const auto uneven = shareBoundaries(10 * kShareRowMultiple, 2, {1.0, 4.0});
  EXPECT_EQ(uneven[1], 2 * kShareRowMultiple);
  const auto empty = shareBoundaries(100, 3);  // one block: two empty shares
  EXPECT_EQ(empty, (std::vector<std::size_t>{0, 0, 100, 100}));
  RowShare share{0, 100, empty};
  EXPECT_EQ(share.ownerOf(0), 1);
  EXPECT_EQ(share.ownerOf(99), 1);
}

TEST(DistributedRun, AnyNumberOfRanksGivesTheOneProcessRunBitForBit) {
  const int d = 5;
  const std::size_t n = 6 * kShareRowMultiple + 777;
  const auto points = test::blobPoints(n, d, 9, 41, 4.0f, 1.0f);
  for (InitMethod init : {InitMethod::GreedyKMeansPlusPlus, InitMethod::KMeansPlusPlus,
                          InitMethod::KMeansParallel, InitMethod::Random}) {
    KMeansConfig config;
    config.k = 12;
    config.seed = 7;
    config.init = init;
    config.max_iterations = 40;
    const RunResult alone = runAlone(points, d, config);
    for (int ranks = 1; ranks <= 4; ++ranks) {
      std::vector<double> uneven;
      for (int r = 0; r < ranks; ++r)
        uneven.push_back(double(1 + (3 * r) % 4));  // 1, 4, 3, 2
      for (const auto& bounds : {shareBoundaries(n, ranks), shareBoundaries(n, ranks, uneven)})
        expectSameRun(alone, runShared(points, d, config, bounds),
                      std::string(toString(init)) + ", shares " + describeShares(bounds));
    }
  }
}

TEST(DistributedRun, ReseedsOfEmptyClustersAreTheOneProcessRunsAtHighDimensions) {
  // Starts far outside the data leave clusters empty; the farthest rows re-seed them, chosen by
  // distance and position alone — the same whichever rank holds them. Duplicated rows make ties.
  const int d = 16;
  const std::size_t n = 3 * kShareRowMultiple + 5;
  auto points = test::uniformPoints(n, d, 5);
  for (std::size_t i = 0; i < n; i += 3)  // every third row a copy of a row on another rank
    std::copy_n(&points[((i * 7919) % n) * d], d, &points[i * d]);
  KMeansConfig config;
  config.k = 24;
  config.init = InitMethod::Given;
  config.max_iterations = 6;
  config.initial_centroids.assign(std::size_t(config.k) * d, 0.0f);
  for (int j = 0; j < config.k; ++j)
    for (int c = 0; c < d; ++c)
      config.initial_centroids[std::size_t(j) * d + c] =
          j < 4 ? 0.1f * float(j - c % 3) : 50.0f + j;
  const RunResult alone = runAlone(points, d, config);
  ASSERT_GT(alone.stats.at(0).empty_clusters, 10);
  for (int ranks = 2; ranks <= 4; ++ranks) {
    const auto bounds = shareBoundaries(n, ranks);
    expectSameRun(alone, runShared(points, d, config, bounds),
                  "re-seeds, shares " + describeShares(bounds));
  }
}

TEST(DistributedRun, ResumingFromCentredCentroidsContinuesTheRunExactly) {
  // A checkpoint keeps the centred centroids after iteration t − 1; running iteration t again from
  // them (its labels are the interrupted run's) and on gives the uninterrupted run's result.
  const int d = 3;
  const std::size_t n = 4 * kShareRowMultiple + 31;
  const auto points = test::blobPoints(n, d, 6, 3, 3.0f, 1.2f);
  KMeansConfig config;
  config.k = 9;
  config.keep_history = true;
  const RunResult alone = runAlone(points, d, config);
  ASSERT_GT(alone.stats.size(), 6u);
  auto engine = createCpuEngine(2);
  engine->setData({points.data(), n, d});
  engine->initialize(config);
  engine->run();
  const int t = 5;
  Snapshot before;
  engine->snapshotAt(t - 1, before);
  KMeansConfig resumed = config;
  resumed.keep_history = false;
  resumed.init = InitMethod::Given;
  resumed.initial_centroids = before.centred_centroids;
  resumed.initial_centroids_centred = true;
  resumed.max_iterations = config.max_iterations - (t - 1);
  for (int ranks : {1, 3}) {
    const RunResult rest = runShared(points, d, resumed, shareBoundaries(n, ranks, {}));
    ASSERT_TRUE(rest.error.empty()) << rest.error;
    ASSERT_EQ(rest.stats.size() + std::size_t(t - 1), alone.stats.size()) << ranks << " ranks";
    for (std::size_t i = 1; i < rest.stats.size(); ++i)  // the first re-run counts every row
      EXPECT_EQ(rest.stats[i].changed, alone.stats[i + t - 1].changed);
    EXPECT_TRUE(sameFloats(rest.centroids, alone.centroids));
    EXPECT_EQ(rest.labels, alone.labels);
  }
}

TEST(DistributedRun, BadSharesAndBadValuesStopEveryRankWithOneMessage) {
  const int d = 2;
  const std::size_t n = 3 * kShareRowMultiple;
  auto points = test::uniformPoints(n, d, 9);
  KMeansConfig config;
  config.k = 4;
  // A share that is not a whole number of blocks.
  RunResult r = runShared(points, d, config, {0, 1000, n});
  EXPECT_NE(r.error.find("Rank 0's share of the rows (1000) is not a multiple of 8192"),
            std::string::npos)
      << r.error;
  // An empty share.
  r = runShared(points, d, config, {0, 0, n});
  EXPECT_NE(r.error.find("has no points"), std::string::npos) << r.error;
  // A NaN in the last rank's rows: named by its global index on every rank.
  points[(2 * kShareRowMultiple + 5) * d + 1] = std::numeric_limits<float>::quiet_NaN();
  r = runShared(points, d, config, shareBoundaries(n, 3));
  EXPECT_NE(
      r.error.find("NaN at point " + std::to_string(2 * kShareRowMultiple + 5) + ", coordinate 1"),
      std::string::npos)
      << r.error;
  // k larger than all the rows together, though not than one share.
  config.k = int(n) + 1;
  points = test::uniformPoints(n, d, 9);
  r = runShared(points, d, config, shareBoundaries(n, 3));
  EXPECT_NE(r.error.find("larger than the number of points (" + std::to_string(n) + ")"),
            std::string::npos)
      << r.error;
}

TEST(DistributedRun, ABackendChosenPerProcessIsRefusedForACollectiveOfSeveralRanks) {
  test::ThreadWorld world(2);
  EngineOptions options;
  options.collective = world.rank(0);
  EXPECT_THROW(createEngine(BackendKind::Auto, options), InvalidArgument);
  EXPECT_THROW(createEngine(BackendKind::CudaAllGpus, options), InvalidArgument);
}

}  // namespace
}  // namespace kms
