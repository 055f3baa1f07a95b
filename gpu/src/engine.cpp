#include "kmeans/engine.h"

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

IterationStats Engine::run(const std::function<bool(const IterationStats&)>& onIteration) {
  IterationStats last;
  while (!finished()) {
    last = step();
    if (onIteration && !onIteration(last)) break;
  }
  return last;
}

}  // namespace kms
