#include "data/run_history.h"

#include <algorithm>

namespace kms::ui {

double totalMs(const kms::IterationStats& stats) {
  return stats.ms.computeMs() + stats.ms.copy_ms;
}

void RunHistory::observeRun(std::uint64_t runId) {
  if (runId == runId_) return;
  runId_ = runId;
  records_.clear();
  emit runStarted(runId);
}

void RunHistory::append(const std::vector<session::IterationRecord>& records) {
  for (const auto& record : records) {
    observeRun(record.runId);
    records_.push_back(record);
  }
}

double RunHistory::iterationsPerSecond() const {
  if (records_.size() < 2) return 0.0;
  const double last = records_.back().wallMs;
  // Walk back one second of worker time (or to the start of the run).
  std::size_t first = records_.size() - 1;
  while (first > 0 && last - records_[first - 1].wallMs <= 1000.0)
    --first;
  if (first == records_.size() - 1) --first;  // slower than 1 it/s: use the last interval
  const double span = last - records_[first].wallMs;
  return span > 0.0 ? double(records_.size() - 1 - first) * 1000.0 / span : 0.0;
}

double RunHistory::recentMedianMs(std::size_t window) const {
  if (records_.empty()) return 0.0;
  const std::size_t count = std::min(window, records_.size());
  std::vector<double> values;
  values.reserve(count);
  for (std::size_t i = records_.size() - count; i < records_.size(); ++i)
    values.push_back(totalMs(records_[i].stats));
  std::nth_element(values.begin(), values.begin() + std::ptrdiff_t(count / 2), values.end());
  return values[count / 2];
}

}  // namespace kms::ui
