// The assignment kernel for any d and k: correct everywhere, used when the fast paths do not fit.
#pragma once

#include "cuda/kernels/assign_common.cuh"

namespace kms::cuda {

/// Fallback for any d (and for k·(d+1) too large for shared memory): one point per thread,
/// exact distances straight from global memory (L1/L2-cached), integer atomics into global
/// totals. Correct everywhere; the templated kernel is the fast path.
template <typename LabelT, int THREADS>
__global__ void __launch_bounds__(THREADS) assignGenericKernel(AssignArgs<LabelT> a) {
  const int d = a.d;
  const int lane = threadIdx.x & 31;
  double inertia = 0.0;
  unsigned long long changed = 0;
  const std::size_t stride_points = static_cast<std::size_t>(gridDim.x) * THREADS;
  // Every lane of a warp runs the same number of rounds (warp-level merging below).
  const std::size_t rounds = (a.n + stride_points - 1) / stride_points;
  for (std::size_t r = 0; r < rounds; ++r) {
    const std::size_t i = r * stride_points + blockIdx.x * THREADS + threadIdx.x;
    const bool valid = i < a.n;
    int label = 0;
    float w = 1.0f;
    float best = INFINITY;
    if (valid) {
      const float* x = a.points + i * d;
      for (int j = 0; j < a.k; ++j) {
        const float dist =
            exact::squaredDistance(x, a.centroids + static_cast<std::size_t>(j) * d, d);
        if (dist < best) {
          best = dist;
          label = j;
        }
      }
      if (a.counts) {
        // Compact data: the row adds m times what one of its points adds, in 64-bit integers.
        const std::uint32_t m = __ldg(a.counts + i);
        inertia += static_cast<double>(best) * m;
        const LabelT new_label = static_cast<LabelT>(label);
        if (a.labels_in == nullptr || a.labels_in[i] != new_label) changed += m;
        a.labels_out[i] = new_label;
        long long* row = a.sums + static_cast<std::size_t>(label) * (d + 1);
        for (int c = 0; c < d; ++c)
          atomicAddInt64(row + c, static_cast<long long>(m) *
                                      exact::quantize(a.points[i * d + c], a.coord_scale[c]));
        atomicAddInt64(row + d, static_cast<long long>(m));
      }
    }
    if (a.counts) continue;  // uniform over the grid: every lane of every warp takes it
    if (valid) {
      if (a.weights) w = __ldg(a.weights + i);
      inertia += a.weights ? static_cast<double>(exact::mul(best, w)) : static_cast<double>(best);
      const LabelT new_label = static_cast<LabelT>(label);
      if (a.labels_in == nullptr || a.labels_in[i] != new_label) ++changed;
      a.labels_out[i] = new_label;
    }
    // Merge equal labels within the warp once, then add per coordinate.
    const int leader_mask_label = __shfl_sync(kFullWarp, label, 0);
    const bool uniform = __all_sync(kFullWarp, !valid || label == leader_mask_label);
    const bool weighted = a.weights != nullptr;
    long long* row = a.sums + static_cast<std::size_t>(label) * (d + 1);
    for (int c = 0; c < d; ++c) {
      const int q = valid ? exact::quantize(
                                weighted ? exact::mul(a.points[i * d + c], w) : a.points[i * d + c],
                                a.coord_scale[c])
                          : 0;
      if (uniform) {
        const int s = warpSum(q);
        if (lane == 0) atomicAddInt64(row + c, s);
      } else if (valid) {
        atomicAddInt64(row + c, q);
      }
    }
    const int qw = valid ? (weighted ? exact::quantize(w, a.weight_scale) : 1) : 0;
    if (uniform) {
      const int s = warpSum(qw);
      if (lane == 0) atomicAddInt64(row + d, s);
    } else if (valid) {
      atomicAddInt64(row + d, qw);
    }
  }
  writeBlockScalars<THREADS>(inertia, changed, a.block_inertia, a.block_changed);
}

}  // namespace kms::cuda
