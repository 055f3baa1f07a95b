// Assignment for d from 17 to 64 on tensor cores: TF32 candidate ranking with a proven error
// bound, then exact FP32 re-ranking of every centroid the bound cannot rule out.
//
// The n × k × d dot products are a matrix product, so they run as TF32 mma.sync m16n8k8
// instructions (documented fragment layouts, no shared-memory round trip for the results): a
// block stages 128 points (FP32, exact) and a chunk of centroids (already rounded to TF32); each
// warp holds its 16 points' TF32 fragments in registers for all d and walks the centroids 32 at
// a time — four independent accumulations, so the tensor pipe has work while each mma's result
// is pending — every lane keeping the three smallest values of v = ‖c‖² − 2x·c for its two rows.
// Within each k-step of 8 coordinates, fragment column t holds coordinate 2t and column t + 4
// coordinate 2t + 1 (the same for points and centroids, so every product appears once): a lane's
// two values are adjacent and load as one 8-byte word.
//
// TF32 keeps 10 mantissa bits, so v is far less precise than FP32: the kernel bounds its error
// (kTensorErrorFactor, derivation in docs/engine.md) by E = ε·(‖x‖² + max‖c‖²) per point and
// decides from the three smallest values:
//   v₂ − v₁ > 2E  → the best centroid is certain: one FP32 distance (for the inertia only);
//   v₃ − v₁ > 2E  → only the best two can be nearest: their exact distances decide;
//   otherwise     → the warp computes the exact distance to every centroid (32 lanes at once).
// "Exact distance" is the CPU backend's own computation (exactDistance), so the label is the
// CPU's, ties to the lower index included. The sums come from the separate accumulateKernel pass.
#pragma once

#include "cuda/kernels/assign_common.cuh"
#include "cuda/kernels/assign_tiled_kernel.cuh"  // Nearest3
#include "cuda/kernels/async_copy.cuh"
#include "cuda/kernels/tf32_mma.cuh"

