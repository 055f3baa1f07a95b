// The per-row passes around the high-dimensional tensor family's ranking passes
// (high_dim_tensor_kernel.cuh): the settle test before them, which keeps a row's label where its
// bound proves it, and the fixed-order inertia after them.
//
// Bounds (Hamerly's, as the compact and wide kernels keep them): a row ranked over all k keeps L,
// a lower bound on its real distance to every centroid but its own (highDimLowerBound), stored
// as L + D with D the run's drift — the sum of every update's largest centroid shift, rounded up
// (iteration_common.cuh, grownDrift). Centroids move by at most D′ − D between two iterations,
// so at a later iteration every other centroid is still at least L − (D′ − D) away: the stored
// value less D′, rounded down. The row's own distance is the CPU's f = ‖x − c‖², computed in its
// order (the row's inertia needs it anyway). The CPU's distance to another centroid at real
// distance r ≥ L is at least r²·(1 − ρ), ρ = (d + 2)·u·1.02 (d squares of rounded differences,
// all non-negative, summed in order): so while f·(1 + s)² < L² with s ≥ ρ, no other centroid
// can come out nearer — or as near, which would take the tie — and the label stays what the CPU
// gives. Such a row costs one read of its coordinates; the rest go to the ranking passes.
#pragma once

#include <cstddef>

#include "common/constants.h"
#include "cuda/kernels/high_dim_tensor_kernel.cuh"

