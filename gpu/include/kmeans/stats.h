// What an iteration did and how long its stages took (every backend reports these).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kms {

/// Milliseconds spent in each stage of one iteration. GPU stages are measured with CUDA events
/// on the device; CPU stages with a steady clock.
struct StageTimings {
  double assign_ms = 0.0;  ///< nearest-centroid search (fused with the per-block partial sums)
  double reduce_ms = 0.0;  ///< reduction of partial sums, inertia and changed count
  double update_ms = 0.0;  ///< new centroids, empty clusters, shift and convergence test
  /// Several GPUs: the all-reduce of the partial sums between reduce and update, including the
  /// wait for the slowest GPU's sums (0 on one device).
  double communication_ms = 0.0;
  /// Snapshot copy to the host (GPU: on the copy stream, overlapped with compute). Reported once,
  /// by the first step after the copy finished, and in the captured snapshot itself.
  double copy_ms = 0.0;
  /// Compute time of the iteration (copy-out runs beside it and is not included).
  double computeMs() const { return assign_ms + reduce_ms + communication_ms + update_ms; }
};

/// What one Lloyd iteration did.
struct IterationStats {
  int iteration = 0;  ///< 1 for the first iteration
  /// Σ w·‖x − c_label‖² (w = weight, count or 1) with the centroids the points were assigned to.
  double inertia = 0.0;
  /// Points whose label differs from the previous iteration (all at iteration 1). With counts
  /// these are the expanded data's points: a row of count m that changed adds m.
  std::size_t changed = 0;
  double max_shift = 0.0;  ///< largest centroid move in this iteration's update, in data units
  int empty_clusters = 0;  ///< clusters that received no weight (handled per the empty policy)
  bool converged = false;  ///< the convergence test of KMeansConfig::tolerance passed
  /// Rows (points, or distinct values with counts) whose nearest centroid was searched among all
  /// k; the others were settled by distance bounds at the cost of one distance. The CUDA
  /// tensor-core kernel (17 ≤ d ≤ 64) counts here the rows its TF32 ranking could not settle,
  /// which were re-ranked exactly; the CPU backend counts the rows its bounds (Hamerly's, or its
  /// group bounds) left to a search, however many centroids that search then scored. −1 when
  /// the engine does not track it (the CUDA kernels without bounds).
  std::int64_t rows_searched = -1;
  /// Point-to-centroid distances computed for the assignment (rows × k without pruning; a
  /// settled row costs one). −1 when not tracked, as rows_searched.
  std::int64_t distances_computed = -1;
  StageTimings ms;
  /// A run over several processes: each rank's own work of the iteration (its assignment, ms),
  /// in rank order — where the ranks' shares are uneven, the slowest shows. Empty otherwise.
  std::vector<double> rank_ms;
};

}  // namespace kms
