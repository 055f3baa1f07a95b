#include <cub/block/block_reduce.cuh>

#include <algorithm>

#include "common/convergence.h"
#include "common/exact_math.h"
#include "cuda/cuda_check.cuh"
#include "cuda/kernels/block_sums.cuh"
#include "cuda/kernels/iteration_kernels.cuh"

namespace kms::cuda {
namespace {

constexpr int kReduceThreads = 256;  // 8 warps × 32 columns
constexpr int kReduceSlices = 8;     // row slices per column block (grid.y)
constexpr int kUpdateThreads = 256;
constexpr int kFarthestThreads = 256;

/// max() as a reduction operator (CCCL 3 dropped cub::Max).
struct MaxOf {
  template <typename T>
  __device__ __forceinline__ T operator()(const T& a, const T& b) const {
    return a < b ? b : a;
  }
};

/// Column blocks: lane = column, the 8 warps split this slice's rows; the warps' partial sums
/// meet in shared memory in a fixed order and the slice adds its total to `totals` with one
/// integer atomic per column (exact, so the slice order cannot matter). The last x-block
/// reduces inertia and changed counts in a fixed tree.
__global__ void __launch_bounds__(kReduceThreads)
    reduceKernel(const long long* __restrict__ block_sums, int rows, int columns,
                 long long* __restrict__ totals, const double* __restrict__ block_inertia,
                 const unsigned long long* __restrict__ block_changed, int blocks,
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

/// The convergence test and the report (one thread). `iteration` is the 1-based number of the
/// iteration being reported.
__device__ void finalizeIteration(IterationScalars* s, IterationReport* report,
                                  const UpdateParams& p, int iteration) {
  const float shift = __uint_as_float(s->max_shift_bits);
  const bool converged = passesConvergenceTest(s->changed, p.n, shift, p.scale, p.tolerance);
  s->converged = converged ? 1 : 0;
  report->inertia = s->inertia;
  report->changed = s->changed;
  report->max_shift = shift;
  report->empty_count = s->empty_count;
  report->converged = s->converged;
  report->iteration = iteration;
  // No system fence needed: the host reads the mapped report only after an event that follows
  // this kernel's completion, which makes its writes visible.
}

__device__ float clusterShift(const float* a, const float* b, int d) {
  return sqrtf(exact::squaredDistance(a, b, d));
}

__global__ void __launch_bounds__(kUpdateThreads)
    updateKernel(const long long* __restrict__ totals, const float* __restrict__ old_c,
                 float* __restrict__ new_c, unsigned char* __restrict__ empty_flags,
                 IterationScalars* scalars, IterationReport* report, UpdateParams p) {
  const int j = blockIdx.x * kUpdateThreads + threadIdx.x;
  const int d = p.d;
  float shift = 0.0f;
  int empty = 0;
  if (j < p.k) {
    const long long* row = totals + static_cast<std::size_t>(j) * (d + 1);
    const float* oc = old_c + static_cast<std::size_t>(j) * d;
    float* nc = new_c + static_cast<std::size_t>(j) * d;
    const long long weight = row[d];
    if (weight == 0) {
      empty = 1;
      for (int c = 0; c < d; ++c)
        nc[c] = oc[c];
    } else {
      for (int c = 0; c < d; ++c)
        nc[c] = exact::meanFromSums(row[c], p.coord_exp[c], weight, p.weight_exp);
      shift = clusterShift(nc, oc, d);
    }
    empty_flags[j] = static_cast<unsigned char>(empty);
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
  __shared__ bool last;
  if (threadIdx.x == 0) {
    atomicMax(&scalars->max_shift_bits, __float_as_uint(block_shift));
    if (block_empty) atomicAdd(&scalars->empty_count, block_empty);
    __threadfence();
    last = atomicAdd(&scalars->update_blocks_done, 1u) == gridDim.x - 1;
  }
  __syncthreads();
  if (last && threadIdx.x == 0) {
    __threadfence();
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

/// Key of point i: larger for farther points, and for the lower index among equal distances.
__device__ __forceinline__ unsigned long long farthestKey(float dist, std::size_t i) {
  return (static_cast<unsigned long long>(__float_as_uint(dist)) << 32) |
         (0xffffffffull - static_cast<unsigned long long>(i));
}

/// Per-block largest key below `bound` (keys already picked are ≥ bound, so each round finds
/// the next farthest point without an exclusion list).
template <typename LabelT>
__global__ void __launch_bounds__(kFarthestThreads)
    farthestKernel(const float* __restrict__ points, std::size_t n, int d,
                   const LabelT* __restrict__ labels, const float* __restrict__ centroids,
                   const unsigned long long* previous_pick, unsigned long long* block_keys) {
  const unsigned long long bound = previous_pick ? *previous_pick : ~0ull;
  unsigned long long best = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(kFarthestThreads) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * kFarthestThreads) {
    const float dist = exact::squaredDistance(
        points + i * d, centroids + static_cast<std::size_t>(labels[i]) * d, d);
    const unsigned long long key = farthestKey(dist, i);
    if (key < bound && key > best) best = key;
  }
  using Reduce = cub::BlockReduce<unsigned long long, kFarthestThreads>;
  __shared__ typename Reduce::TempStorage temp;
  const unsigned long long block_best = Reduce(temp).Reduce(best, MaxOf{});
  if (threadIdx.x == 0) block_keys[blockIdx.x] = block_best;
}

/// Picks the best block key, records it and moves empty cluster `list[e]` onto that point.
__global__ void __launch_bounds__(kFarthestThreads)
    pickFarthestKernel(const unsigned long long* block_keys, int blocks, unsigned long long* picked,
                       int e, const int* list, const float* points, int d, float* new_centroids) {
  unsigned long long best = 0;
  for (int b = threadIdx.x; b < blocks; b += kFarthestThreads)
    best = max(best, block_keys[b]);
  using Reduce = cub::BlockReduce<unsigned long long, kFarthestThreads>;
  __shared__ typename Reduce::TempStorage temp;
  __shared__ unsigned long long chosen;
  const unsigned long long top = Reduce(temp).Reduce(best, MaxOf{});
  if (threadIdx.x == 0) {
    chosen = top;
    picked[e] = top;
  }
  __syncthreads();
  if (chosen == 0) return;  // fewer points than empty clusters: nothing left to take
  const std::size_t i = 0xffffffffull - (chosen & 0xffffffffull);
  const int j = list[e];
  for (int c = threadIdx.x; c < d; c += kFarthestThreads)
    new_centroids[static_cast<std::size_t>(j) * d + c] = points[i * d + c];
}

/// After re-seeding: the largest shift over all clusters, then the report again.
__global__ void __launch_bounds__(kUpdateThreads)
    reshiftKernel(const float* old_c, const float* new_c, IterationScalars* scalars,
                  IterationReport* report, UpdateParams p) {
  float shift = 0.0f;
  for (int j = threadIdx.x; j < p.k; j += kUpdateThreads)
    shift = fmaxf(shift, clusterShift(new_c + static_cast<std::size_t>(j) * p.d,
                                      old_c + static_cast<std::size_t>(j) * p.d, p.d));
  using ReduceF = cub::BlockReduce<float, kUpdateThreads>;
  __shared__ typename ReduceF::TempStorage temp;
  const float top = ReduceF(temp).Reduce(shift, MaxOf{});
  if (threadIdx.x == 0) {
    scalars->max_shift_bits = __float_as_uint(top);
    finalizeIteration(scalars, report, p, p.counters->iteration);  // same iteration, re-reported
  }
}

}  // namespace

void launchReduce(const long long* block_sums, int rows, int columns, long long* totals,
                  const double* block_inertia, const unsigned long long* block_changed, int blocks,
                  IterationScalars* scalars, cudaStream_t stream) {
  const int column_blocks = (columns + 31) / 32;
  const int slices = columns > 0 ? std::min(kReduceSlices, std::max(1, rows / 16)) : 1;
  const dim3 grid(column_blocks + 1, slices);
  reduceKernel<<<grid, kReduceThreads, 0, stream>>>(block_sums, rows, columns, totals,
                                                    block_inertia, block_changed, blocks, scalars);
  KMS_CHECK_LAUNCH();
}

void launchUpdate(const long long* totals, const float* old_centroids, float* new_centroids,
                  unsigned char* empty_flags, IterationScalars* scalars, IterationReport* report,
                  const UpdateParams& params, cudaStream_t stream) {
  const int blocks = (params.k + kUpdateThreads - 1) / kUpdateThreads;
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
                  unsigned long long* picked_keys, unsigned long long* block_keys, int key_blocks,
                  IterationScalars* scalars, IterationReport* report, const UpdateParams& params,
                  int empty_count, cudaStream_t stream) {
  listEmptiesKernel<<<1, 1, 0, stream>>>(empty_flags, params.k, empty_list);
  KMS_CHECK_LAUNCH();
  for (int e = 0; e < empty_count; ++e) {
    // Round e looks only below the key picked in round e − 1 (read on the device).
    farthestKernel<LabelT><<<key_blocks, kFarthestThreads, 0, stream>>>(
        points, n, params.d, labels, old_centroids, e > 0 ? picked_keys + (e - 1) : nullptr,
        block_keys);
    KMS_CHECK_LAUNCH();
    pickFarthestKernel<<<1, kFarthestThreads, 0, stream>>>(
        block_keys, key_blocks, picked_keys, e, empty_list, points, params.d, new_centroids);
    KMS_CHECK_LAUNCH();
  }
  reshiftKernel<<<1, kUpdateThreads, 0, stream>>>(old_centroids, new_centroids, scalars, report,
                                                  params);
  KMS_CHECK_LAUNCH();
}

template void launchReseed<std::uint8_t>(const float*, std::size_t, const std::uint8_t*,
                                         const float*, float*, const unsigned char*, int*,
                                         unsigned long long*, unsigned long long*, int,
                                         IterationScalars*, IterationReport*, const UpdateParams&,
                                         int, cudaStream_t);
template void launchReseed<std::uint16_t>(const float*, std::size_t, const std::uint16_t*,
                                          const float*, float*, const unsigned char*, int*,
                                          unsigned long long*, unsigned long long*, int,
                                          IterationScalars*, IterationReport*, const UpdateParams&,
                                          int, cudaStream_t);

}  // namespace kms::cuda
