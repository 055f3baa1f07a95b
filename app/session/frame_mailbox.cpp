#include "session/frame_mailbox.h"

#include <utility>

namespace kms::session {

void FrameMailbox::postFrame(FramePtr frame) {
  FramePtr replaced;  // released outside the lock: freeing a large frame is not free
  {
    std::lock_guard lock(mutex_);
    replaced = std::exchange(frame_, std::move(frame));
    wanted_.store(false, std::memory_order_release);
  }
  posted_.fetch_add(1, std::memory_order_relaxed);
}

void FrameMailbox::postRecord(const IterationRecord& record) {
  std::lock_guard lock(mutex_);
  records_.push_back(record);
}

FrameMailbox::Delivery FrameMailbox::take() {
  // Clear the wake-up flag before looking: anything posted after this point wakes us again,
  // anything posted before it is in what we take now. No post can be missed.
  wakePending_.store(false, std::memory_order_release);
  Delivery delivery;
  {
    std::lock_guard lock(mutex_);
    delivery.frame = std::move(frame_);
    frame_.reset();
    delivery.records.swap(records_);
    wanted_.store(true, std::memory_order_release);
  }
  if (delivery.frame) taken_.fetch_add(1, std::memory_order_relaxed);
  return delivery;
}

void FrameMailbox::clear() {
  FramePtr dropped;
  std::lock_guard lock(mutex_);
  dropped = std::move(frame_);
  frame_.reset();
  records_.clear();
  wanted_.store(true, std::memory_order_release);
}

}  // namespace kms::session
