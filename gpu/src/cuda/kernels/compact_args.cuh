// The compact kernels' arguments and size limits (compact_kernel.cuh has the kernels,
// compact_geometry.cuh the centroid geometry they prune with).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda/kernels/iteration_kernels.cuh"
#include "cuda/kernels/tile_shape.cuh"

namespace kms::cuda {

inline constexpr int kCompactThreads = 256;
/// The kernels are compiled for D = 1, 2, 3, 4 (exactly d) and 8 and 16 (d up to D, the rest
/// zero-padded), and stage every centroid in shared memory: k up to kCompactMaxK for D ≤ 4,
/// kCompactMaxKWide above.
inline constexpr int kCompactMaxK = 1024;
inline constexpr int kCompactMaxKWide = 256;
inline constexpr int kCompactMaxD = 16;
__host__ __device__ constexpr int compactMaxK(int D) {
  return D <= 4 ? kCompactMaxK : kCompactMaxKWide;
}
/// Whether the centroids' geometry is spread over ⌈k/8⌉ blocks, a warp per centroid
/// (compactSpreadUpdateKernel after an iteration's update, spreadGeometryKernel after
/// initialisation and re-seeding) rather than computed by one block (compactUpdateKernel,
/// compactGeometryKernel; k ≤ 32: compactSmallUpdateKernel by shuffles).
__host__ __device__ constexpr bool spreadsGeometry(int k) {
  return k >= 64 && k <= kCompactThreads;
}
/// The blocks the spread geometry takes: a warp per centroid.
__host__ __device__ constexpr int spreadBlocks(int k) {
  return (k + kCompactThreads / 32 - 1) / (kCompactThreads / 32);
}
/// compactSpreadUpdateKernel's blocks: the spread geometry's, and the last one reports.
__host__ __device__ constexpr int spreadUpdateBlocks(int k) {
  return spreadBlocks(k) + 1;
}
/// Whether the compiled D is d itself (no padding: no bounds checks on coordinates).
__host__ __device__ constexpr bool compactExactDim(int D) {
  return D <= 4;
}

/// Programmatic dependent launch (sm_90; launchCompactAssign's and launchCompactUpdate's
/// `after_kernel`): a kernel may be launched while the kernel before it in the stream still
/// runs, and waits here — at its start, before it reads anything — until that kernel has ended
/// and its writes are visible. Its launch (blocks placed, parameters and code loaded) then
/// overlaps the kernel before instead of following it. A no-op for a kernel launched the
/// ordinary way.
__device__ __forceinline__ void waitForPriorKernel() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}
/// Lets the next kernel of the stream launch now (if it was launched with `after_kernel`): its
/// blocks take free room on the multiprocessors and wait in waitForPriorKernel.
__device__ __forceinline__ void letNextKernelLaunch() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/// An iteration's place in a launch of several (CudaEngine::steps: the iterations captured back
/// to back in one graph, the loop kept on the device). Its kernels do nothing once an earlier
/// iteration of the launch ended it: the update that converges (with stop_on_converged) or leaves
/// a cluster empty (with stop_on_empty) writes its place + 1 into `stop`, and every kernel of a
/// later place reads it before it writes anything. The launch's first assignment zeroes `stop`
/// (no kernel of place 0 reads it, and the update of place j never skips for its own mark: a
/// block may read it after the reporting block wrote it).
struct LoopStep {
  int* stop = nullptr;  ///< device word; null: not in a launch of several (step())
  int* done = nullptr;  ///< mapped host word: the launch's iterations reported so far
  int index = 0;        ///< this iteration's place in the launch, from 0
  bool stop_on_empty = false;
  bool stop_on_converged = true;
  /// Whether an earlier iteration of the launch ended it (a volatile load: the word is written
  /// by an earlier kernel of the same graph; issue it early, test it late).
  __device__ __forceinline__ int stopMark() const {
    return stop != nullptr && index > 0 ? *static_cast<volatile int*>(stop) : 0;
  }
  __device__ __forceinline__ bool ended(int mark) const { return mark != 0 && mark <= index; }
  /// The launch's first assignment (one thread) clears the last launch's mark.
  __device__ __forceinline__ void clearMark() const {
    if (stop != nullptr && index == 0 && blockIdx.x == 0 && threadIdx.x == 0) *stop = 0;
  }
  /// The update's reporting thread, after the report: the iterations reported, and the mark
  /// when this iteration ends the launch.
  __device__ __forceinline__ void reported(bool converged, int empty_count) const {
    if (stop == nullptr) return;
    *done = index + 1;
    if ((converged && stop_on_converged) || (empty_count > 0 && stop_on_empty)) *stop = index + 1;
  }
};

/// What every compact kernel does first: waits for the kernel before (waitForPriorKernel), lets
/// the next one launch, and issues the load of its launch's stop mark (LoopStep::stopMark), which
/// it tests before its first write (LoopStep::ended).
__device__ __forceinline__ int startCompactKernel(const LoopStep& loop) {
  waitForPriorKernel();
  letNextKernelLaunch();
  return loop.stopMark();
}

