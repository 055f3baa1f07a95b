// The hand-over point between the engine's worker thread and the GUI.
//
// Why a mailbox instead of one queued signal per frame: the GUI only ever wants the newest
// frame, and building a frame costs the engine time (a device-to-host copy of every label with
// the CUDA backend). The worker therefore builds a frame only while `frameWanted()` is true,
// i.e. after the GUI has taken the previous one; a frame the GUI has not taken yet is simply
// replaced by a newer one. Iteration records are small and every one of them matters to the
// charts, so they queue up and the GUI takes them in batches.
#pragma once

#include <atomic>
#include <mutex>
#include <vector>

#include "session/session_types.h"

namespace kms::session {

class FrameMailbox {
 public:
  // --- worker side ---------------------------------------------------------------------------
  /// True once the GUI has taken the last posted frame (and initially).
  bool frameWanted() const { return wanted_.load(std::memory_order_acquire); }
  /// Stores `frame` as the newest, replacing one not yet taken. Clears frameWanted().
  void postFrame(FramePtr frame);
  /// Queues the record of one iteration.
  void postRecord(const IterationRecord& record);
  /// Call after posting. True when the consumer has to be woken (nothing was pending since its
  /// last take); false when a wake-up is already on its way, so at most one is in flight.
  bool claimWakeUp() { return !wakePending_.exchange(true, std::memory_order_acq_rel); }

  // --- GUI side ------------------------------------------------------------------------------
  /// Takes the newest frame (null when none arrived since the last take) and every queued
  /// record, and asks the worker for the next frame.
  struct Delivery {
    FramePtr frame;
    std::vector<IterationRecord> records;
    bool empty() const { return !frame && records.empty(); }
  };
  Delivery take();

  /// Drops anything pending (new data set); the next frame is wanted.
  void clear();

  /// Frames posted / taken since construction (tests and diagnostics).
  std::uint64_t framesPosted() const { return posted_.load(std::memory_order_relaxed); }
  std::uint64_t framesTaken() const { return taken_.load(std::memory_order_relaxed); }

 private:
  mutable std::mutex mutex_;
  FramePtr frame_;
  std::vector<IterationRecord> records_;
  std::atomic<bool> wanted_{true};
  std::atomic<bool> wakePending_{false};
  std::atomic<std::uint64_t> posted_{0};
  std::atomic<std::uint64_t> taken_{0};
};

}  // namespace kms::session
