// Groups of equal rows (repeat_groups.cuh): data whose rows repeat — a photo's pixels — iterate
// over one row and its count per group, and every row takes its group's label afterwards (the
// groups whose label changed, or all of them on the first iteration and into a capture's other
// label half). Labels must be the CPU backend's and centroids bit-identical every iteration: on
// posterised pictures, with empty clusters re-seeded from the rows' labels, with 16-bit labels,
// through snapshot captures, in launches of several iterations, on groups of a hundred and of
// sixty thousand equal values, and chosen by RepeatedRows::Auto for a photo-sized picture.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu_test_support.h"
#include "kmeans/testing.h"
#include "loop_test_support.h"
#include "picture_data.h"
#include "support/compact_data.h"

namespace kms {
namespace {

/// The groups whenever the data have tiles (any share of repeats, any size).
TestingOptions groupsAlways() {
  TestingOptions options;
  options.cuda.point_tiles = PointTiles::Always;
  options.cuda.repeated_rows = RepeatedRows::Always;
  return options;
}

TestingOptions tilesAlways() {
  TestingOptions options;
  options.cuda.point_tiles = PointTiles::Always;
  options.cuda.repeated_rows = RepeatedRows::Never;
  return options;
}

/// Distinct rows of `p` (d coordinates).
std::size_t distinctRows(const std::vector<float>& p, int d) {
  return test::compactOf(p, d).view().n;
}

struct GroupCase {
  int d;
  int k;
  bool reseed;  ///< a third of the centroids start far away: clusters empty and re-seed
  int step;     ///< posterised to levels this far apart (1: every 8-bit level)
};

class GroupsGpuVersusCpu : public ::testing::TestWithParam<GroupCase> {};

TEST_P(GroupsGpuVersusCpu, SameTrajectory) {
  KMS_REQUIRE_CUDA();
  const GroupCase c = GetParam();
  const auto p = test::picture(331, 307, c.d, 60 + c.d + c.k, c.step);
  const KMeansConfig config = test::pictureStart(c.k, c.d, 9 + c.k, c.reseed);
  const DataView view{p.data(), p.size() / c.d, c.d};
  const auto stats = test::expectSameTrajectory(view, config, 30, groupsAlways());
  ASSERT_FALSE(stats.empty());
  // The first iteration searched every group — each distinct row once (the Morton keys of
  // 8-bit levels are distinct) — not every row.
  EXPECT_EQ(stats[0].rows_searched, static_cast<std::int64_t>(distinctRows(p, c.d)))
      << "not iterating over the groups";
}

std::string groupName(const ::testing::TestParamInfo<GroupCase>& info) {
  const GroupCase& c = info.param;
  return "d" + std::to_string(c.d) + "_k" + std::to_string(c.k) + (c.reseed ? "_reseed" : "") +
         "_step" + std::to_string(c.step);
}

INSTANTIATE_TEST_SUITE_P(Pictures, GroupsGpuVersusCpu,
                         ::testing::Values(GroupCase{3, 16, false, 16}, GroupCase{3, 64, true, 16},
                                           GroupCase{3, 256, false, 4}, GroupCase{3, 300, true, 8},
                                           GroupCase{3, 1024, false, 8}, GroupCase{1, 8, true, 1},
                                           GroupCase{2, 40, false, 8}, GroupCase{4, 100, true, 2},
                                           GroupCase{3, 1, false, 16}),
                         groupName);

// Groups and tiles side by side, with a snapshot capture every seventh iteration (labels into
// the other half: every group's rows written) and empty clusters re-seeded from the rows'
// labels: the same labels, centroids and captures every iteration; and the same inertia to the
// last bit when the run is repeated.
TEST(CudaGroups, GroupsAndTilesGiveTheSameRun) {
  KMS_REQUIRE_CUDA();
  const auto p = test::picture(640, 480, 3, 78, 8);
  const DataView view{p.data(), p.size() / 3, 3};
  KMeansConfig config;
  config.k = 48;
  config.init = InitMethod::GreedyKMeansPlusPlus;
  config.seed = 6;
  config.empty_clusters = EmptyClusterPolicy::ReseedFarthest;
  auto groups = createEngine(BackendKind::Cuda, groupsAlways()).engine;
  auto tiles = createEngine(BackendKind::Cuda, tilesAlways()).engine;
  groups->setData(view);
  tiles->setData(view);
  const auto first = test::expectSameEngineRun(*groups, *tiles, config, 40, 7);
  ASSERT_FALSE(HasFailure());
  const auto again = test::expectSameEngineRun(*groups, *tiles, config, 40, 5);
  ASSERT_EQ(first.size(), again.size());
  for (std::size_t i = 0; i < first.size(); ++i)
    EXPECT_EQ(first[i].inertia, again[i].inertia) << "iteration " << i + 1;
}

// Snapshot captures (labels into the other half: every group's rows written) taken while the
// run goes on, against the CPU's labels and centroids of the captured iteration.
TEST(CudaGroups, CapturesFollowTheCpu) {
  KMS_REQUIRE_CUDA();
  const auto p = test::picture(400, 300, 3, 79, 8);
  const DataView view{p.data(), p.size() / 3, 3};
  KMeansConfig config = test::pictureStart(40, 3, 13, true);
  config.tolerance = 0;
  config.max_iterations = 24;
  auto gpu = createEngine(BackendKind::Cuda, groupsAlways()).engine;
  auto cpu = createCpuEngine(0);
  gpu->setData(view);
  cpu->setData(view);
  gpu->initialize(config);
  cpu->initialize(config);
  std::vector<Snapshot> expected(1);  // the CPU's snapshot after each iteration, from 1
  int taken = 0;
  for (int it = 1; it <= config.max_iterations; ++it) {
    const bool capture = it % 4 == 1;
    if (capture) gpu->requestSnapshot();
    gpu->step();
    cpu->step();
    cpu->snapshot(expected.emplace_back());
    Snapshot captured;
    if (!capture || !test::awaitCapture(*gpu, captured)) continue;
    ++taken;
    ASSERT_GE(captured.iteration, 1);
    ASSERT_LE(captured.iteration, it);
    EXPECT_EQ(captured.labels, expected[captured.iteration].labels)
        << "capture of iteration " << captured.iteration;
    EXPECT_EQ(captured.centroids, expected[captured.iteration].centroids)
        << "capture of iteration " << captured.iteration;
    if (HasFailure()) break;
  }
  EXPECT_GE(taken, 3) << "too few captures to test";
}

// Launches of sixteen iterations in one graph (the expansion of the labels inside each), and
// shorter calls step() by step(), against step() by step() and the CPU; 8- and 16-bit labels.
TEST(CudaGroups, InLaunchesAsStepByStep) {
  KMS_REQUIRE_CUDA();
  const auto x = test::levelPoints(200000, 3, 10, 41);
  const DataView view{x.data(), x.size() / 3, 3};
  for (const int k : {64, 300}) {
    SCOPED_TRACE("k = " + std::to_string(k));
    KMeansConfig config;
    config.k = k;
    config.seed = 4;
    config.tolerance = 0;
    config.max_iterations = 40;
    const auto stats = test::expectLoopIsStepByStep(view, config, {16, 5, 16},
                                                    test::LoopShape{16, false}, groupsAlways());
    ASSERT_FALSE(stats.empty());
    EXPECT_EQ(stats[0].rows_searched, static_cast<std::int64_t>(distinctRows(x, 3)))
        << "not iterating over the groups";
    if (HasFailure()) break;
  }
}

// A hundred equal values at 0 and at 10 (two groups of a hundred rows) with two lone values
// between: the middle cluster empties in the second iteration, inside a launch.
TEST(CudaGroups, AClusterEmptiedInsideALaunch) {
  KMS_REQUIRE_CUDA();
  std::vector<float> x;
  const KMeansConfig config = test::emptiedInSecondIteration(x);
  const DataView view{x.data(), x.size(), 1};
  for (const EmptyClusterPolicy policy :
       {EmptyClusterPolicy::ReseedFarthest, EmptyClusterPolicy::KeepCentroid})
    test::expectMidLaunchEmptying(view, config, policy, test::LoopShape{16, false}, groupsAlways());
  auto engine = createEngine(BackendKind::Cuda, groupsAlways()).engine;  // four groups
  engine->setData(view);
  engine->initialize(config);
  EXPECT_EQ(engine->step().rows_searched, 4) << "not iterating over the groups";
}

// A group far larger than the segments one thread lists (60,000 equal values, 235 segments)
// changing cluster in the second iteration — every warp of the expansion takes a share of it —
// step() by step() against the CPU, and in a launch.
TEST(CudaGroups, ALargeGroupChangingClusterIsSharedByEveryWarp) {
  KMS_REQUIRE_CUDA();
  std::vector<float> x(60000, 0.45f);  // nearer 0 than 0.95, then nearer 1 than the pulled −0.41
  x.insert(x.end(), 20000, -3.0f);
  x.insert(x.end(), 20000, 1.0f);
  const DataView view{x.data(), x.size(), 1};
  KMeansConfig config = test::givenCentroids({0.0f, 0.95f}, 2);
  config.max_iterations = 12;
  const auto stats = test::expectSameTrajectory(view, config, 4, groupsAlways());
  ASSERT_GE(stats.size(), 2u);
  EXPECT_EQ(stats[1].changed, 60000) << "the large group did not change cluster";
  config.tolerance = 0;
  test::expectLoopIsStepByStep(view, config, {16}, test::LoopShape{16, false}, groupsAlways());
}

// Counted data (distinct values already) never form groups — theirs would lose the counts —
// even when the groups are asked for: the CPU's run.
TEST(CudaGroups, CountedDataKeepTheirCounts) {
  KMS_REQUIRE_CUDA();
  const test::CompactData data = test::compactOf(test::picture(331, 307, 3, 81, 8), 3);
  test::expectSameTrajectory(data.view(), test::pictureStart(24, 3, 3, true), 20, groupsAlways());
}

// RepeatedRows::Auto on a photo-sized picture (4.68 M pixels, Auto's tiles) whose pixels repeat:
// the groups are chosen, and the run is the CPU's.
TEST(CudaGroups, AutoChoosesThemForAPhotoSizedPicture) {
  KMS_REQUIRE_CUDA();
  const auto p = test::picture(2600, 1800, 3, 94, 8);
  const DataView view{p.data(), p.size() / 3, 3};
  KMeansConfig config;
  config.k = 32;
  config.seed = 2;
  const auto stats = test::expectSameTrajectory(view, config, 6);
  ASSERT_FALSE(stats.empty());
  EXPECT_EQ(stats[0].rows_searched, static_cast<std::int64_t>(distinctRows(p, 3)));
}

}  // namespace
}  // namespace kms
