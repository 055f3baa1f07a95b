// The separate summing pass used with the register-tiled assignment kernel (large d).
#pragma once

#include "cuda/kernels/assign_common.cuh"

namespace kms::cuda {

/// The cluster sums for large d, in a second pass over the points (labels just written), kept
/// across iterations: the totals are zeroed only before the first iteration, and each later
/// pass moves only the points whose label changed — their contribution is subtracted from the
/// old cluster's row and added to the new one's (integer sums: exact, and the same totals a full
/// pass would give). Once the labels settle the pass reads labels, not points.
/// A warp takes 32 points at a time: it loads the moved ones together (lane l holds coordinates
/// l, l + 32, … of every point, so each row load is coalesced and all loads are in flight
/// together), then walks them one by one, adding each to its cluster's row with native 32-bit
/// shared atomics on distinct addresses. Integer sums: order-free, exact.
template <int THREADS, int V, typename LabelT>
__global__ void __launch_bounds__(THREADS) accumulateKernel(AccumulateArgs<LabelT> a) {
  extern __shared__ __align__(16) unsigned char shared_raw[];
  const int d = a.d;
  const int kd1 = a.k * (d + 1);
  unsigned* acc_lo = reinterpret_cast<unsigned*>(shared_raw);
  int* acc_hi = reinterpret_cast<int*>(acc_lo + kd1);
  float* scale = reinterpret_cast<float*>(acc_hi + kd1);
  for (int c = threadIdx.x; c < kd1; c += THREADS) {
    acc_lo[c] = 0u;
    acc_hi[c] = 0;
  }
  for (int c = threadIdx.x; c < d; c += THREADS)
    scale[c] = a.coord_scale[c];
  __syncthreads();
  const int lane = threadIdx.x & 31;
  const bool weighted = a.weights != nullptr;
  const std::size_t warps_total = static_cast<std::size_t>(gridDim.x) * (THREADS / 32);
  const std::size_t warp_id =
      static_cast<std::size_t>(blockIdx.x) * (THREADS / 32) + (threadIdx.x >> 5);
  for (std::size_t base = warp_id * 32; base < a.n; base += warps_total * 32) {
    const int count = a.n - base < 32 ? static_cast<int>(a.n - base) : 32;
    const std::size_t mine = base + lane;
    const int my_label = lane < count ? static_cast<int>(a.labels[mine]) : 0;
    const int my_old = (lane < count && !a.full) ? static_cast<int>(a.summed_labels[mine]) : -1;
    const unsigned moved = __ballot_sync(kFullWarp, lane < count && my_label != my_old);
    if (moved == 0u) continue;  // the whole warp's points stay where the totals have them
    if ((moved >> lane) & 1u) a.summed_labels[mine] = static_cast<LabelT>(my_label);
    const float my_weight = (lane < count && weighted) ? a.weights[mine] : 1.0f;
    float v[32][V];
#pragma unroll
    for (int t = 0; t < 32; ++t)
#pragma unroll
      for (int u = 0; u < V; ++u) {
        const int c = lane + 32 * u;
        v[t][u] = (((moved >> t) & 1u) && c < d) ? __ldg(a.points + (base + t) * d + c) : 0.0f;
      }
    // Adds sign·(point t) to cluster `label`'s row.
    auto add = [&](int t, int label, float w, int sign) {
      unsigned* lo = acc_lo + static_cast<std::size_t>(label) * (d + 1);
      int* hi = acc_hi + static_cast<std::size_t>(label) * (d + 1);
#pragma unroll
      for (int u = 0; u < V; ++u) {
        const int c = lane + 32 * u;
        if (c < d)
          atomicAddWide(
              lo + c, hi + c,
              sign * exact::quantize(weighted ? exact::mul(v[t][u], w) : v[t][u], scale[c]));
      }
      if (lane == 0)
        atomicAddWide(lo + d, hi + d, sign * (weighted ? exact::quantize(w, a.weight_scale) : 1));
    };
#pragma unroll
    for (int t = 0; t < 32; ++t) {
      if (!((moved >> t) & 1u)) continue;  // uniform across the warp
      const float w = __shfl_sync(kFullWarp, my_weight, t);
      add(t, __shfl_sync(kFullWarp, my_label, t), w, 1);
      const int old = __shfl_sync(kFullWarp, my_old, t);
      if (old >= 0) add(t, old, w, -1);
    }
  }
  __syncthreads();
  long long* out = a.sums + static_cast<std::size_t>(blockIdx.x) * kd1;
  for (int c = threadIdx.x; c < kd1; c += THREADS)
    out[c] = wideValue(acc_lo[c], acc_hi[c]);
}

}  // namespace kms::cuda
