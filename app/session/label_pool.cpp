#include "session/label_pool.h"

namespace kms::session {

std::vector<std::int32_t> LabelPool::take(std::size_t n) {
  {
    std::lock_guard lock(mutex_);
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      if (it->size() == n) {
        std::vector<std::int32_t> buffer = std::move(*it);
        free_.erase(it);
        return buffer;
      }
    }
  }
  return std::vector<std::int32_t>(n);
}

void LabelPool::give(std::vector<std::int32_t>&& buffer) {
  if (buffer.empty()) return;
  std::lock_guard lock(mutex_);
  if (free_.size() >= kKept) free_.erase(free_.begin());
  free_.push_back(std::move(buffer));
}

void LabelPool::prepare(std::size_t n, std::size_t count) {
  std::lock_guard lock(mutex_);
  std::size_t ready = 0;
  for (const auto& buffer : free_)
    ready += buffer.size() == n;
  while (ready < count && ready < kKept) {
    if (free_.size() >= kKept) free_.erase(free_.begin());
    free_.emplace_back(n);  // value-initialised: the pages are touched now, not mid-run
    ++ready;
  }
}

}  // namespace kms::session
