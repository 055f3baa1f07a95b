// Best of N (Engine::runStarts) one start after another, the rule that ended a run, and the
// choice of the best start.
#include <stdexcept>
#include <string>

#include "common/centring.h"
#include "kmeans/engine.h"
#include "kmeans/errors.h"

namespace kms {

StopRule stopRuleOf(const IterationStats& last, bool finished, std::size_t points,
                    double tolerance) {
  if (!finished) return StopRule::Running;
  if (!last.converged) return StopRule::IterationLimit;
  // The order of passesConvergenceTest (common/convergence.h).
  if (last.changed == 0) return StopRule::NoChange;
  if (static_cast<double>(last.changed) < tolerance * static_cast<double>(points))
    return StopRule::FewChanged;
  return StopRule::SmallShift;
}

std::string_view describe(StopRule rule) {
  switch (rule) {
    case StopRule::Running:
      return "still running";
    case StopRule::NoChange:
      return "no point changed cluster";
    case StopRule::FewChanged:
      return "fewer points than the tolerance's share changed cluster";
    case StopRule::SmallShift:
      return "the centroids moved less than the tolerance";
    case StopRule::IterationLimit:
      return "the iteration limit";
  }
  return "";
}

std::string_view toString(StopRule rule) {
  switch (rule) {
    case StopRule::Running:
      return "running";
    case StopRule::NoChange:
      return "no-change";
    case StopRule::FewChanged:
      return "few-changed";
    case StopRule::SmallShift:
      return "small-shift";
    case StopRule::IterationLimit:
      return "iteration-limit";
  }
  return "";
}

double StartOutcome::inertia() const {
  return iterations.empty() ? 0.0 : iterations.back().inertia;
}

void requireStartNumbers(const std::vector<int>& starts) {
  for (const int s : starts)
    if (s < 0) throw InvalidArgument("Start numbers are 0 or more; got " + std::to_string(s) + ".");
}

int bestOutcome(const std::vector<StartOutcome>& outcomes) {
  int best = -1;
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    if (best < 0) {
      best = static_cast<int>(i);
      continue;
    }
    const StartOutcome& a = outcomes[i];
    const StartOutcome& b = outcomes[static_cast<std::size_t>(best)];
    if (a.inertia() < b.inertia() || (a.inertia() == b.inertia() && a.start < b.start))
      best = static_cast<int>(i);
  }
  return best;
}

bool Engine::runOneStart(const KMeansConfig& config, int start, StartOutcome& out,
                         const std::atomic<bool>* stop, bool initialized) {
  KMeansConfig one = config;
  one.keep_history = false;
  one.seed = config.seed + static_cast<std::uint64_t>(start);
  out = StartOutcome{};
  out.start = start;
  out.seed = one.seed;
  if (!initialized) initialize(one);
  while (!finished()) {
    if (stop != nullptr && stop->load(std::memory_order_relaxed)) return false;
    if (steps(stepsPerCall(), out.iterations) == 0) break;
  }
  out.converged = converged();
  CentroidsNow now = centroidsForHistory();
  out.centroids = toDataUnits(now.centred.data(), now.centred.size(), *now.mid);
  out.centred_centroids = std::move(now.centred);
  return true;
}

std::vector<StartOutcome> Engine::runStarts(const KMeansConfig& config,
                                            const std::vector<int>& starts,
                                            const StartObserver& observer) {
  requireStartNumbers(starts);
  std::vector<StartOutcome> outcomes(starts.size());
  for (std::size_t i = 0; i < starts.size(); ++i) {
    if (interruptRequested()) throw Interrupted("best of N stopped");
    if (!runOneStart(config, starts[i], outcomes[i], interrupt_))
      throw Interrupted("best of N stopped");
    if (observer && !observer(outcomes[i])) throw Interrupted("best of N stopped");
  }
  return outcomes;
}

}  // namespace kms
