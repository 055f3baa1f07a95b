#include "cuda/families/high_dim.cuh"

#include <algorithm>

#include "common/exact_math.h"
#include "cuda/cuda_check.cuh"
#include "cuda/families/assign_kernels.cuh"
#include "cuda/families/planner.cuh"
#include "cuda/kernels/assign_args.cuh"
#include "cuda/kernels/assign_common.cuh"
#include "cuda/kernels/assign_tiled_kernel.cuh"
#include "cuda/kernels/iteration_kernels.cuh"

namespace kms::cuda {
namespace {

constexpr int kThreads = 256;  // 16 × 16 threads, each an R × R tile of row-centroid products
constexpr int kHalf = 64;      // a thread's rows (and centroids) come 4 from each 64
constexpr int kSlice = 32;     // coordinates staged at a time
constexpr int kSumThreads = 256;

__host__ __device__ constexpr int paddedDims(int d) {
  return (d + kSlice - 1) / kSlice * kSlice;
}

/// Rows (and centroids) a block tile holds with R × R tiles a thread: 64 or 128.
__host__ __device__ constexpr int tileRows(int R) {
  return 16 * R;
}

/// Shared memory of the assignment: the rows' coordinates (all of them, or one slice) and one
/// slice of a centroid tile, both transposed.
std::size_t assignSharedBytes(int d, bool rows_resident, int R) {
  const std::size_t row_slots = rows_resident ? paddedDims(d) : kSlice;
  return (row_slots + kSlice) * static_cast<std::size_t>(tileRows(R)) * sizeof(float);
}

/// ‖c‖² of every centroid, a thread each, sequential FMAs (the order the bounds assume), and
/// their maximum unless `largest_bits` is null.
__global__ void centroidNormsKernel(const float* __restrict__ centroids, int k, int d, float* norms,
                                    unsigned* largest_bits) {
  const int j = blockIdx.x * blockDim.x + threadIdx.x;
  if (j >= k) return;
  const float* c = centroids + static_cast<std::size_t>(j) * d;
  float s = 0.0f;
  for (int t = 0; t < d; ++t)
    s = fmaf(c[t], c[t], s);
  norms[j] = s;
  if (largest_bits) atomicMax(largest_bits, __float_as_uint(s));
}

/// The rows [first, first + 64) of `src` (n × d, rows past `limit` zero), coordinates
/// [c0, c0 + 32·slices) (past d zero), into dst[coordinate − c0][row]. Consecutive threads take
/// consecutive rows, so the shared stores fall in distinct banks; each row's 32-byte sectors are
/// reused from L1 by the following coordinates.
template <int kRows>
__device__ __forceinline__ void stageRows(float* dst, const float* __restrict__ src,
                                          std::size_t first, std::size_t limit, int d, int c0,
                                          int slices) {
  const int total = slices * kSlice * kRows;
  for (int idx = static_cast<int>(threadIdx.x); idx < total; idx += kThreads) {
    const int r = idx & (kRows - 1), c = idx / kRows;
    const std::size_t row = first + r;
    const int coordinate = c0 + c;
    dst[c * kRows + r] = row < limit && coordinate < d ? __ldg(src + row * d + coordinate) : 0.0f;
  }
}

/// The tile row (or centroid) of a thread's i-th row (column) at group position t: four from
/// each 64, so that the 16 threads of a group load 16 contiguous floats each time.
__device__ __forceinline__ int tilePlace(int i, int t) {
  return (i >> 2) * kHalf + 4 * t + (i & 3);
}

/// Assignment: a block takes 16R rows at a time against every centroid tile of 16R, the products
/// summed slice by slice of 32 coordinates. Thread (ty, tx) owns rows 4ty … 4ty + 3 of each 64
/// of the tile and the same centroids by tx — R² products in registers for R/2 16-byte shared
/// loads a coordinate (each load contiguous across the 16 threads of a row group, so free of bank
/// conflicts). R = 8 (128 rows, one block a multiprocessor) where the rows' coordinates stay in
/// shared memory; R = 4 (64 rows, two blocks) where they are staged a slice at a time. Each thread
/// keeps the best three scores of its eight rows (Nearest3), the 16 threads sharing rows merge
/// them, and one thread a row makes its label exact (its best centroid's exact distance; where the
/// scores are too close to call, the exact distances of the best two, or of all k).
template <int R, typename LabelT>
__global__ void __launch_bounds__(kThreads, 8 / R)
    highDimAssignKernel(AssignArgs<LabelT> a, const float* __restrict__ norms) {
  constexpr int kRows = tileRows(R), kCentroids = tileRows(R);
  constexpr bool rows_resident = R == 8;
  extern __shared__ __align__(16) float shared[];
  const int d = a.d, k = a.k, dp = paddedDims(d);
  float* xs = shared;                                          // [dp or 32][16R] rows, transposed
  float* cs = shared + (rows_resident ? dp : kSlice) * kRows;  // [32][16R] centroids, transposed
  const int tid = static_cast<int>(threadIdx.x);
  const int ty = tid >> 4;  // rows 4·ty … 4·ty + 3 and 64 + 4·ty … of the tile
  const int tx = tid & 15;  // centroids 4·tx … 4·tx + 3 and 64 + 4·tx … of each inner tile
  const bool weighted = a.weights != nullptr;
  if (blockIdx.x == 0) clearForNextStages(a);

  double inertia = 0.0;
  unsigned long long changed = 0;
  for (std::size_t base = static_cast<std::size_t>(blockIdx.x) * kRows; base < a.n;
       base += static_cast<std::size_t>(gridDim.x) * kRows) {
    __syncthreads();  // the previous tile's rows are no longer read
    if constexpr (rows_resident) {
      stageRows<kRows>(xs, a.points, base, a.n, d, 0, dp / kSlice);
      __syncthreads();
    }
    Nearest3 near[R];
    for (int tile = 0; tile < k; tile += kCentroids) {
      float acc[R][R];
#pragma unroll
      for (int i = 0; i < R; ++i)
#pragma unroll
        for (int j = 0; j < R; ++j)
          acc[i][j] = 0.0f;
      for (int c0 = 0; c0 < dp; c0 += kSlice) {
        __syncthreads();  // the slice before is no longer read
        if (!rows_resident) stageRows<kRows>(xs, a.points, base, a.n, d, c0, 1);
        stageRows<kCentroids>(cs, a.centroids, static_cast<std::size_t>(tile),
                              static_cast<std::size_t>(k), d, c0, 1);
        __syncthreads();
        const float* x_slice = rows_resident ? xs + c0 * kRows : xs;
#pragma unroll 4
        for (int c = 0; c < kSlice; ++c) {
          const float* xc = x_slice + c * kRows + 4 * ty;
          const float* cc = cs + c * kCentroids + 4 * tx;
          float xr[R], cr[R];
#pragma unroll
          for (int h = 0; h < R / 4; ++h) {
            const float4 xv = *reinterpret_cast<const float4*>(xc + h * kHalf);
            const float4 cv = *reinterpret_cast<const float4*>(cc + h * kHalf);
            xr[4 * h] = xv.x, xr[4 * h + 1] = xv.y, xr[4 * h + 2] = xv.z, xr[4 * h + 3] = xv.w;
            cr[4 * h] = cv.x, cr[4 * h + 1] = cv.y, cr[4 * h + 2] = cv.z, cr[4 * h + 3] = cv.w;
          }
#pragma unroll
          for (int i = 0; i < R; ++i)
#pragma unroll
            for (int j = 0; j < R; ++j)
              acc[i][j] = fmaf(xr[i], cr[j], acc[i][j]);
        }
      }
#pragma unroll
      for (int j = 0; j < R; ++j) {
        const int index = tile + tilePlace(j, tx);
        if (index < k) {
          const float norm = __ldg(norms + index);
#pragma unroll
          for (int i = 0; i < R; ++i)
            near[i].add(fmaf(-2.0f, acc[i][j], norm), index);  // ‖c‖² − 2x·c
        }
      }
    }
#pragma unroll
    for (int mask = 1; mask < 16; mask <<= 1)
#pragma unroll
      for (int i = 0; i < R; ++i)
        near[i].merge(mask);

    if (tx < R) {  // thread tx finishes its group's row tx
      Nearest3 mine = near[0];
#pragma unroll
      for (int i = 1; i < R; ++i)
        if (tx == i) mine = near[i];
      const std::size_t gi = base + tilePlace(tx, ty);
      if (gi < a.n) {
        const float* x = a.points + gi * d;
        int label = mine.i1;
        float dist = exactDistanceAt(x, a.centroids + static_cast<std::size_t>(label) * d, d);
        if (mine.v2 < INFINITY) {
          float x_norm = 0.0f;
          for (int c = 0; c < d; ++c)
            x_norm = fmaf(x[c], x[c], x_norm);
          // Norm bounds from the triangle inequality, ‖c‖ ≤ ‖x‖ + ‖x − c‖ with
          // ‖x − c‖² ≈ score + ‖x‖², for the best and the third.
          const float r1 = sqrtf(x_norm) + sqrtf(fmaxf(0.0f, mine.v1 + x_norm));
          const float r3 = sqrtf(x_norm) + sqrtf(fmaxf(0.0f, mine.v3 + x_norm));
          const float bound = tieBoundFor(dp, x_norm, 1.01f * r1 * r1, 1.01f * r3 * r3);
          if (!(mine.v2 - mine.v1 > bound)) {
            if (mine.v3 - mine.v1 > bound) {  // only the best two can be nearest
              const float d2 =
                  exactDistanceAt(x, a.centroids + static_cast<std::size_t>(mine.i2) * d, d);
              if (d2 < dist || (d2 == dist && mine.i2 < label)) {
                dist = d2;
                label = mine.i2;
              }
            } else {
              label = exactNearestAt(x, a.centroids, d, k, dist);
            }
          }
        }
        // Distances that overflow float (data near its range): the CPU's answer is its first
        // centroid at ∞ or below — search exactly.
        if (!(dist < INFINITY)) label = exactNearestAt(x, a.centroids, d, k, dist);
        const float w = weighted ? __ldg(a.weights + gi) : 1.0f;
        inertia += weighted ? static_cast<double>(exact::mul(dist, w)) : static_cast<double>(dist);
        const LabelT new_label = static_cast<LabelT>(label);
        if (a.labels_in == nullptr || a.labels_in[gi] != new_label) ++changed;
        a.labels_out[gi] = new_label;
      }
    }
  }
  writeBlockScalars<kThreads>(inertia, changed, a.block_inertia, a.block_changed);
}

/// The kept sums: each row whose label changed since the sums last saw it (every row on the
/// first iteration) moves from its old cluster's row of `totals` to its new one's, a warp a row
/// at a time, by 64-bit integer atomics (exact and order-free: the totals are the same whatever
/// order the rows arrive in). Once the labels settle, the pass reads labels, not rows.
template <typename LabelT>
__global__ void __launch_bounds__(kSumThreads)
    highDimSumKernel(AccumulateArgs<LabelT> a, long long* totals) {
  const int d = a.d;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const bool weighted = a.weights != nullptr;
  const std::size_t warps_total = static_cast<std::size_t>(gridDim.x) * (kSumThreads / 32);
  const std::size_t warp_id =
      static_cast<std::size_t>(blockIdx.x) * (kSumThreads / 32) + (threadIdx.x >> 5);
  auto* sums = reinterpret_cast<unsigned long long*>(totals);
  for (std::size_t base = warp_id * 32; base < a.n; base += warps_total * 32) {
    const int count = a.n - base < 32 ? static_cast<int>(a.n - base) : 32;
    const std::size_t mine = base + lane;
    const int my_label = lane < count ? static_cast<int>(a.labels[mine]) : 0;
    const int my_old = (lane < count && !a.full) ? static_cast<int>(a.summed_labels[mine]) : -1;
    const unsigned moved = __ballot_sync(kFullWarp, lane < count && my_label != my_old);
    if (moved == 0u) continue;
    if ((moved >> lane) & 1u) a.summed_labels[mine] = static_cast<LabelT>(my_label);
    const float my_weight = (lane < count && weighted) ? __ldg(a.weights + mine) : 1.0f;
    for (int t = 0; t < 32; ++t) {
      if (!((moved >> t) & 1u)) continue;  // uniform across the warp
      const int label = __shfl_sync(kFullWarp, my_label, t);
      const int old = __shfl_sync(kFullWarp, my_old, t);
      const float w = __shfl_sync(kFullWarp, my_weight, t);
      const float* row = a.points + (base + t) * d;
      unsigned long long* to = sums + static_cast<std::size_t>(label) * (d + 1);
      unsigned long long* from =
          old >= 0 ? sums + static_cast<std::size_t>(old) * (d + 1) : nullptr;
      for (int c = lane; c < d; c += 32) {
        const float v = __ldg(row + c);
        const long long q =
            exact::quantize(weighted ? exact::mul(v, w) : v, __ldg(a.coord_scale + c));
        atomicAdd(to + c, static_cast<unsigned long long>(q));
        if (from) atomicAdd(from + c, static_cast<unsigned long long>(-q));
      }
      if (lane == 0) {
        const long long q = weighted ? exact::quantize(w, a.weight_scale) : 1;
        atomicAdd(to + d, static_cast<unsigned long long>(q));
        if (from) atomicAdd(from + d, static_cast<unsigned long long>(-q));
      }
    }
  }
}

template <typename LabelT>
void enqueueKeptSumsAs(const PlacedData& data, const RunBuffers& run, int sum_blocks,
                       int result_blocks, cudaStream_t s,
                       const unsigned long long* block_searched = nullptr, int work_stride = 1) {
  AccumulateArgs<LabelT> sums;
  sums.points = data.points.get();
  sums.weights = data.weightsOrNull();
  sums.n = data.n;
  sums.d = data.d;
  sums.k = run.k;
  sums.labels = reinterpret_cast<const LabelT*>(run.half(run.out_half, data.n));
  sums.summed_labels =
      reinterpret_cast<LabelT*>(run.half(AssignKernelsFamily::kSummedLabels, data.n));
  sums.full = run.in_half < 0;
  sums.coord_scale = data.coord_scale.get();
  sums.weight_scale = exact::pow2f(data.summary.fixed.weight_exp);
  highDimSumKernel<LabelT><<<sum_blocks, kSumThreads, 0, s>>>(sums, run.totals);
  KMS_CHECK_LAUNCH();
  launchReduce(nullptr, result_blocks, 0, run.totals, run.block_inertia, run.block_changed,
               block_searched, result_blocks, run.scalars, s, work_stride);
}

}  // namespace

void launchCentroidNorms(const float* centroids, int k, int d, float* norms, unsigned* largest_bits,
                         cudaStream_t stream) {
  centroidNormsKernel<<<(k + 255) / 256, 256, 0, stream>>>(centroids, k, d, norms, largest_bits);
  KMS_CHECK_LAUNCH();
}

void enqueueKeptSums(const PlacedData& data, const RunBuffers& run, std::size_t label_bytes,
                     int sum_blocks, int result_blocks, cudaStream_t stream,
                     const unsigned long long* block_work, int work_stride) {
  withLabelBytes(label_bytes, [&](auto label_type) {
    enqueueKeptSumsAs<decltype(label_type)>(data, run, sum_blocks, result_blocks, stream,
                                            block_work, work_stride);
  });
}

bool HighDimFamily::fits(const FamilyPlanInput& in) {
  return in.tuning.high_dim_rows && in.data.d > 64 && !in.data.summary.fixed.counted;
}

HighDimFamily::HighDimFamily(const FamilyPlanInput& in) {
  const int d = in.data.d;
  // The rows' every coordinate stays in shared memory while the block fits (128 rows of d up to
  // about 400); otherwise a slice at a time beside the centroids'.
  // (2 KB stay for the kernel's static shared memory: the block's scalar sums.)
  rows_resident_ = assignSharedBytes(d, true, 8) + 2048 <= in.limits.max_shared_per_block;
  const int R = rows_resident_ ? 8 : 4;
  plan_.threads = kThreads;
  plan_.shared_bytes = assignSharedBytes(d, rows_resident_, R);
  withLabelBytes(in.label_bytes, [&](auto label_type) {
    using LabelT = decltype(label_type);
    auto kernel = rows_resident_ ? highDimAssignKernel<8, LabelT> : highDimAssignKernel<4, LabelT>;
    KMS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(plan_.shared_bytes)));
    int per_sm = 0;
    KMS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kThreads,
                                                                 plan_.shared_bytes));
    const std::size_t tiles = (in.data.n + tileRows(R) - 1) / tileRows(R);
    plan_.blocks = static_cast<int>(std::max<std::size_t>(
        1, std::min<std::size_t>(
               tiles, static_cast<std::size_t>(in.limits.multiprocessors) * std::max(per_sm, 1))));
  });
  plan_.sum_threads = kSumThreads;
  plan_.sum_blocks = in.limits.multiprocessors * 4;
}

