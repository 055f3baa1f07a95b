// Past Lloyd's local optimum: Hartigan's single-row moves (Hartigan & Wong, 1979; Telgarsky &
// Vattani, 2010), then Lloyd again from where they lead.
//
// Lloyd keeps a row in the cluster whose centroid is nearest. Moving a row of weight w from
// cluster a (total weight W_a) to b changes the sum of squared distances by exactly
//   w·W_b/(W_b + w)·‖x − c_b‖² − w·W_a/(W_a − w)·‖x − c_a‖²,
// because both centroids move with it; a row nearest to its own centroid can still lower the sum
// by leaving. Hartigan's local optima are a subset of Lloyd's, so a converged Lloyd run can
// often still be improved. The moves run in a fixed order on one thread with the clusters' sums
// in double, so the result is the same on every machine and for every backend; the Lloyd run
// after them is the engine's own (exact, the backend's usual guarantees).
#pragma once

#include <atomic>
#include <cstdint>
#include <vector>

#include "kmeans/config.h"
#include "kmeans/data.h"
#include "kmeans/starts.h"

namespace kms {

class Engine;

struct RefineOptions {
  /// Passes over the rows at most (a pass that moves nothing ends the moves earlier).
  int max_passes = 50;
  /// Threads that propose the moves (0: every hardware thread); the result is the same for any.
  int threads = 0;
};

struct RefineReport {
  int passes = 0;           ///< passes over the rows made
  std::uint64_t moves = 0;  ///< rows moved
  double sse_before = 0.0;  ///< Σ w·‖x − c‖² of the labels given, their clusters' means
  double sse_after = 0.0;   ///< the same after the moves (double, the moves' own sums)
  double inertia_before = 0.0;  ///< the outcome's final inertia (the engine's)
  double inertia_after = 0.0;   ///< the refined run's final inertia (the engine's)
  bool improved = false;        ///< the refined run was kept: its inertia is lower
  int lloyd_iterations = 0;     ///< iterations of the Lloyd run after the moves
};

/// Hartigan moves from `labels` (one per row of `data`, in [0, k)): each pass proposes for every
/// row the cluster that lowers the sum of squared distances most (if any does by more than
/// rounding could account for, a relative 10⁻⁹), then makes the proposed moves in row order that
/// still lower it once the earlier ones are made. Returns the clusters' means
/// after the moves (k × d, data units; an emptied cluster keeps `centroids`' entry) and fills
/// `report`'s passes, moves and sums. `stop`, when raised, ends the moves after the current row.
std::vector<float> hartiganMoves(const DataView& data, int k, const std::vector<float>& centroids,
                                 const std::vector<std::int32_t>& labels,
                                 const RefineOptions& options, RefineReport& report,
                                 const std::atomic<bool>* stop = nullptr);

/// Refines `outcome`, a finished run of `config` by `engine` on `data` (the data the engine
/// holds): its labels from engine.assign(), Hartigan moves, then Lloyd from the moved centroids
/// (config with InitMethod::Given) to its end. The refined run replaces `outcome` (centroids,
/// convergence, its iterations appended, numbered on) only when its final inertia is lower, so
/// refining never raises the inertia. The engine ends holding the Lloyd run after the moves,
/// kept or not.
RefineReport refineOutcome(Engine& engine, const DataView& data, const KMeansConfig& config,
                           StartOutcome& outcome, const RefineOptions& options = {},
                           const std::atomic<bool>* stop = nullptr);

}  // namespace kms
