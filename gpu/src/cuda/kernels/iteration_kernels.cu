#include <cub/block/block_reduce.cuh>

#include <algorithm>

#include "common/convergence.h"
#include "common/exact_math.h"
#include "cuda/cuda_check.cuh"
#include "cuda/kernels/block_sums.cuh"
#include "cuda/kernels/iteration_common.cuh"
#include "cuda/kernels/iteration_kernels.cuh"

namespace kms::cuda {
namespace {

constexpr int kReduceThreads = 256;  // 8 warps × 32 columns
constexpr int kReduceSlices = 8;     // row slices per column block (grid.y)
constexpr int kUpdateThreads = 256;
constexpr int kUpdateCentroidsPerBlock = kUpdateThreads / 32;  // a warp per centroid
constexpr int kFarthestThreads = 256;

/// Column blocks: lane = column, the 8 warps split this slice's rows; the warps' partial sums
/// meet in shared memory in a fixed order and the slice adds its total to `totals` with one
/// integer atomic per column (exact, so the slice order cannot matter). The last x-block
/// reduces inertia and changed counts in a fixed tree.
__global__ void __launch_bounds__(kReduceThreads)
    reduceKernel(const long long* __restrict__ block_sums, int rows, int columns,
                 long long* __restrict__ totals, const double* __restrict__ block_inertia,
                 const unsigned long long* __restrict__ block_changed,
                 const unsigned long long* __restrict__ block_searched, int blocks, int work_stride,
                 IterationScalars* scalars) {
  if (blockIdx.x == gridDim.x - 1) {
    if (blockIdx.y != 0) return;
    double inertia = 0.0;
    unsigned long long changed = 0;
    for (int b = threadIdx.x; b < blocks; b += kReduceThreads) {
      inertia += block_inertia[b];
      changed += block_changed[b];
    }
    const BlockScalars total = blockSumScalars<kReduceThreads>(inertia, changed);
    if (threadIdx.x == 0) {
      scalars->inertia = total.inertia;
      scalars->changed = total.changed;
    }
    if (block_searched != nullptr) {  // integer sums: any order gives the same total
      unsigned long long searched = 0, evaluated = 0;
      for (int b = threadIdx.x; b < blocks; b += kReduceThreads) {
        searched += block_searched[static_cast<std::size_t>(b) * work_stride];
        if (work_stride == 2) evaluated += block_searched[2 * static_cast<std::size_t>(b) + 1];
      }
      __syncthreads();  // blockSumScalars' shared storage is reused
      const BlockScalars searched_total = blockSumScalars<kReduceThreads>(0.0, searched);
      if (threadIdx.x == 0) scalars->searched = searched_total.changed;
      if (work_stride == 2) {
        __syncthreads();
        const BlockScalars evaluated_total = blockSumScalars<kReduceThreads>(0.0, evaluated);
        if (threadIdx.x == 0) scalars->evaluated = evaluated_total.changed;
      }
    }
    return;
  }
  const int lane = threadIdx.x & 31;
  const int warp = threadIdx.x >> 5;
  const int column = blockIdx.x * 32 + lane;
  const int rows_per_slice = (rows + gridDim.y - 1) / gridDim.y;
  const int row_begin = blockIdx.y * rows_per_slice;
  const int row_end = min(rows, row_begin + rows_per_slice);
  long long sum = 0;
  if (column < columns)
    for (int r = row_begin + warp; r < row_end; r += kReduceThreads / 32)
      sum += block_sums[static_cast<std::size_t>(r) * columns + column];
  __shared__ long long partial[kReduceThreads / 32][32];
  partial[warp][lane] = sum;
  __syncthreads();
  if (warp == 0 && column < columns) {
    long long total = 0;
    for (int w = 0; w < kReduceThreads / 32; ++w)
      total += partial[w][lane];
    if (total != 0)
      atomicAdd(reinterpret_cast<unsigned long long*>(totals + column),
                static_cast<unsigned long long>(total));
  }
}

__global__ void __launch_bounds__(kUpdateThreads)
    updateKernel(const long long* __restrict__ totals, const float* __restrict__ old_c,
                 float* __restrict__ new_c, unsigned char* __restrict__ empty_flags,
                 IterationScalars* scalars, IterationReport* report, UpdateParams p) {
  // A warp per centroid: the lanes share its d double divisions; lane 0 then measures the shift
  // in the CPU's order (clusterShift reads what the warp wrote: __syncwarp orders it).
  const int lane = threadIdx.x & 31;
  const int j = blockIdx.x * kUpdateCentroidsPerBlock + (threadIdx.x >> 5);
  const int d = p.d;
  float shift = 0.0f, bound = 0.0f;
  int empty = 0;
  if (j < p.k) {
    const long long* row = totals + static_cast<std::size_t>(j) * (d + 1);
    const float* oc = old_c + static_cast<std::size_t>(j) * d;
    float* nc = new_c + static_cast<std::size_t>(j) * d;
    const long long weight = row[d];
    if (weight == 0) {
      empty = lane == 0 ? 1 : 0;
      for (int c = lane; c < d; c += 32)
        nc[c] = oc[c];
    } else {
      for (int c = lane; c < d; c += 32)
        nc[c] = exact::meanFromSums(row[c], p.coord_exp[c], weight, p.weight_exp);
      __syncwarp();
      if (lane == 0) {
        shift = clusterShift(nc, oc, d);
        if (p.tracks_drift) bound = shiftBound(nc, oc, d, shift);
      }
    }
    if (lane == 0) empty_flags[j] = static_cast<unsigned char>(weight == 0);
  }
  using ReduceF = cub::BlockReduce<float, kUpdateThreads>;
  using ReduceI = cub::BlockReduce<int, kUpdateThreads>;
  __shared__ union {
    typename ReduceF::TempStorage f;
    typename ReduceI::TempStorage i;
  } temp;
  const float block_shift = ReduceF(temp.f).Reduce(shift, MaxOf{});
  __syncthreads();
  const int block_empty = ReduceI(temp.i).Sum(empty);
  float block_bound = 0.0f;
  if (p.tracks_drift) {
    __syncthreads();
    block_bound = ReduceF(temp.f).Reduce(bound, MaxOf{});
  }
  __shared__ bool last;
  if (threadIdx.x == 0) {
    atomicMax(&scalars->max_shift_bits, __float_as_uint(block_shift));
    if (p.tracks_drift) atomicMax(&scalars->drift_bound_bits, __float_as_uint(block_bound));
    if (block_empty) atomicAdd(&scalars->empty_count, block_empty);
    __threadfence();
    last = atomicAdd(&scalars->update_blocks_done, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (last && threadIdx.x == 0) {
    __threadfence();
    if (p.tracks_drift) {
      RunCounters* run = p.counters;
      run->drift_before = run->drift;
      run->drift = grownDrift(run->drift, __uint_as_float(scalars->drift_bound_bits));
    }
    finalizeIteration(scalars, report, p, ++p.counters->iteration);
  }
}

// ---- Empty-cluster re-seeding (rare path) -------------------------------------------------

/// The ascending list of empty clusters (one thread: k ≤ 65535 flags, run only with empties).
__global__ void listEmptiesKernel(const unsigned char* flags, int k, int* list) {
  int m = 0;
  for (int j = 0; j < k; ++j)
    if (flags[j]) list[m++] = j;
}

// Picks are ordered by (distance to the assigned centroid, descending; centred coordinates,
// lexicographically ascending) — the CPU backend's order (CpuEngine::farthestPoints), which
// never looks at indices, so equal positions are one candidate. Round e looks only strictly
// below pick e − 1 in that order, which excludes every earlier pick and its duplicates without
// a list. A pick is stored as (distance bits << 32 | point index), kNoPick when none is left,
// and its coordinates beside it (picked_points, d floats per round): rounds compare positions
// with those, so a pick made on another GPU's shard excludes the same points here.

__device__ __forceinline__ float pointDistance(const float* points, int d, const float* centroids,
                                               const void* labels, bool wide, std::size_t i) {
  const int label = wide ? static_cast<const std::uint16_t*>(labels)[i]
                         : static_cast<const std::uint8_t*>(labels)[i];
  return exact::squaredDistance(points + i * d, centroids + static_cast<std::size_t>(label) * d, d);
}

/// −1, 0 or 1: the lexicographic order of coordinates a and b (d each).
__device__ __forceinline__ int compareRows(const float* a, const float* b, int d) {
  for (int c = 0; c < d; ++c)
    if (a[c] != b[c]) return a[c] < b[c] ? -1 : 1;
  return 0;
}

/// −1, 0 or 1: the lexicographic order of points i and j's coordinates.
__device__ __forceinline__ int compareCoordinates(const float* points, int d, std::size_t i,
                                                  std::size_t j) {
  return compareRows(points + i * d, points + j * d, d);
}

/// Whether point i (at distance `dist`) comes strictly after the previous pick (its key and
/// coordinates).
__device__ __forceinline__ bool afterPick(const float* points, int d, std::size_t i, float dist,
                                          const unsigned long long* previous,
                                          const float* previous_point) {
  if (previous == nullptr) return true;
  const unsigned long long pick = *previous;
  if (pick == kNoPick) return false;
  const float pick_dist = __uint_as_float(static_cast<unsigned>(pick >> 32));
  if (dist != pick_dist) return dist < pick_dist;
  return compareRows(points + i * d, previous_point, d) > 0;
}

/// Phase 1 of a round: per block, the largest distance after the previous pick, as bits + 1
/// (0 when the block has no candidate).
__global__ void __launch_bounds__(kFarthestThreads)
    farthestDistanceKernel(const float* __restrict__ points, std::size_t n, int d,
                           const void* labels, bool wide, const float* __restrict__ centroids,
                           const unsigned long long* previous, const float* previous_point,
                           unsigned long long* block_keys) {
  unsigned long long best = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(kFarthestThreads) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * kFarthestThreads) {
    const float dist = pointDistance(points, d, centroids, labels, wide, i);
    if (afterPick(points, d, i, dist, previous, previous_point))
      best = max(best, static_cast<unsigned long long>(__float_as_uint(dist)) + 1);
  }
  using Reduce = cub::BlockReduce<unsigned long long, kFarthestThreads>;
  __shared__ typename Reduce::TempStorage temp;
  const unsigned long long top = Reduce(temp).Reduce(best, MaxOf{});
  if (threadIdx.x == 0) block_keys[blockIdx.x] = top;
}

/// The largest block distance becomes the round's distance: pick = (bits << 32 | 0xffffffff)
/// until phase 2 names the point, or kNoPick.
__global__ void __launch_bounds__(kFarthestThreads)
    pickDistanceKernel(const unsigned long long* block_keys, int blocks, unsigned long long* pick) {
  unsigned long long best = 0;
  for (int b = threadIdx.x; b < blocks; b += kFarthestThreads)
    best = max(best, block_keys[b]);
  using Reduce = cub::BlockReduce<unsigned long long, kFarthestThreads>;
  __shared__ typename Reduce::TempStorage temp;
  const unsigned long long top = Reduce(temp).Reduce(best, MaxOf{});
  if (threadIdx.x == 0) *pick = top == 0 ? kNoPick : ((top - 1) << 32) | 0xffffffffull;
}

/// Of candidates i and j (index, or −1 for none), the one that comes first: the smaller
/// coordinates, then the lower index (equal coordinates are the same position; the index only
/// makes the choice deterministic).
__device__ __forceinline__ long long firstOf(const float* points, int d, long long i, long long j) {
  if (i < 0) return j;
  if (j < 0) return i;
  const int order =
      compareCoordinates(points, d, static_cast<std::size_t>(i), static_cast<std::size_t>(j));
  if (order != 0) return order < 0 ? i : j;
  return i < j ? i : j;
}

/// Block-wide firstOf in a fixed tree; the result is valid in thread 0.
__device__ long long blockFirstOf(const float* points, int d, long long mine) {
  __shared__ long long slots[kFarthestThreads];
  slots[threadIdx.x] = mine;
  __syncthreads();
  for (int stride = kFarthestThreads / 2; stride > 0; stride >>= 1) {
    if (static_cast<int>(threadIdx.x) < stride)
      slots[threadIdx.x] = firstOf(points, d, slots[threadIdx.x], slots[threadIdx.x + stride]);
    __syncthreads();
  }
  return slots[0];
}

/// Phase 2: per block, the first position (by coordinates) at the round's distance.
__global__ void __launch_bounds__(kFarthestThreads)
    farthestPositionKernel(const float* __restrict__ points, std::size_t n, int d,
                           const void* labels, bool wide, const float* __restrict__ centroids,
                           const unsigned long long* previous, const float* previous_point,
                           const unsigned long long* pick, unsigned long long* block_keys) {
  const unsigned long long current = *pick;
  long long best = -1;
  if (current != kNoPick) {
    const float target = __uint_as_float(static_cast<unsigned>(current >> 32));
    for (std::size_t i = blockIdx.x * static_cast<std::size_t>(kFarthestThreads) + threadIdx.x;
         i < n; i += static_cast<std::size_t>(gridDim.x) * kFarthestThreads) {
      const float dist = pointDistance(points, d, centroids, labels, wide, i);
      if (dist == target && afterPick(points, d, i, dist, previous, previous_point))
        best = firstOf(points, d, best, static_cast<long long>(i));
    }
  }
  const long long top = blockFirstOf(points, d, best);
  if (threadIdx.x == 0) block_keys[blockIdx.x] = static_cast<unsigned long long>(top);
}

/// Names the round's point, records its coordinates in `picked_point` and, unless
/// `new_centroids` is null (the sharded engine places it), moves empty cluster list[e] onto it
/// (−0 becomes +0, so equal positions give equal centroids, as on the CPU).
__global__ void __launch_bounds__(kFarthestThreads)
    pickPositionKernel(const unsigned long long* block_keys, int blocks, unsigned long long* pick,
                       const int* list, int e, const float* points, int d, float* new_centroids,
                       float* picked_point) {
  long long best = -1;
  if (*pick != kNoPick)
    for (int b = threadIdx.x; b < blocks; b += kFarthestThreads)
      best = firstOf(points, d, best, static_cast<long long>(block_keys[b]));
  const long long chosen = blockFirstOf(points, d, best);
  __shared__ long long shared_chosen;
  if (threadIdx.x == 0) {
    shared_chosen = chosen;
    *pick = chosen < 0 ? kNoPick
                       : (*pick & 0xffffffff00000000ull) | static_cast<unsigned long long>(chosen);
  }
  __syncthreads();
  if (shared_chosen < 0) return;  // fewer positions than empty clusters: the rest keep theirs
  const std::size_t i = static_cast<std::size_t>(shared_chosen);
  for (int c = threadIdx.x; c < d; c += kFarthestThreads)
    picked_point[c] = points[i * d + c];
  if (new_centroids == nullptr) return;
  const int j = list[e];
  for (int c = threadIdx.x; c < d; c += kFarthestThreads)
    new_centroids[static_cast<std::size_t>(j) * d + c] = exact::add(points[i * d + c], 0.0f);
}

/// After re-seeding: the largest shift over all clusters, then the report again.
__global__ void __launch_bounds__(kUpdateThreads)
    reshiftKernel(const float* old_c, const float* new_c, IterationScalars* scalars,
                  IterationReport* report, UpdateParams p) {
  float shift = 0.0f, bound = 0.0f;
  for (int j = threadIdx.x; j < p.k; j += kUpdateThreads) {
    const float* a = new_c + static_cast<std::size_t>(j) * p.d;
    const float* b = old_c + static_cast<std::size_t>(j) * p.d;
    const float s = clusterShift(a, b, p.d);
    shift = fmaxf(shift, s);
    bound = fmaxf(bound, shiftBound(a, b, p.d, s));
  }
  using ReduceF = cub::BlockReduce<float, kUpdateThreads>;
  __shared__ typename ReduceF::TempStorage temp;
  const float top = ReduceF(temp).Reduce(shift, MaxOf{});
  __syncthreads();  // the temporary storage is reused
  const float top_bound = ReduceF(temp).Reduce(bound, MaxOf{});
  if (threadIdx.x == 0) {
    if (p.tracks_drift) p.counters->drift = grownDrift(p.counters->drift_before, top_bound);
    scalars->max_shift_bits = __float_as_uint(top);
    finalizeIteration(scalars, report, p, p.counters->iteration);  // same iteration, re-reported
  }
}

}  // namespace

void launchReduce(const long long* block_sums, int rows, int columns, long long* totals,
                  const double* block_inertia, const unsigned long long* block_changed,
                  const unsigned long long* block_searched, int blocks, IterationScalars* scalars,
                  cudaStream_t stream, int work_stride) {
  const int column_blocks = (columns + 31) / 32;
  const int slices = columns > 0 ? std::min(kReduceSlices, std::max(1, rows / 16)) : 1;
  const dim3 grid(column_blocks + 1, slices);
  reduceKernel<<<grid, kReduceThreads, 0, stream>>>(block_sums, rows, columns, totals,
                                                    block_inertia, block_changed, block_searched,
                                                    blocks, work_stride, scalars);
  KMS_CHECK_LAUNCH();
}

void launchUpdate(const long long* totals, const float* old_centroids, float* new_centroids,
                  unsigned char* empty_flags, IterationScalars* scalars, IterationReport* report,
                  const UpdateParams& params, cudaStream_t stream) {
  const int blocks = (params.k + kUpdateCentroidsPerBlock - 1) / kUpdateCentroidsPerBlock;
  updateKernel<<<blocks, kUpdateThreads, 0, stream>>>(totals, old_centroids, new_centroids,
                                                      empty_flags, scalars, report, params);
  KMS_CHECK_LAUNCH();
}

int farthestBlocks(std::size_t n, int multiprocessors) {
  const std::size_t needed = (n + kFarthestThreads - 1) / kFarthestThreads;
  return static_cast<int>(
      std::min<std::size_t>(needed, static_cast<std::size_t>(multiprocessors) * 8));
}

template <typename LabelT>
void launchReseed(const float* points, std::size_t n, const LabelT* labels,
                  const float* old_centroids, float* new_centroids,
                  const unsigned char* empty_flags, int* empty_list,
                  unsigned long long* picked_keys, float* picked_points,
                  unsigned long long* block_keys, int key_blocks, IterationScalars* scalars,
                  IterationReport* report, const UpdateParams& params, int empty_count,
                  cudaStream_t stream) {
  listEmptiesKernel<<<1, 1, 0, stream>>>(empty_flags, params.k, empty_list);
  KMS_CHECK_LAUNCH();
  const FarthestRound round{
      points,        n,           params.d,      labels,     sizeof(LabelT) == 2,
      old_centroids, picked_keys, picked_points, block_keys, key_blocks};
  for (int e = 0; e < empty_count; ++e) {
    launchFarthestDistance(round, e, stream);
    launchFarthestPosition(round, e, empty_list, new_centroids, stream);
  }
  launchReshift(old_centroids, new_centroids, scalars, report, params, stream);
}

void launchFarthestDistance(const FarthestRound& r, int e, cudaStream_t stream) {
  const unsigned long long* previous = e > 0 ? r.picked_keys + (e - 1) : nullptr;
  const float* previous_point =
      e > 0 ? r.picked_points + static_cast<std::size_t>(e - 1) * r.d : nullptr;
  if (r.n > 0) {
    farthestDistanceKernel<<<r.key_blocks, kFarthestThreads, 0, stream>>>(
        r.points, r.n, r.d, r.labels, r.wide_labels, r.old_centroids, previous, previous_point,
        r.block_keys);
    KMS_CHECK_LAUNCH();
  }
  pickDistanceKernel<<<1, kFarthestThreads, 0, stream>>>(r.block_keys, r.n > 0 ? r.key_blocks : 0,
                                                         r.picked_keys + e);
  KMS_CHECK_LAUNCH();
}

void launchFarthestPosition(const FarthestRound& r, int e, const int* empty_list,
                            float* new_centroids, cudaStream_t stream) {
  const unsigned long long* previous = e > 0 ? r.picked_keys + (e - 1) : nullptr;
  const float* previous_point =
      e > 0 ? r.picked_points + static_cast<std::size_t>(e - 1) * r.d : nullptr;
  if (r.n > 0) {
    farthestPositionKernel<<<r.key_blocks, kFarthestThreads, 0, stream>>>(
        r.points, r.n, r.d, r.labels, r.wide_labels, r.old_centroids, previous, previous_point,
        r.picked_keys + e, r.block_keys);
    KMS_CHECK_LAUNCH();
  }
  pickPositionKernel<<<1, kFarthestThreads, 0, stream>>>(
      r.block_keys, r.n > 0 ? r.key_blocks : 0, r.picked_keys + e, empty_list, e, r.points, r.d,
      new_centroids, r.picked_points + static_cast<std::size_t>(e) * r.d);
  KMS_CHECK_LAUNCH();
}

void launchReshift(const float* old_centroids, const float* new_centroids,
                   IterationScalars* scalars, IterationReport* report, const UpdateParams& params,
                   cudaStream_t stream) {
  reshiftKernel<<<1, kUpdateThreads, 0, stream>>>(old_centroids, new_centroids, scalars, report,
                                                  params);
  KMS_CHECK_LAUNCH();
}

template void launchReseed<std::uint8_t>(const float*, std::size_t, const std::uint8_t*,
                                         const float*, float*, const unsigned char*, int*,
                                         unsigned long long*, float*, unsigned long long*, int,
                                         IterationScalars*, IterationReport*, const UpdateParams&,
                                         int, cudaStream_t);
template void launchReseed<std::uint16_t>(const float*, std::size_t, const std::uint16_t*,
                                          const float*, float*, const unsigned char*, int*,
                                          unsigned long long*, float*, unsigned long long*, int,
                                          IterationScalars*, IterationReport*, const UpdateParams&,
                                          int, cudaStream_t);

}  // namespace kms::cuda
