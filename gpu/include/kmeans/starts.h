// Best of N: several seeded starts of one configuration, run to the end (Engine::runStarts),
// and which rule ended a run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string_view>
#include <vector>

#include "kmeans/stats.h"

namespace kms {

/// Why a run ended. The first three are KMeansConfig::tolerance's convergence rules, in the order
/// they are tested.
enum class StopRule {
  Running,         ///< not finished
  NoChange,        ///< an iteration in which no point (no distinct colour) changed cluster
  FewChanged,      ///< the fraction of points that changed cluster fell below the tolerance
  SmallShift,      ///< the largest centroid move fell below tolerance × the data's scale
  IterationLimit,  ///< max_iterations reached without converging
};

/// The rule that ended a run whose latest iteration is `last` (`finished`: the engine says it
/// ended), for data of `points` points (with counts: the expanded count) and `tolerance`.
StopRule stopRuleOf(const IterationStats& last, bool finished, std::size_t points,
                    double tolerance);

/// "no point changed cluster", "fewer than the tolerance's share of points changed cluster", …
std::string_view describe(StopRule rule);
/// "no-change", "few-changed", "small-shift", "iteration-limit", "running" (reports).
std::string_view toString(StopRule rule);

/// One finished start of a best-of-N run.
struct StartOutcome {
  int start = 0;                           ///< its number: it was seeded KMeansConfig::seed + start
  std::uint64_t seed = 0;                  ///< that seed
  std::vector<IterationStats> iterations;  ///< every iteration's stats, in order
  bool converged = false;                  ///< the last iteration passed the convergence test
  std::vector<float> centroids;            ///< final centroids, k × d, data units
  /// The final centroids in the engine's frame (Snapshot::centred_centroids): the outcome's
  /// labels are Engine::assign(centred_centroids), every row's nearest final centroid.
  std::vector<float> centred_centroids;
  /// The last iteration's inertia (0 before any iteration).
  double inertia() const;
};

/// Called on runStarts' calling thread as each start finishes, in the order they finish.
/// Returning false stops the run: runStarts then throws Interrupted. It must not call the engine
/// (on a GPU the engine is running a start on another thread meanwhile).
using StartObserver = std::function<bool(const StartOutcome&)>;

/// Throws InvalidArgument naming the first negative start number (runStarts' check).
void requireStartNumbers(const std::vector<int>& starts);

/// The outcome with the lowest final inertia; ties keep the lower start number. −1 when empty.
int bestOutcome(const std::vector<StartOutcome>& outcomes);

}  // namespace kms
