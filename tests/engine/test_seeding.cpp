// Deterministic seeding helpers and the thread pool.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <stdexcept>

#include "common/seeding.h"
#include "common/thread_pool.h"

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

}  // namespace
}  // namespace kms
