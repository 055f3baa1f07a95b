// Recycles the label buffers of frames. A 4096 × 4096 picture has 16.7 M labels (67 MB); taking
// a fresh buffer for every frame costs more in first-touch page faults than copying the labels,
// so buffers of frames the views have let go of are handed back to the worker.
#pragma once

#include <cstdint>
#include <mutex>
#include <vector>

namespace kms::session {

class LabelPool {
 public:
  /// A buffer of exactly n labels (contents unspecified); recycled when one of that size is free.
  std::vector<std::int32_t> take(std::size_t n);
  /// Keeps `buffer` for a later take() (at most a few are kept).
  void give(std::vector<std::int32_t>&& buffer);
  /// Makes sure `count` buffers of n labels are ready, so the first frames of a run do not
  /// pay for fresh memory (call before the run's clock starts).
  void prepare(std::size_t n, std::size_t count);

 private:
  static constexpr std::size_t kKept = 3;
  std::mutex mutex_;
  std::vector<std::vector<std::int32_t>> free_;
};

}  // namespace kms::session
