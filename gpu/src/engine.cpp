#include "kmeans/engine.h"

namespace kms {

bool Engine::finished() const { return converged() || iteration() >= config_.max_iterations; }

IterationStats Engine::run(const std::function<bool(const IterationStats&)>& onIteration) {
  IterationStats last;
  while (!finished()) {
    last = step();
    if (onIteration && !onIteration(last)) break;
  }
  return last;
}

}  // namespace kms