std::size_t HighDimFamily::runBytes(const PlacedData&, int k) const {
  return static_cast<std::size_t>(k) * sizeof(float);
}

void HighDimFamily::allocate(const PlacedData&, int k) {
  label_bytes_ = k <= 256 ? 1 : 2;
  norms_.resize(k);
}

void HighDimFamily::enqueue(PlacedData& data, const RunBuffers& run, Part part,
                            const Launch& launch) {
  withLabelBytes(label_bytes_, [&](auto label_type) {
    enqueueAs<decltype(label_type)>(data, run, part, launch);
  });
}

template <typename LabelT>
void HighDimFamily::enqueueAs(PlacedData& data, const RunBuffers& run, Part part,
                              const Launch& launch) {
  const cudaStream_t s = launch.stream;
  IterationEvents& events = *launch.events;
  const int k = run.k, d = data.d;
  if (part == Part::kUpdate) return enqueueUpdateFrom(run.global_totals, run, part, launch);
  AssignArgs<LabelT> a = assignArgsFor<LabelT>(data, run);  // counts: never (fits())
  a.clear = reinterpret_cast<unsigned long long*>(run.scalars);
  a.clear_words = sizeof(IterationScalars) / sizeof(unsigned long long);
  a.clear_totals = reinterpret_cast<unsigned long long*>(run.totals);
  // The sums are kept across iterations: zeroed for the run's first iteration only.
  a.clear_totals_words = run.in_half < 0 ? static_cast<std::size_t>(k) * (d + 1) : 0;

  events.start.recordInGraph(s);
  launchCentroidNorms(a.centroids, k, d, norms_.get(), nullptr, s);
  if (rows_resident_)
    highDimAssignKernel<8, LabelT>
        <<<plan_.blocks, kThreads, plan_.shared_bytes, s>>>(a, norms_.get());
  else
    highDimAssignKernel<4, LabelT>
        <<<plan_.blocks, kThreads, plan_.shared_bytes, s>>>(a, norms_.get());
  KMS_CHECK_LAUNCH();
  events.after_assign.recordInGraph(s);

  enqueueKeptSumsAs<LabelT>(data, run, plan_.sum_blocks, plan_.blocks, s);
  events.after_reduce.recordInGraph(s);
  if (part == Part::kSums) return;
  enqueueUpdateFrom(run.totals, run, part, launch);
}

}  // namespace kms::cuda
