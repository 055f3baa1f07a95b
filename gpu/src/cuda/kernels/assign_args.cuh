// Arguments and launch plan of the assignment pass (nearest centroid + exact partial sums).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace kms::cuda {

/// Everything the assignment kernels read and write. Device pointers unless noted.
template <typename LabelT>
struct AssignArgs {
  const float* points = nullptr;   ///< n × d, centred on the bounding-box midpoint
  const float* weights = nullptr;  ///< n, or null when unweighted
  /// n multiplicities, or null (never with weights). Only the generic kernel takes counts; the
  /// compact kernels (compact_kernel.cuh) are their fast path.
  const std::uint32_t* counts = nullptr;
  std::size_t n = 0;
  int d = 0;
  int k = 0;
  const float* centroids = nullptr;  ///< k × d, centred: the centroids of this iteration
  const LabelT* labels_in =
      nullptr;                   ///< previous labels; null on the first iteration (all changed)
  LabelT* labels_out = nullptr;  ///< may equal labels_in (each thread reads before it writes)
  const float* coord_scale = nullptr;  ///< d powers of two: fixed-point scale per dimension
  float weight_scale = 1.0f;           ///< fixed-point scale of the weights
  /// Templated kernel: per-block sums, row-major [block][k·(d+1)], written without atomics.
  /// Generic kernel: k·(d+1) totals, accumulated with integer atomics (exact, order-free).
  long long* sums = nullptr;
  double* block_inertia = nullptr;              ///< [block]
  unsigned long long* block_changed = nullptr;  ///< [block]
  /// [block]: rows re-ranked exactly (the tensor kernel only).
  unsigned long long* block_work = nullptr;
  /// Zeroed by block 0 of the templated kernel for the stages that follow (the iteration's
  /// scalars and the reduce stage's totals); the generic kernel leaves them to memsets.
  unsigned long long* clear = nullptr;
  std::size_t clear_words = 0;
  unsigned long long* clear_totals = nullptr;
  std::size_t clear_totals_words = 0;
};

/// The separate summing pass for large d (see accumulateKernel).
template <typename LabelT>
struct AccumulateArgs {
  const float* points = nullptr;  ///< n × d, centred
  const float* weights = nullptr;
  std::size_t n = 0;
  int d = 0;
  int k = 0;
  const LabelT* labels = nullptr;  ///< this iteration's labels
  /// The labels the running totals hold (n): where this iteration's label differs, the point's
  /// contribution moves from the old cluster's row to the new one's, and the entry is updated.
  LabelT* summed_labels = nullptr;
  /// First iteration: every point is added (the totals were zeroed), nothing subtracted.
  bool full = true;
  const float* coord_scale = nullptr;
  float weight_scale = 1.0f;
  long long* sums = nullptr;  ///< per-block rows [block][k·(d+1)]
};

/// How one assignment pass is launched; chosen once per (n, d, k) by planAssign.
struct AssignPlan {
  int template_dim = 0;  ///< compiled dimension D ≥ d (0 = generic kernel)
  int threads = 256;
  int blocks = 0;
  int centroid_chunk = 0;      ///< centroids staged in shared memory at a time
  int accumulator_copies = 1;  ///< shared accumulator copies (one per warp when small)
  std::size_t shared_bytes = 0;
  bool per_block_sums = true;  ///< false: the generic kernel's global integer atomics
  bool tiled = false;          ///< large d: the register-tiled kernel (assign_tiled_kernel.cuh)
  /// d from 17 to 64 with tensor cores: TF32 candidate ranking with exact re-ranking
  /// (assign_tensor_kernel.cuh); the sums come from the separate pass as for `tiled`.
  bool tensor = false;
  /// d ≤ 4, k ≤ 1,024, unweighted (compact data or plain points): the whole iteration is the two
  /// compact kernels (compact_kernel.cuh).
  bool compact = false;
  /// Compact with point tiles (d ≤ 4): the assignment settles whole tiles (tile_kernel.cuh).
  bool point_tiles = false;
  /// Compact over the groups of equal rows (repeat_groups.cuh): the row kernel over one row
  /// and its count a group, then every row given its group's label.
  bool repeat_groups = false;
  int group_blocks = 0;  ///< the blocks that give the rows their groups' labels (a warp a segment)
  /// Kernels may launch as programmatic dependents of the kernel before (compute capability
  /// 9.0 and newer; set by the engine).
  bool dependent_launches = false;
  /// Compact rows of 4 < d ≤ 16 too few to reach every multiprocessor two a thread: one row a
  /// thread (compactRowsPerThread), twice the blocks.
  bool small_rows = false;
  /// d = 1, k ≤ 32, unweighted, one GPU: the whole iteration is one block over the sorted runs
  /// (sorted_iteration.cuh); no row is read.
  bool sorted = false;
  /// 17 ≤ d ≤ 64, k ≤ 256, unweighted: a bound per row, sums kept (wide_kernel.cuh).
  bool wide = false;
  /// Large d: the sums come from a separate accumulateKernel pass with this launch shape.
  bool separate_sums = false;
  int sum_blocks = 0;
  int sum_threads = 0;
  int sum_values_per_lane = 1;
  std::size_t sum_shared_bytes = 0;
};

/// What the planner needs to know about the device.
struct DeviceLimits {
  int multiprocessors = 1;
  std::size_t max_shared_per_block = 48 * 1024;  ///< opt-in maximum
  std::size_t shared_per_multiprocessor = 100 * 1024;
  bool tensor_cores = false;  ///< TF32 mma.sync available and allowed (assign_tensor_kernel.cuh)
};

}  // namespace kms::cuda
