// The flag that stops a long engine call early (Engine::setInterruptFlag): the controller raises
// it before queueing a command that makes the current iteration pointless (pause, reset, new
// data or settings, shutdown), and the command lowers it when it runs on the worker. A count of
// raises keeps the flag up until the last such command has run, so a command that runs early
// cannot lower it under a later one.
#pragma once

#include <atomic>
#include <mutex>

namespace kms::session {

class StopRequest {
 public:
  /// Any thread. The engine sees the flag within one chunk of work.
  void raise() {
    const std::lock_guard lock(mutex_);
    ++raised_;
    flag_.store(true, std::memory_order_release);
  }
  /// The worker, when a command that raised it runs.
  void lower() {
    const std::lock_guard lock(mutex_);
    if (raised_ > 0 && --raised_ == 0) flag_.store(false, std::memory_order_release);
  }
  const std::atomic<bool>& flag() const { return flag_; }

 private:
  std::mutex mutex_;
  int raised_ = 0;
  std::atomic<bool> flag_{false};
};

}  // namespace kms::session