/// Everything one iteration of compact data reads and writes (device pointers).
template <typename LabelT>
struct CompactArgs {
  const float* points = nullptr;          ///< n × d, centred
  const std::uint32_t* counts = nullptr;  ///< n multiplicities ≥ 1, or null: every row counts once
  std::size_t n = 0;
  int d = 0;
  int k = 0;
  const float* centroids_in = nullptr;  ///< this iteration's centroids (k × d, centred)
  float* centroids_out = nullptr;       ///< the update writes the next ones here
  const LabelT* labels_in = nullptr;    ///< previous labels; null on the first iteration
  LabelT* labels_out = nullptr;         ///< may equal labels_in
  const float* coord_scale = nullptr;   ///< d fixed-point scales (powers of two)
  long long* totals = nullptr;          ///< k·(d+1) exact sums, kept for the whole run
  /// The sums the update reads: `totals`, or on a shard of a multi-GPU run every GPU's totals
  /// summed by the all-reduce.
  const long long* update_totals = nullptr;
  /// On a shard: the update takes inertia and the changed, searched and evaluated counts from
  /// `scalars` (every GPU's, all-reduced) instead of this GPU's assignment blocks.
  bool scalars_reduced = false;
  /// n lower bounds L = l + D(t₀) (see the top of this file); valid from iteration 2 on.
  float* bounds = nullptr;
  double* block_inertia = nullptr;  ///< [blocks] of the assignment kernel
  unsigned long long* block_changed = nullptr;
  /// [2·blocks]: rows searched over all k and distances computed, per block.
  unsigned long long* block_work = nullptr;
  int blocks = 0;  ///< the assignment kernel's grid size
  unsigned char* empty_flags = nullptr;
  IterationScalars* scalars = nullptr;
  IterationReport* report = nullptr;
  UpdateParams update;  ///< update.counters->drift: the run's drift D, grown by every update
  /// The centroids' geometry (computeGeometry), 2k + 1 floats and k indices: written by the
  /// update for the next iteration's centroids, read by the assignment.
  float* geometry = nullptr;
  unsigned short* order = nullptr;
  float axis[kCompactMaxD] = {};  ///< unit vector the centroids are sorted along (host-chosen)
  /// Point tiles (tile_index.cuh; d ≤ 4), or tiles = 0: the assignment settles whole tiles
  /// (tile_kernel.cuh) and reads `points`/`counts` only through the sorted copies below.
  std::size_t tiles = 0;
  const float* tile_points = nullptr;          ///< n × d, sorted along the Morton curve
  const std::uint32_t* tile_counts = nullptr;  ///< sorted counts, or null
  const std::uint32_t* tile_rows = nullptr;    ///< original index of each sorted row
  const TileShape* tile_shapes = nullptr;
  const long long* tile_sums = nullptr;   ///< (d + 1) per tile: Σ w·q(x), Σ w
  unsigned short* tile_owners = nullptr;  ///< the label all of a tile's rows carry, or kMixedTile
  unsigned short* tile_labels = nullptr;  ///< each sorted row's label
  float* tile_bounds = nullptr;           ///< owned tiles: L = l + D(t₀), as `bounds` per row
  std::size_t tile_chunks = 0;            ///< TileIndex::chunks() and chunkStride()
  std::size_t tile_chunk_stride = 1;
  TileIteration* tile_iteration = nullptr;  ///< zeroed before every tile assignment
  TileSchedule* tile_schedule = nullptr;    ///< the order of the chunks (TileIndex::schedule)
  unsigned* tile_sched_lists = nullptr;     ///< its lists: 2 × kTileCostClasses × tile_chunks
  /// Groups of equal rows (repeat_groups.cuh), or group_starts = null. With groups, the rows
  /// above (points, counts, n, labels, bounds) are the groups — a row and its count each — and
  /// after the assignment every original row takes its group's label in `row_labels`
  /// (expandGroupLabelsKernel): the groups whose label changed, listed by the assignment, or
  /// with `groups_every` all of them.
  const std::uint32_t* group_starts = nullptr;  ///< groups + 1: group g is sorted rows [g, g + 1)
  const std::uint32_t* group_rows = nullptr;    ///< each sorted row's original index
  /// The groups' segments of kGroupSegment rows (RepeatGroups): groups + 1 firsts, and each
  /// segment's group.
  const std::uint32_t* group_segment_first = nullptr;
  const std::uint32_t* segment_group = nullptr;
  std::size_t group_segments = 0;
  LabelT* row_labels = nullptr;  ///< the original rows' labels (a label half)
  /// The segments of the groups whose label changed (groups of kListedSegments segments at most),
  /// and the larger such groups, whole.
  unsigned* group_changed = nullptr;
  unsigned* group_changed_large = nullptr;
  /// How many of each (two counters), zeroed by every update.
  unsigned* group_changed_count = nullptr;
  /// Every group's rows written: the first iteration, or row labels in another half than the
  /// last iteration's (a snapshot capture).
  bool groups_every = false;
  /// The grid of the tiles' inertia: 2^inertia_exp, chosen so that the largest possible inertia
  /// (every weight times the data's squared diameter) is below 2^120 units.
  int inertia_exp = 0;
  LoopStep loop;  ///< several iterations in one launch (steps()); default: step()
};

}  // namespace kms::cuda
