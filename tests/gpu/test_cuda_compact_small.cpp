// Small data of 4 < d ≤ 16 on the compact kernels: under 132 · 512 rows, each thread takes one
// row (AssignPlan::small_rows, twice the blocks), a warp loads its next queued row while it
// searches one, and a moved row's sums are moved by several lanes at once. Every iteration must
// be the CPU backend's: labels and centroids bit for bit (expectSameTrajectory), on random data,
// near ties, counted values and empty clusters, for each form of the update and both compiled
// widths (D = 8, 16). The plan is not visible through the Engine interface: these sizes (at most
// 37,000 rows, under 74 · 512) take one row a thread on GPUs of 74 or more multiprocessors (the
// H100 and H200 have 132); on smaller GPUs they run the two-row path, still against the CPU.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gpu_test_support.h"
#include "support/compact_data.h"

namespace kms {
namespace {

KMeansConfig seeded(int k, std::uint64_t seed) {
  KMeansConfig config;
  config.k = k;
  config.seed = seed;
  return config;
}

TEST(CompactSmallRows, NineCoordinatesLikeTheCpuEveryIteration) {
  KMS_REQUIRE_CUDA();
  // kmeans-bench's shape: 17,695 × 9, k = 128.
  const int d = 9;
  const auto x = test::blobPoints(17695, d, 40, 21, 2.0f, 0.6f);
  const auto stats =
      test::expectSameTrajectory(DataView{x.data(), x.size() / d, d}, seeded(128, 5), 30);
  ASSERT_EQ(stats.size(), 30u);
  EXPECT_EQ(stats.front().rows_searched, 17695) << "the first iteration searches every row";
  EXPECT_LT(stats.back().rows_searched, 17695 / 2) << "the bounds settle most rows later";
}

TEST(CompactSmallRows, EveryUpdateFormAndBothWidths) {
  KMS_REQUIRE_CUDA();
  struct Shape {
    int d, k;
  };
  // k ≤ 32: one warp's update; 33–63: one block's; 64–256: spread over ⌈k/8⌉ blocks.
  for (const Shape s : {Shape{5, 16}, Shape{7, 48}, Shape{12, 200}, Shape{16, 256}}) {
    SCOPED_TRACE("d = " + std::to_string(s.d) + ", k = " + std::to_string(s.k));
    const auto x = test::uniformPoints(30000, s.d, 7 + s.d, -4.0f, 6.0f);
    test::expectSameTrajectory(DataView{x.data(), x.size() / s.d, s.d}, seeded(s.k, 3), 20);
    if (HasFailure()) break;
  }
}

TEST(CompactSmallRows, NearTiesAcrossIterations) {
  KMS_REQUIRE_CUDA();
  // Rows on and a few ULPs off a bisector that the uneven pull drags across them: rows the
  // bounds settled change side (or tie) in later iterations, and the searched ones queue up in
  // their warps.
  const int d = 6;
  const auto x = test::bisectorBand(d, 9, 20000, 10000, 7000);
  const KMeansConfig config = test::givenCentroids(test::bisectorBandStart(d, 40), 40);
  test::expectSameTrajectory(DataView{x.data(), x.size() / d, d}, config, 60);
}

TEST(CompactSmallRows, CountedValues) {
  KMS_REQUIRE_CUDA();
  // 5^6 distinct values with their counts: a moved row moves count · q(x) and its count.
  const test::CompactData data = test::compactOf(test::levelPoints(200000, 6, 5, 23), 6);
  ASSERT_LT(data.rows(), 20000u);
  test::expectSameTrajectory(data.view(), seeded(64, 12), 25);
}

TEST(CompactSmallRows, EmptyClustersUnderBothPolicies) {
  KMS_REQUIRE_CUDA();
  // 8 of 70 starts far beyond the data, two equal to each other.
  const int d = 9, k = 70;
  const auto x = test::uniformPoints(25000, d, 17, -2.0f, 2.0f);
  std::vector<float> start(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(k) * d);
  for (int j = 0; j < 8; ++j)
    start[static_cast<std::size_t>(j) * d + j % d] = 1e5f * float(j + 1);
  for (int c = 0; c < d; ++c)
    start[static_cast<std::size_t>(69) * d + c] = start[static_cast<std::size_t>(68) * d + c];
  KMeansConfig config = test::givenCentroids(start, k);
  for (auto policy : {EmptyClusterPolicy::ReseedFarthest, EmptyClusterPolicy::KeepCentroid}) {
    config.empty_clusters = policy;
    const auto stats = test::expectSameTrajectory(DataView{x.data(), x.size() / d, d}, config, 20);
    ASSERT_FALSE(stats.empty());
    EXPECT_GE(stats.front().empty_clusters, 8);
  }
}

}  // namespace
}  // namespace kms
