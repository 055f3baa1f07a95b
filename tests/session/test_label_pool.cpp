// LabelPool: buffers of the asked size, recycled, a bounded number kept, safe to use from the
// worker and the GUI thread at once.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "session/label_pool.h"

namespace kms::session {
namespace {

TEST(LabelPool, GivesBuffersOfTheAskedSizeAndRecyclesThem) {
  LabelPool pool;
  std::vector<std::int32_t> a = pool.take(1000);
  EXPECT_EQ(a.size(), 1000u);
  const std::int32_t* storage = a.data();
  pool.give(std::move(a));
  std::vector<std::int32_t> b = pool.take(1000);
  EXPECT_EQ(b.data(), storage) << "a returned buffer of the same size is reused";
  std::vector<std::int32_t> c = pool.take(10);
  EXPECT_EQ(c.size(), 10u);
  EXPECT_NE(c.data(), storage);
}

TEST(LabelPool, PreparedBuffersAreHandedOut) {
  LabelPool pool;
  pool.prepare(500, 2);
  std::vector<std::int32_t> a = pool.take(500), b = pool.take(500);
  EXPECT_EQ(a.size(), 500u);
  EXPECT_EQ(b.size(), 500u);
  EXPECT_NE(a.data(), b.data());
}

TEST(LabelPool, TakeAndGiveFromTwoThreads) {
  LabelPool pool;
  pool.prepare(4096, 2);
  const auto churn = [&](std::int32_t mark) {
    for (int i = 0; i < 2000; ++i) {
      std::vector<std::int32_t> buffer = pool.take(4096);
      ASSERT_EQ(buffer.size(), 4096u);
      buffer.front() = mark;
      buffer.back() = mark;
      ASSERT_EQ(buffer.front(), mark);  // nobody else writes a buffer this thread holds
      pool.give(std::move(buffer));
    }
  };
  std::thread worker(churn, 1);
  churn(2);
  worker.join();
}

}  // namespace
}  // namespace kms::session