namespace kms::cuda {

inline constexpr int kHdSettleThreads = 256;

/// (1 + s)², rounded up, for the settle test of rows of d coordinates: s = ρ + kBoundSlack
/// (the slack covers the test's own roundings).
__host__ __device__ constexpr float highDimSquaredSlack(int d) {
  const float s = kBoundSlack + 1.02f * static_cast<float>(d + 2) * 5.9604645e-8f;
  return (1.0f + s) * (1.0f + s) * (1.0f + 1e-6f);
}

/// The settle test (not on a run's first iteration): a row whose bound, less the drift since it
/// was written, is above its own exact distance keeps its label and gives its inertia; every
/// other row goes to `active` (appended a warp at a time, in no fixed order: each row's result
/// depends on the row alone). A warp takes 32 consecutive rows — one contiguous block of
/// 32·d floats — and stages them 32 coordinates at a time through shared memory with whole-line
/// loads; then each lane adds its own row's squares in the CPU's order, reading its staged row
/// across the banks (pitch 33). A warp
/// whose rows all have hopeless bounds reads nothing. Counts one distance a row read into the
/// work slots (slot blockIdx.x % slots).
template <typename LabelT>
__global__ void __launch_bounds__(kHdSettleThreads)
    highDimSettleKernel(AssignArgs<LabelT> a, HighDimTensorExtra x, unsigned* active,
                        unsigned* active_count, int slots) {
  constexpr int kWarps = kHdSettleThreads / 32;
  __shared__ float staged[kWarps][32][33];
  __shared__ unsigned long long block_read;
  const int d = a.d;
  const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
  float(*rows)[33] = staged[warp];
  const bool aligned = (d & 3) == 0;  // centroid rows start on 16 bytes
  const bool weighted = a.weights != nullptr;
  const float drift_up = highDimDrift(*x.drift, d, true);
  const float squared_slack = highDimSquaredSlack(d);
  if (threadIdx.x == 0) block_read = 0;
  int read = 0;  // rows whose distance this lane computed
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * kWarps * 32;
  for (std::size_t base = (static_cast<std::size_t>(blockIdx.x) * kWarps + warp) * 32; base < a.n;
       base += stride) {  // warp-uniform
    const std::size_t i = base + lane;
    const bool valid = i < a.n;
    const float lower = valid ? __fsub_rd(x.bounds[i], drift_up) : 0.0f;
    const bool hopeful = lower > 0.0f;  // otherwise the ranking computes the distance anyway
    const LabelT label = hopeful ? a.labels_in[i] : LabelT{0};
    bool settled = false;
    if (__any_sync(kFullWarp, hopeful)) {
      const int count = a.n - base < 32 ? static_cast<int>(a.n - base) : 32;
      const float* block = a.points + base * d;
      const float* c = a.centroids + static_cast<std::size_t>(label) * d;
      float dist = 0.0f;
      // This lane's squares of coordinates [c0, c0 + width), staged, added in order.
      auto addSlice = [&](int c0, int width) {
        if (aligned && width == 32) {
#pragma unroll
          for (int v = 0; v < 8; ++v) {
            const float4 q = __ldg(reinterpret_cast<const float4*>(c + c0) + v);
            const float e0 = exact::sub(rows[lane][4 * v], q.x);
            const float e1 = exact::sub(rows[lane][4 * v + 1], q.y);
            const float e2 = exact::sub(rows[lane][4 * v + 2], q.z);
            const float e3 = exact::sub(rows[lane][4 * v + 3], q.w);
            dist = exact::add(dist, exact::mul(e0, e0));
            dist = exact::add(dist, exact::mul(e1, e1));
            dist = exact::add(dist, exact::mul(e2, e2));
            dist = exact::add(dist, exact::mul(e3, e3));
          }
        } else {
          for (int t = 0; t < width; ++t) {
            const float e = exact::sub(rows[lane][t], __ldg(c + c0 + t));
            dist = exact::add(dist, exact::mul(e, e));
          }
        }
      };
      if ((d & 31) == 0) {
        // Whole slices: eight 16-byte loads a lane (float4 lane + 32t of the slice's 32 × 8:
        // row 4t + lane / 8, quarter lane % 8 — four whole lines an instruction), the next
        // slice's in flight while this one is added; the stores fall in 32 distinct banks.
        float4 next[8];
        auto load = [&](int c0) {
#pragma unroll
          for (int t = 0; t < 8; ++t) {
            const int r = 4 * t + (lane >> 3);
            next[t] = r < count ? __ldg(reinterpret_cast<const float4*>(
                                            block + static_cast<std::size_t>(r) * d + c0) +
                                        (lane & 7))
                                : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
          }
        };
        load(0);
        for (int c0 = 0; c0 < d; c0 += 32) {
#pragma unroll
          for (int t = 0; t < 8; ++t) {
            float* to = &rows[4 * t + (lane >> 3)][4 * (lane & 7)];
            to[0] = next[t].x;
            to[1] = next[t].y;
            to[2] = next[t].z;
            to[3] = next[t].w;
          }
          __syncwarp();
          if (c0 + 32 < d) load(c0 + 32);
          if (hopeful) addSlice(c0, 32);
          __syncwarp();  // the staged slice is read before the next one lands
        }
      } else {
        for (int c0 = 0; c0 < d; c0 += 32) {
          const int width = d - c0 < 32 ? d - c0 : 32;
          if (lane < width)
#pragma unroll 8
            for (int r = 0; r < count; ++r)
              rows[r][lane] = __ldg(block + static_cast<std::size_t>(r) * d + c0 + lane);
          __syncwarp();
          if (hopeful) addSlice(c0, width);
          __syncwarp();
        }
      }
      if (hopeful) {
        ++read;
        settled = dist * squared_slack < lower * lower;  // false for NaN and ∞
        if (settled) {
          x.row_inertia[i] = weighted ? exact::mul(dist, __ldg(a.weights + i)) : dist;
          a.labels_out[i] = label;
        }
      }
    }
    const unsigned open = __ballot_sync(kFullWarp, valid && !settled);
    if (open != 0u) {
      unsigned first = 0;
      if (lane == 0) first = atomicAdd(active_count, static_cast<unsigned>(__popc(open)));
      first = __shfl_sync(kFullWarp, first, 0);
      if ((open >> lane) & 1u)
        active[first + __popc(open & ((1u << lane) - 1u))] = static_cast<unsigned>(i);
    }
  }
  read = warpSum(read);
  __syncthreads();
  if (lane == 0 && read != 0) atomicAdd(&block_read, static_cast<unsigned long long>(read));
  __syncthreads();
  if (threadIdx.x == 0)
    addBlockWork(x.block_work, static_cast<int>(blockIdx.x) % slots, 0, block_read);
}

/// The block's inertia: the sum of row_inertia over its share of the rows, in a fixed order
/// (the same sum whichever pass decided each row, and whatever order the rows were listed in).
__global__ void __launch_bounds__(kHdScalarThreads)
    highDimInertiaKernel(const float* __restrict__ row_inertia, std::size_t n,
                         double* block_inertia) {
  const std::size_t share = (n + gridDim.x - 1) / gridDim.x;
  const std::size_t first = static_cast<std::size_t>(blockIdx.x) * share;
  const std::size_t last = first + share < n ? first + share : n;
  double sum = 0.0;
  for (std::size_t i = first + threadIdx.x; i < last; i += kHdScalarThreads)
    sum += static_cast<double>(row_inertia[i]);
  const BlockScalars total = blockSumScalars<kHdScalarThreads>(sum, 0);
  if (threadIdx.x == 0) block_inertia[blockIdx.x] = total.inertia;
}

}  // namespace kms::cuda
