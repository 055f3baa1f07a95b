#include "kmeans/engine.h"

#include "common/centring.h"

#include <stdexcept>
#include <string>

namespace kms {

bool Engine::finished() const {
  return converged() || iteration() >= config_.max_iterations;
}

bool Engine::takeCapturedSnapshot(Snapshot& out) {
  // Backends without asynchronous capture: the latest state, taken now.
  if (!snapshot_requested_) return false;
  snapshot_requested_ = false;
  snapshot(out);
  return true;
}

void Engine::resetRun() {
  iteration_ = 0;
  converged_ = false;
  last_ = IterationStats{};
  history_.clear();
}

void Engine::beginRun() {
  resetRun();
  recordHistory();
}

void Engine::endIteration(const IterationStats& stats) {
  ++iteration_;
  converged_ = stats.converged;
  last_ = stats;
  recordHistory();
}

void Engine::recordHistory() {
  if (!config_.keep_history) return;
  CentroidsNow now = centroidsForHistory();
  std::vector<float> centroids = toDataUnits(now.centred.data(), now.centred.size(), *now.mid);
  history_k_ = config_.k;
  history_d_ = static_cast<int>(now.mid->size());
  history_.push_back({std::move(centroids), std::move(now.centred), last_});
}

const Engine::HistoryEntry& Engine::historyEntry(int iteration) const {
  if (!config_.keep_history)
    throw std::logic_error("Engine: the run's history needs KMeansConfig::keep_history");
  if (iteration < 0 || iteration >= static_cast<int>(history_.size()))
    throw std::out_of_range("Engine: iteration " + std::to_string(iteration) +
                            " is not in this run (0 to " +
                            std::to_string(static_cast<int>(history_.size()) - 1) + ")");
  return history_[static_cast<std::size_t>(iteration)];
}

const std::vector<float>& Engine::centroidsAt(int iteration) const {
  return historyEntry(iteration).centroids;
}

void Engine::snapshotAt(int iteration, Snapshot& out) {
  const HistoryEntry& entry = historyEntry(iteration);
  out.iteration = iteration;
  out.k = history_k_;
  out.d = history_d_;
  out.centroids = entry.centroids;
  out.centred_centroids = entry.centred;
  out.stats = entry.stats;
  if (iteration == 0) {
    out.labels.clear();
  } else {
    assign(history_[static_cast<std::size_t>(iteration) - 1].centred, out.labels);
  }
  out.n = out.labels.size();
}

int Engine::steps(int max_steps, std::vector<IterationStats>& out) {
  int ran = 0;
  for (; ran < max_steps && !finished(); ++ran)
    out.push_back(step());
  return ran;
}

IterationStats Engine::run(const std::function<bool(const IterationStats&)>& onIteration) {
  IterationStats last;
  if (!onIteration) {
    std::vector<IterationStats> batch;
    while (!finished()) {
      batch.clear();
      if (steps(64, batch) == 0) break;
      last = batch.back();
    }
    return last;
  }
  while (!finished()) {
    last = step();
    if (onIteration && !onIteration(last)) break;
  }
  return last;
}

}  // namespace kms
