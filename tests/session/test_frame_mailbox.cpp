// FrameMailbox: newest frame wins, every record arrives once and in order, one wake-up in flight.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "session/frame_mailbox.h"

using kms::session::Frame;
using kms::session::FrameMailbox;
using kms::session::IterationRecord;

namespace {

kms::session::FramePtr frameAt(int iteration) {
  auto frame = std::make_shared<Frame>();
  frame->iteration = iteration;
  return frame;
}

IterationRecord record(int iteration) {
  IterationRecord r;
  r.runId = 1;
  r.stats.iteration = iteration;
  return r;
}

}  // namespace

TEST(FrameMailbox, WantsAFrameUntilOneIsPosted) {
  FrameMailbox box;
  EXPECT_TRUE(box.frameWanted());
  box.postFrame(frameAt(1));
  EXPECT_FALSE(box.frameWanted());
  EXPECT_EQ(box.take().frame->iteration, 1);
  EXPECT_TRUE(box.frameWanted());
}

TEST(FrameMailbox, NewestFrameReplacesAnUntakenOne) {
  FrameMailbox box;
  for (int i = 1; i <= 5; ++i)
    box.postFrame(frameAt(i));
  const auto delivery = box.take();
  ASSERT_TRUE(delivery.frame);
  EXPECT_EQ(delivery.frame->iteration, 5);
  EXPECT_FALSE(box.take().frame) << "a frame is delivered once";
  EXPECT_EQ(box.framesPosted(), 5u);
  EXPECT_EQ(box.framesTaken(), 1u);
}

TEST(FrameMailbox, RecordsArriveOnceInOrder) {
  FrameMailbox box;
  for (int i = 1; i <= 10; ++i)
    box.postRecord(record(i));
  auto delivery = box.take();
  ASSERT_EQ(delivery.records.size(), 10u);
  for (int i = 0; i < 10; ++i)
    EXPECT_EQ(delivery.records[std::size_t(i)].stats.iteration, i + 1);
  EXPECT_TRUE(box.take().empty());
}

TEST(FrameMailbox, OneWakeUpPerTake) {
  FrameMailbox box;
  EXPECT_TRUE(box.claimWakeUp());
  EXPECT_FALSE(box.claimWakeUp());
  EXPECT_FALSE(box.claimWakeUp());
  box.take();
  EXPECT_TRUE(box.claimWakeUp());
}

TEST(FrameMailbox, ClearDropsPendingAndWantsAFrame) {
  FrameMailbox box;
  box.postFrame(frameAt(3));
  box.postRecord(record(3));
  box.clear();
  EXPECT_TRUE(box.frameWanted());
  EXPECT_TRUE(box.take().empty());
}

TEST(FrameMailbox, ConcurrentProducerLosesNoRecordAndNoWakeUp) {
  FrameMailbox box;
  constexpr int kIterations = 200000;
  std::atomic<int> wakeUps{0};
  std::thread producer([&] {
    for (int i = 1; i <= kIterations; ++i) {
      box.postRecord(record(i));
      if (box.frameWanted()) box.postFrame(frameAt(i));
      if (box.claimWakeUp()) wakeUps.fetch_add(1);
    }
  });
  int expected = 1, frames = 0, lastFrame = 0;
  int consumedWakeUps = 0;
  while (expected <= kIterations) {
    // Consume only when woken, like the GUI: a lost wake-up would stall this loop.
    if (wakeUps.load() > consumedWakeUps) {
      ++consumedWakeUps;
      const auto delivery = box.take();
      for (const auto& r : delivery.records)
        ASSERT_EQ(r.stats.iteration, expected++);
      if (delivery.frame) {
        EXPECT_GT(delivery.frame->iteration, lastFrame) << "frames only move forward";
        lastFrame = delivery.frame->iteration;
        ++frames;
      }
    } else {
      std::this_thread::yield();
    }
  }
  producer.join();
  EXPECT_GT(frames, 0);
  EXPECT_LT(frames, kIterations) << "the producer only builds frames the consumer wants";
}
