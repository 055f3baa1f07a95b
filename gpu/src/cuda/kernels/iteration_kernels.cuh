// The stages after assignment: reduce the per-block sums, compute the new centroids, handle
// empty clusters, measure the shift and decide convergence — all on the device.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace kms::cuda {

/// Device scalars of one iteration; zeroed before its reduce stage.
struct IterationScalars {
  double inertia;
  unsigned long long changed;
  unsigned int
      max_shift_bits;  ///< float bits of the largest shift (non-negative floats order as uints)
  int empty_count;
  unsigned int update_blocks_done;
  int converged;
  /// Tensor kernel: rows re-ranked exactly (UpdateParams::reports_searched); compact kernels on a
  /// shard: rows searched over all k.
  unsigned long long searched;
  /// Compact kernels on a shard: distances computed. (Right after `searched`: the all-reduce
  /// sums both in one call.)
  unsigned long long evaluated;
  /// updateKernel with UpdateParams::tracks_drift: float bits of the largest shiftBound, what
  /// the drift grows by.
  unsigned int drift_bound_bits;
};

/// Device state that lives for a whole run (zeroed by initialize).
struct RunCounters {
  int iteration;  ///< completed iterations; the update stage increments it
  /// The compact kernels' drift D: the sum of every update's largest centroid shift, inflated
  /// and rounded up (compact_kernel.cuh), and its value before the latest update (a re-seed
  /// recomputes that update's shift).
  double drift;
  double drift_before;
};

/// Written by the device into pinned, mapped host memory at the end of an iteration; the host
/// reads it after the iteration's event, with no copy and no extra synchronisation.
struct IterationReport {
  double inertia;
  unsigned long long changed;
  float max_shift;
  int empty_count;
  int converged;
  int iteration;
  /// Compact kernels: rows searched over all k (the rest were settled by their bounds), and
  /// point-to-centroid distances computed (a settled row: one). Tensor kernel: rows whose TF32
  /// ranking left more than one candidate (`evaluated` untouched).
  unsigned long long searched;
  unsigned long long evaluated;
};

/// What the update and convergence stages need besides buffers.
struct UpdateParams {
  int k = 0;
  int d = 0;
  std::uint64_t n = 0;             ///< points for the convergence test (Σ counts with counts)
  const int* coord_exp = nullptr;  ///< device, d fixed-point exponents
  int weight_exp = 0;
  double scale = 1.0;  ///< data scale for the shift test
  double tolerance = 0.0;
  RunCounters* counters = nullptr;  ///< device; its iteration number goes into the report
  /// The compact and wide kernels' distance bounds follow the centroids through
  /// counters->drift: the update (updateKernel for the wide kernels) grows it by the largest
  /// shift, a re-seed by its recomputed shift.
  bool tracks_drift = false;
  /// The report takes IterationScalars::searched (the tensor kernel's count).
  bool reports_searched = false;
};

/// Sums `rows` rows of integer sums into `totals` (k·(d+1), zeroed before) and the assignment
/// blocks' inertia/changed (`blocks` slots) into `scalars`, and their rows searched (`blocks`
/// slots; with `work_stride` 2, pairs of rows searched and distances computed) unless
/// `block_searched` is null. With `columns` = 0 only the scalars are reduced (the generic
/// assignment kernel already accumulated the totals).
void launchReduce(const long long* block_sums, int rows, int columns, long long* totals,
                  const double* block_inertia, const unsigned long long* block_changed,
                  const unsigned long long* block_searched, int blocks, IterationScalars* scalars,
                  cudaStream_t stream, int work_stride = 1);

/// New centroids (means of the exact sums; empty clusters keep the old centroid and are flagged),
/// the largest shift, then — in the last block — the convergence test and the report.
void launchUpdate(const long long* totals, const float* old_centroids, float* new_centroids,
                  unsigned char* empty_flags, IterationScalars* scalars, IterationReport* report,
                  const UpdateParams& params, cudaStream_t stream);

/// Re-seeds empty clusters (rare path, run only when the report counted empties): the m empty
/// clusters, ascending, take the m farthest distinct positions (distance to their assigned
/// centroid in `old_centroids`), farthest first, ties to the lexicographically smaller
/// coordinates — EmptyClusterPolicy::ReseedFarthest, as the CPU backend does it. Then
/// recomputes the shift and the report. `picked_keys` needs m slots, `picked_points` m × d,
/// `block_keys` one per block of farthestBlocks().
template <typename LabelT>
void launchReseed(const float* points, std::size_t n, const LabelT* labels,
                  const float* old_centroids, float* new_centroids,
                  const unsigned char* empty_flags, int* empty_list,
                  unsigned long long* picked_keys, float* picked_points,
                  unsigned long long* block_keys, int key_blocks, IterationScalars* scalars,
                  IterationReport* report, const UpdateParams& params, int empty_count,
                  cudaStream_t stream);

/// A re-seeding round found no point (picked_keys).
inline constexpr unsigned long long kNoPick = ~0ull;

/// One GPU's part of a re-seeding round (the sharded engine runs the rounds of launchReseed
/// itself and decides each round across GPUs on the host).
struct FarthestRound {
  const float* points;
  std::size_t n;
  int d;
  const void* labels;
  bool wide_labels;  ///< uint16 labels (else uint8)
  const float* old_centroids;
  unsigned long long* picked_keys;  ///< per round: distance bits << 32 | local index, or ~0
  float* picked_points;             ///< per round: the pick's coordinates (d floats)
  unsigned long long* block_keys;
  int key_blocks;
};

/// Round e, phase 1: picked_keys[e] ← the largest distance after pick e − 1 among these points
/// (bits << 32 | 0xffffffff), or ~0 when none is left.
void launchFarthestDistance(const FarthestRound& round, int e, cudaStream_t stream);
/// Round e, phase 2 (picked_keys[e] holding the round's distance): picked_keys[e] ← the first
/// point at that distance by coordinates (its index in the low bits, or ~0), its coordinates in
/// picked_points[e]; with `new_centroids`, empty cluster empty_list[e] moves onto it.
void launchFarthestPosition(const FarthestRound& round, int e, const int* empty_list,
                            float* new_centroids, cudaStream_t stream);
/// After the rounds: the largest shift over all clusters, and the report again.
void launchReshift(const float* old_centroids, const float* new_centroids,
                   IterationScalars* scalars, IterationReport* report, const UpdateParams& params,
                   cudaStream_t stream);

/// Blocks used by the farthest-point search (size of block_keys).
int farthestBlocks(std::size_t n, int multiprocessors);

}  // namespace kms::cuda