namespace kms::cuda {

inline constexpr int kTensorThreads = 256;  // 8 warps
inline constexpr int kTensorPoints = 128;   // points per block tile: 16 per warp
inline constexpr int kTensorColumns = 32;   // centroids per step: four mma tiles of 8

/// Floats per staged row: D plus 8, so the 4 rows × 4 lanes of a half-warp's 8-byte fragment
/// loads cover the 32 banks once (row stride ≡ 8 mod 32).
__host__ __device__ constexpr int tensorRow(int D) {
  return D + 8;
}

/// Dynamic shared memory for a chunk of `chunk` centroids (a multiple of 32).
__host__ __device__ constexpr std::size_t tensorSharedBytes(int D, int chunk) {
  return static_cast<std::size_t>(kTensorPoints + chunk) * tensorRow(D) * 4 +
         static_cast<std::size_t>(chunk) * 4;
}

/// ε of the bound |v − v*| + |exact − ‖x − c‖²| ≤ ε·(‖x‖² + ‖c‖²), where v is the kernel's
/// TF32 value, v* its real counterpart ‖c‖² − 2x·c and `exact` the CPU backend's FP32 distance
/// (u = 2^−24; docs/engine.md has the derivation):
///   TF32 rounding of x and c (cvt.rna, ≤ 2^−11 each):             2^−10 + 2^−22
///   accumulation of D exact products, ≤ 2 ulps per addition
///   (tensor cores may truncate instead of rounding):                D·2^−22
///   ‖c‖² in FP32 (D·u), the final fma (2u), the CPU's distance
///   (2(D + 4)u, relative to ‖x − c‖² ≤ 2(‖x‖² + ‖c‖²)):            (3D + 10)·u
/// times 1.25, which also covers the FP32 rounding of ‖x‖², max‖c‖², E and v₂ − v₁ (each a
/// relative error below 10^−5).
template <int D>
__host__ __device__ constexpr float tensorErrorFactor() {
  return 1.25f * (9.765625e-4f + 2.3841858e-7f + D * 2.3841858e-7f + (3 * D + 10) * 5.9604645e-8f);
}

/// An absolute floor for E: TF32 keeps FP32's exponent range, but points and centroids in the
/// subnormal range lose relative precision; any data that small are re-ranked exactly.
inline constexpr float kTensorErrorFloor = 1e-30f;

/// Point `i`'s coordinates (global memory) into x, zero-padded to D.
template <int D>
__device__ __forceinline__ void loadRow(const float* __restrict__ points, std::size_t i, int d,
                                        float (&x)[D]) {
  const float* row = points + i * d;
  if (d == D) {
#pragma unroll
    for (int v = 0; v < D / 4; ++v) {
      const float4 q = __ldg(reinterpret_cast<const float4*>(row) + v);
      x[4 * v] = q.x;
      x[4 * v + 1] = q.y;
      x[4 * v + 2] = q.z;
      x[4 * v + 3] = q.w;
    }
  } else {
#pragma unroll
    for (int c = 0; c < D; ++c)
      x[c] = c < d ? __ldg(row + c) : 0.0f;
  }
}

/// ‖x − c‖² in FP32 with four partial sums (a quarter of exactDistance's dependency chain): not
/// the CPU's bits, but within a few ulps of them — what the inertia of a point whose label is
/// certain needs. Labels are never decided with it.
template <int D>
__device__ __forceinline__ float inertiaDistance(const float (&x)[D], const float* __restrict__ c,
                                                 int d) {
  float s[4] = {0.0f, 0.0f, 0.0f, 0.0f};
  if (d == D) {
#pragma unroll
    for (int v = 0; v < D / 4; ++v) {
      const float4 q = __ldg(reinterpret_cast<const float4*>(c) + v);
      s[0] = fmaf(x[4 * v] - q.x, x[4 * v] - q.x, s[0]);
      s[1] = fmaf(x[4 * v + 1] - q.y, x[4 * v + 1] - q.y, s[1]);
      s[2] = fmaf(x[4 * v + 2] - q.z, x[4 * v + 2] - q.z, s[2]);
      s[3] = fmaf(x[4 * v + 3] - q.w, x[4 * v + 3] - q.w, s[3]);
    }
  } else {
#pragma unroll
    for (int i = 0; i < D; ++i)
      if (i < d) {
        const float diff = x[i] - __ldg(c + i);
        s[i & 3] = fmaf(diff, diff, s[i & 3]);
      }
  }
  return (s[0] + s[1]) + (s[2] + s[3]);
}

/// The exact nearest centroid of point x (the same in every lane) by the whole warp (each lane a stride of
/// centroids, then a (distance, index) reduction): the same answer as exactNearest, for rows
/// whose TF32 ranking left three or more candidates.
template <int D>
__device__ int warpExactNearest(const float (&x)[D], const float* __restrict__ centroids, int d,
                                int k, float& distance) {
  float best = INFINITY;
  int best_j = k;  // none below ∞ yet
  for (int j = threadIdx.x & 31; j < k; j += 32) {
    const float s = exactDistance<D>(x, centroids + static_cast<std::size_t>(j) * d, d);
    if (s < best) {
      best = s;
      best_j = j;
    }
  }
  for (int offset = 16; offset > 0; offset >>= 1) {
    const float other = __shfl_xor_sync(kFullWarp, best, offset);
    const int other_j = __shfl_xor_sync(kFullWarp, best_j, offset);
    if (other < best || (other == best && other_j < best_j)) {
      best = other;
      best_j = other_j;
    }
  }
  // exactNearest's answer when no distance is below ∞: centroid 0 at ∞.
  distance = best;
  return best_j == k ? 0 : best_j;
}

template <int D, typename LabelT>
__global__ void __launch_bounds__(kTensorThreads, 2)
    assignTensorKernel(AssignArgs<LabelT> a, int chunk) {
  static_assert(D % 8 == 0, "the tensor kernel needs d padded to a multiple of 8");
  constexpr int R = tensorRow(D);
  constexpr int kSteps = D / 8;
  extern __shared__ __align__(16) unsigned char shared_raw[];
  float* xs = reinterpret_cast<float*>(shared_raw);  // [128][R] points, FP32 (fragment source)
  unsigned* cs = reinterpret_cast<unsigned*>(xs + kTensorPoints * R);  // [chunk][R] TF32
  float* cn = reinterpret_cast<float*>(cs + static_cast<std::size_t>(chunk) * R);  // ‖c‖², ∞ past k
  __shared__ unsigned largest_norm_bits;  // max ‖c‖² over all k (non-negative: int order)

  const int d = a.d;
  const int k = a.k;
  const int tid = threadIdx.x;
  const int warp = tid >> 5;
  const int lane = tid & 31;
  const int g = lane >> 2;  // fragment row group
  const int t = lane & 3;   // fragment column pair
  const bool single_chunk = chunk >= k;
  const bool weighted = a.weights != nullptr;

  if (blockIdx.x == 0) clearForNextStages(a);
  if (tid == 0) largest_norm_bits = 0u;
  auto stage = [&](int first, int count) {
    for (int idx = tid; idx < chunk * D; idx += kTensorThreads) {
      const int j = idx / D, c = idx - j * D;
      const float v =
          (j < count && c < d) ? a.centroids[static_cast<std::size_t>(first + j) * d + c] : 0.0f;
      cs[j * R + c] = toTf32(v);
    }
    for (int j = tid; j < chunk; j += kTensorThreads) {
      float norm = INFINITY;
      if (j < count) {
        const float* c = a.centroids + static_cast<std::size_t>(first + j) * d;
        norm = 0.0f;
        for (int i = 0; i < d; ++i)
          norm = fmaf(c[i], c[i], norm);
        // NaN compares above ∞ as an int, so the bound becomes NaN and everything is exact.
        atomicMax(&largest_norm_bits, __float_as_uint(norm));
      }
      cn[j] = norm;
    }
    __syncthreads();
  };
  __syncthreads();  // largest_norm_bits is zeroed
  if (single_chunk) stage(0, k);

  // Fetches the 128 points of the tile at `tile` into xs with asynchronous copies (whole rows
  // of float4 when d = D, single floats otherwise), zeros past n and past d.
  auto fetchPoints = [&](std::size_t tile) {
    if (d == D) {
      for (int idx = tid; idx < kTensorPoints * (D / 4); idx += kTensorThreads) {
        const int point = idx / (D / 4), c4 = idx - point * (D / 4);
        const std::size_t gi = tile + point;
        const bool inside = gi < a.n;
        copyAsync<16>(xs + point * R + 4 * c4, a.points + (inside ? gi : 0) * D + 4 * c4,
                      inside ? 16 : 0);
      }
    } else {
      for (int idx = tid; idx < kTensorPoints * D; idx += kTensorThreads) {
        const int point = idx / D, c = idx - point * D;
        const std::size_t gi = tile + point;
        const bool inside = gi < a.n && c < d;
        copyAsync<4>(xs + point * R + c, a.points + (inside ? gi * d + c : 0), inside ? 4 : 0);
      }
    }
    copyAsyncCommit();
  };

  double inertia = 0.0;
  unsigned long long changed = 0;
  unsigned long long reranked = 0, distances = 0;  // work counters (IterationStats)
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * kTensorPoints;
  // Points in device memory: the next tile is fetched while this one is ranked, and the
  // epilogue reads its points again from global memory (cached). Points in host memory cross
  // the interconnect once: each tile is fetched when its turn comes and the epilogue reads xs.
  const bool prefetch = !a.points_on_host;
  // Point `local` of the tile at `tile` into x.
  auto loadPoint = [&](std::size_t tile, int local, float(&x)[D]) {
    if (prefetch) {
      loadRow<D>(a.points, min(tile + local, a.n - 1), d, x);
    } else {
#pragma unroll
      for (int c = 0; c < D; ++c)
        x[c] = xs[local * R + c];
    }
  };
  if (prefetch && static_cast<std::size_t>(blockIdx.x) * kTensorPoints < a.n)
    fetchPoints(static_cast<std::size_t>(blockIdx.x) * kTensorPoints);
  for (std::size_t base = static_cast<std::size_t>(blockIdx.x) * kTensorPoints; base < a.n;
       base += stride) {
    if (!prefetch) {
      __syncthreads();  // the previous tile's epilogue no longer reads xs
      fetchPoints(base);
    }
    copyAsyncWaitAll();
    __syncthreads();  // this tile's points are in xs

    // This warp's 16 points as TF32 A fragments, for every k-step of 8 coordinates.
    unsigned frag[kSteps][4];
    {
      const float* r0 = xs + (16 * warp + g) * R + 2 * t;
      const float* r1 = r0 + 8 * R;
#pragma unroll
      for (int s = 0; s < kSteps; ++s) {
        const float2 u = *reinterpret_cast<const float2*>(r0 + 8 * s);
        const float2 w = *reinterpret_cast<const float2*>(r1 + 8 * s);
        frag[s][0] = toTf32(u.x);
        frag[s][1] = toTf32(w.x);
        frag[s][2] = toTf32(u.y);
        frag[s][3] = toTf32(w.y);
      }
    }
    // Every warp holds its fragments, so xs takes the next tile while this one is ranked (the
    // epilogue reads the points from global memory, where they are still in cache).
    if (prefetch) {
      __syncthreads();
      if (base + stride < a.n) fetchPoints(base + stride);
    }

    Nearest3 near[2];  // rows g and g + 8 of the warp's 16
    for (int first = 0; first < k; first += chunk) {
      const int count = min(chunk, k - first);
      if (!single_chunk) {
        __syncthreads();
        stage(first, count);
      }
      for (int tile = 0; tile < count; tile += kTensorColumns) {
        float acc[4][4] = {};
        const unsigned* column = cs + (tile + g) * R + 2 * t;
#pragma unroll
        for (int s = 0; s < kSteps; ++s)
#pragma unroll
          for (int q = 0; q < 4; ++q) {
            const uint2 b = *reinterpret_cast<const uint2*>(column + 8 * q * R + 8 * s);
            mmaTf32(acc[q], frag[s], b.x, b.y);
          }
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const float2 norms = *reinterpret_cast<const float2*>(cn + tile + 8 * q + 2 * t);
          const int j = first + tile + 8 * q + 2 * t;
          near[0].add(fmaf(-2.0f, acc[q][0], norms.x), j);
          near[0].add(fmaf(-2.0f, acc[q][1], norms.y), j + 1);
          near[1].add(fmaf(-2.0f, acc[q][2], norms.x), j);
          near[1].add(fmaf(-2.0f, acc[q][3], norms.y), j + 1);
        }
      }
    }
    // The four lanes of a row group hold disjoint columns: merge (all four get the result).
#pragma unroll
    for (int mask = 1; mask < 4; mask <<= 1) {
      near[0].merge(mask);
      near[1].merge(mask);
    }

    // Epilogue. Lanes t = 0, 1 own rows g and g + 8; lanes t = 2, 3 help them with the second
    // candidate's exact distance.
    const Nearest3 mine = (t & 1) ? near[1] : near[0];
    const int local = 16 * warp + g + 8 * (t & 1);
    const std::size_t gi = base + local;
    const bool valid = gi < a.n;
    float x[D];
    loadPoint(base, local, x);
    float x_norm = 0.0f;
#pragma unroll
    for (int c = 0; c < D; ++c)
      x_norm = fmaf(x[c], x[c], x_norm);
    const float largest = __uint_as_float(largest_norm_bits);
    const float margin =
        2.0f * (tensorErrorFactor<D>() * (x_norm + largest) + kTensorErrorFloor);
    // Comparisons written so that NaN or ∞ anywhere fall through to the exact search.
    const bool certain = mine.v2 - mine.v1 > margin;
    const bool pair = !certain && mine.v3 - mine.v1 > margin;
    // A certain label needs its distance for the inertia only; a pair is decided by the CPU's
    // exact distances.
    const int candidate = t < 2 ? mine.i1 : mine.i2;
    const float* candidate_row = a.centroids + static_cast<std::size_t>(candidate) * d;
    float candidate_dist = INFINITY;
    if (valid && t < 2 && certain) candidate_dist = inertiaDistance<D>(x, candidate_row, d);
    if (valid && pair) candidate_dist = exactDistance<D>(x, candidate_row, d);
    const float second_dist = __shfl_xor_sync(kFullWarp, candidate_dist, 2);
    int label = mine.i1;
    float dist = candidate_dist;
    if (pair && (second_dist < dist || (second_dist == dist && mine.i2 < label))) {
      dist = second_dist;
      label = mine.i2;
    }
    unsigned searched = __ballot_sync(kFullWarp, valid && t < 2 && !certain && !pair);
    while (searched != 0u) {
      const int src = __ffs(searched) - 1;
      searched &= searched - 1;
      float xr[D];
      loadPoint(base, 16 * warp + (src >> 2) + 8 * (src & 1), xr);
      float exact_dist;
      const int exact_label = warpExactNearest<D>(xr, a.centroids, d, k, exact_dist);
      if (lane == src) {
        label = exact_label;
        dist = exact_dist;
      }
    }
    if (valid && t < 2) {
      reranked += certain ? 0 : 1;
      distances += certain ? 1 : pair ? 2 : static_cast<unsigned>(k);
      const float w = weighted ? __ldg(a.weights + gi) : 1.0f;
      inertia += weighted ? static_cast<double>(exact::mul(dist, w)) : static_cast<double>(dist);
      const LabelT new_label = static_cast<LabelT>(label);
      if (a.labels_in == nullptr || a.labels_in[gi] != new_label) ++changed;
      a.labels_out[gi] = new_label;
    }
  }
  writeBlockScalars<kTensorThreads>(inertia, changed, a.block_inertia, a.block_changed);
  if (a.block_work != nullptr) {
    __syncthreads();  // blockSumScalars' shared storage is reused
    const BlockScalars reranked_total = blockSumScalars<kTensorThreads>(0.0, reranked);
    __syncthreads();
    const BlockScalars distances_total = blockSumScalars<kTensorThreads>(0.0, distances);
    if (tid == 0) {
      a.block_work[2 * blockIdx.x] = reranked_total.changed;
      a.block_work[2 * blockIdx.x + 1] = distances_total.changed;
    }
  }
}

}  // namespace kms::cuda
