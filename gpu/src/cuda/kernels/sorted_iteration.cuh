// The iteration of one-dimensional data over sorted runs (sorted_index.cuh): one block finds
// each centroid's run of the sorted rows by searching, takes the run's exact sums as differences
// of prefix sums, and updates — without reading the rows.
//
// Why runs. Let a and b be two centroids with c_b < c_a and d_j(x) = fl(fl(x − c_j)²), the
// engine's distance (exact_math.h). For x in [c_b, c_a], d_a does not grow and d_b does not
// shrink as x grows (rounding is monotone), so the rows where a beats b (d_a < d_b, or equal and
// a the lower index) are an upper set there. Outside [c_b, c_a] both distances move the same
// way and only a tie can flip the winner back: d_a = d_b for a row far away, where the two
// rounded squares coincide. That cannot happen once c_a − c_b ≥ 2^−17·R, R the largest distance
// from a row to a centroid (then fl(|x − c_a|) exceeds fl(|x − c_b|) by a relative 2^−18 or more
// and the squares keep them apart; with R < 2^60 and the gap ≥ 2^−60 no square overflows and
// the farther one stays a normal float), and then the rows where a beats b are an upper set on
// the whole line.
//
// So the centroids are sorted (value, then index; a centroid equal to a lower-index one never
// wins: "candidates" are the others), consecutive candidates closer than that gap are joined in
// "groups", and the winning group is monotone in x: group g owns the sorted positions
// [B_g, B_g+1). Finding B_g is a search for the first position whose winner's group is ≥ g (only
// rows within 2^−16 of the gap around the two groups' midpoint need the test: farther ones are
// on their side by a margin no rounding closes). A row's
// winner is always in the group of the candidate just below it or of the one just above it
// (every farther candidate is a safe gap away on the same side, so strictly farther), so the
// test evaluates one or two groups, exactly as the CPU does — same distances, the lowest index
// among equal ones. A group of one candidate is a run of one label: its sums are prefix-sum
// differences. A group of near-tied candidates (rare: centroids within 2^−17 of the data's
// reach of each other) is "mixed": its rows are looked at one by one, their labels kept per
// sorted position.
//
// Nothing rests on the run's history: every iteration searches afresh from its centroids. The
// previous iteration's runs serve only to count the changed labels (run against run; row by row
// where either is mixed). The inertia is Σ w·(x − c)² from exact moments on the finer grid
// (sorted_index.cuh: steps of about 2^−50 of the data's reach for a million rows), so it differs
// from the CPU's sum of rounded float distances by that rounding, and by the grid only for
// clusters narrower than about 2^−30 of the reach.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda/kernels/iteration_kernels.cuh"
#include "cuda/sorted_index.cuh"
#include "cuda/tuning.h"

namespace kms::cuda {

/// The sorted-runs iteration takes k up to this: a warp holds the clusters (sorting, groups,
/// update). Beyond it the compact kernels are faster (a block-wide sort with several boundaries
/// a warp was tried and measured slower).
inline constexpr int kSortedMaxK = 32;
/// A run label meaning "mixed": read each position's label from the mixed labels.
inline constexpr unsigned short kMixedRun = 0xffff;

/// One iteration's runs: group g owns sorted positions [start[g], start[g + 1]).
struct SortedRunState {
  int groups;
  unsigned int start[kSortedMaxK + 1];
  long long weight_before[kSortedMaxK + 1];  ///< Σ w of the rows before start[g]
  unsigned short label[kSortedMaxK];         ///< the run's one label, or kMixedRun
};

/// What one sorted-runs iteration reads and writes (device pointers).
struct SortedArgs {
  const float* values = nullptr;         ///< n sorted values (SortedIndex)
  const SortedPrefix* prefix = nullptr;  ///< n + 1 positions' prefix sums
  const float* samples = nullptr;
  int sample_count = 0;
  std::size_t sample_step = 1;
  std::size_t n = 0;
  int k = 0;
  int inertia_exp = 0;   ///< SortedIndex::inertiaExponent
  int inertia_bits = 0;  ///< and its bits
  const float* centroids_in = nullptr;
  float* centroids_out = nullptr;
  const SortedRunState* runs_in = nullptr;  ///< the previous iteration's, or null (the first)
  SortedRunState* runs_out = nullptr;
  const unsigned short* mixed_in = nullptr;  ///< per sorted position, where runs_in is mixed
  unsigned short* mixed_out = nullptr;
  unsigned char* empty_flags = nullptr;
  IterationScalars* scalars = nullptr;
  IterationReport* report = nullptr;
  UpdateParams update;
};

/// The whole iteration: one block.
void launchSortedIteration(const SortedArgs& a, cudaStream_t stream);

/// Loads the iteration kernels now (the runtime loads a kernel at its first launch otherwise,
/// about a millisecond that the first iteration's timing events would include).
void loadSortedKernels();

/// Iterations run back to back in one launch (Engine::steps): the loop stays on the device.
struct SortedLoop {
  int count = 0;                       ///< iterations at most (≤ kSortedLoopMax)
  float* centroids[2] = {};            ///< [0]: the first iteration's input; then they alternate
  SortedRunState* runs[2] = {};        ///< as the centroids (runs[0] unused by the first iteration)
  unsigned short* mixed[2] = {};       ///< as the centroids
  IterationReport* reports = nullptr;  ///< count reports (mapped host memory)
  int* done = nullptr;                 ///< the iterations that ran (mapped host memory)
  bool stop_on_empty = false;          ///< end after an iteration that leaves a cluster empty
  bool stop_on_converged = true;       ///< end after an iteration that converges
};

/// Up to loop.count iterations, each exactly launchSortedIteration's on the buffers step()
/// would use (SortedArgs' centroid, run and mixed pointers and report are replaced by the
/// loop's); stops after one that converges (or leaves a cluster empty, with stop_on_empty).
void launchSortedIterations(const SortedArgs& a, const SortedLoop& loop, cudaStream_t stream);

/// Writes every row's label of the runs `runs` (with `mixed` for mixed runs) into `labels`
/// (original row order, uint8 or uint16 by `label_bytes`).
void launchSortedLabels(const SortedRunState* runs, const unsigned short* mixed,
                        const std::uint32_t* origin, std::size_t n, void* labels, int label_bytes,
                        cudaStream_t stream);

}  // namespace kms::cuda
