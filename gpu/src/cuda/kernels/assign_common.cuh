// Building blocks shared by the assignment kernels: shared-memory layout of centroid rows,
// point loads, warp reductions, exact integer sums in 32-bit words, exact distances and the
// near-tie bound that decides when the fast comparison must be redone exactly.
#pragma once

#include <cstdint>

#include "common/exact_math.h"
#include "cuda/kernels/assign_args.cuh"
#include "cuda/kernels/block_sums.cuh"

namespace kms::cuda {

inline constexpr unsigned kFullWarp = 0xffffffffu;

/// Floats per centroid row in shared memory: D coordinates, ‖c‖² at index D, zeros up to a
/// multiple of 4 (2 when D = 1) so a row loads as float4 (float2) words.
__host__ __device__ constexpr int centroidRow(int D) {
  return D == 1 ? 2 : ((D + 4) / 4) * 4;
}

/// Points per thread: several for instruction-level parallelism and fewer shared loads per FMA,
/// fewer for large d (registers).
__host__ __device__ constexpr int pointsPerThread(int D) {
  return D <= 16 ? 4 : 2;
}

/// Threads per block: fewer for large d, whose register-heavy threads would otherwise allow
/// only one block per multiprocessor.
__host__ __device__ constexpr int assignThreads(int D) {
  return D <= 16 ? 256 : 128;
}

/// Whether the assignment kernel also accumulates the cluster sums (small d: one pass over the
/// data). For large d the sums need k·(d+1) shared accumulators that would crowd out the
/// centroids, so a separate pass (accumulateKernel) computes them.
__host__ __device__ constexpr bool fusesSums(int D) {
  return D <= 16;
}

/// Sum over the warp; every lane gets the total. |v| ≤ 2^25, so 32 values fit an int.
__device__ __forceinline__ int warpSum(int v) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  return __reduce_add_sync(kFullWarp, v);
#else
  for (int offset = 16; offset > 0; offset >>= 1)
    v += __shfl_xor_sync(kFullWarp, v, offset);
  return v;
#endif
}

/// Global 64-bit integer atomic add (native on the device's L2).
__device__ __forceinline__ void atomicAddInt64(long long* address, long long value) {
  atomicAdd(reinterpret_cast<unsigned long long*>(address), static_cast<unsigned long long>(value));
}

/// Stages centroids [first, first + count) into shared rows, computing ‖c‖².
template <int D>
__device__ void stageCentroids(float* rows, const float* __restrict__ centroids, int d, int first,
                               int count) {
  constexpr int R = centroidRow(D);
  // Four loads in flight per thread before their stores: one at a time, each store waited for
  // its load, and staging k = 128 rows of 16 took ten global round trips in a row.
  constexpr int kInFlight = 4;
  const int total = count * R;
  for (int base = threadIdx.x; base < total; base += kInFlight * blockDim.x) {
    float v[kInFlight];
#pragma unroll
    for (int u = 0; u < kInFlight; ++u) {
      const int idx = base + u * blockDim.x;
      const int j = idx / R;
      const int c = idx - j * R;
      v[u] = (idx < total && c < d && c < D)
                 ? centroids[static_cast<std::size_t>(first + j) * d + c]
                 : 0.0f;
    }
#pragma unroll
    for (int u = 0; u < kInFlight; ++u)
      if (base + u * static_cast<int>(blockDim.x) < total) rows[base + u * blockDim.x] = v[u];
  }
  __syncthreads();
  for (int j = threadIdx.x; j < count; j += blockDim.x) {
    float* row = rows + j * R;
    float norm = 0.0f;
#pragma unroll
    for (int c = 0; c < D; ++c)
      norm = fmaf(row[c], row[c], norm);
    row[D] = norm;
  }
  __syncthreads();
}

/// Loads point i's d coordinates into x[0, D) (zero-padded); an invalid point loads zeros.
template <int D>
__device__ __forceinline__ void loadPoint(const float* __restrict__ points, unsigned i, int d,
                                          bool valid, float (&x)[D]) {
#pragma unroll
  for (int c = 0; c < D; ++c)
    x[c] = 0.0f;
  if (!valid) return;
  if (d == D) {
    const float* p = points + i * D;
    if constexpr (D % 4 == 0) {
#pragma unroll
      for (int v = 0; v < D / 4; ++v) {
        const float4 t = __ldg(reinterpret_cast<const float4*>(p) + v);
        x[4 * v] = t.x;
        x[4 * v + 1] = t.y;
        x[4 * v + 2] = t.z;
        x[4 * v + 3] = t.w;
      }
    } else if constexpr (D % 2 == 0) {
#pragma unroll
      for (int v = 0; v < D / 2; ++v) {
        const float2 t = __ldg(reinterpret_cast<const float2*>(p) + v);
        x[2 * v] = t.x;
        x[2 * v + 1] = t.y;
      }
    } else {
#pragma unroll
      for (int c = 0; c < D; ++c)
        x[c] = __ldg(p + c);
    }
  } else {  // d < D: the padding stays zero, so it adds exact zeros everywhere
    const float* p = points + i * d;
#pragma unroll
    for (int c = 0; c < D; ++c)
      if (c < d) x[c] = __ldg(p + c);
  }
}

/// Zeroes what the reduce and update stages accumulate into (done by block 0 of the assignment
/// kernel, which runs before them, instead of by separate memset launches).
template <typename LabelT>
__device__ void clearForNextStages(const AssignArgs<LabelT>& a) {
  for (std::size_t i = threadIdx.x; i < a.clear_words; i += blockDim.x)
    a.clear[i] = 0ull;
  for (std::size_t i = threadIdx.x; i < a.clear_totals_words; i += blockDim.x)
    a.clear_totals[i] = 0ull;
}

/// Warps per block of the templated kernel.
template <int THREADS>
inline constexpr int kWarps = THREADS / 32;

/// Whether the kernel prunes centroids with the warp's bounding box: worth it for small d,
/// where coherent data (images) give tight boxes; for large d boxes are loose and the bounds
/// would cost registers.
__host__ __device__ constexpr bool prunesWithBoxes(int D) {
  return D <= 16;
}

/// Bytes of dynamic shared memory per staged centroid: its row plus one candidate-list slot
/// per warp.
__host__ __device__ constexpr int sharedBytesPerCentroid(int D, int warps) {
  return centroidRow(D) * 4 + (prunesWithBoxes(D) ? warps * 2 : 0);
}

/// Adds a 32-bit value to a 64-bit sum held as (lo: unsigned, hi: signed) words in shared
/// memory, with native 32-bit atomics only (a 64-bit shared atomic add would be a CAS loop).
/// Each adder sees its own old low word, so it knows its own carry; the high word collects
/// carries and sign extensions. Integer arithmetic: the order of additions cannot matter.
__device__ __forceinline__ void atomicAddWide(unsigned* lo, int* hi, int v) {
  const unsigned u = static_cast<unsigned>(v);
  const unsigned old = atomicAdd(lo, u);
  const int delta = (v < 0 ? -1 : 0) + (old + u < old ? 1 : 0);
  if (delta != 0) atomicAdd(hi, delta);
}

__device__ __forceinline__ long long wideValue(unsigned lo, int hi) {
  return static_cast<long long>(
      (static_cast<unsigned long long>(static_cast<long long>(hi)) << 32) | lo);
}

__device__ __forceinline__ float warpMin(float v) {
  for (int offset = 16; offset > 0; offset >>= 1)
    v = fminf(v, __shfl_xor_sync(kFullWarp, v, offset));
  return v;
}
__device__ __forceinline__ float warpMax(float v) {
  for (int offset = 16; offset > 0; offset >>= 1)
    v = fmaxf(v, __shfl_xor_sync(kFullWarp, v, offset));
  return v;
}

/// ‖x − c‖² exactly as the CPU backend computes it (d ≤ D coordinates of c, global or shared;
/// x: D floats in registers, or a pointer to them).
template <int D, typename X>
__device__ __forceinline__ float exactDistance(const X& x, const float* c, int d) {
  float s = 0.0f;
#pragma unroll
  for (int t = 0; t < D; ++t) {
    if (t < d) {
      const float diff = exact::sub(x[t], c[t]);
      s = exact::add(s, exact::mul(diff, diff));
    }
  }
  return s;
}

/// Exact nearest centroid of x over all k centroids (global memory), ties to the lower index:
/// the same distances the CPU backend computes. Used when the fast comparison was too close
/// to call.
template <int D>
__device__ int exactNearest(const float (&x)[D], const float* __restrict__ centroids, int d, int k,
                            float& distance) {
  int best = 0;
  float best_dist = INFINITY;
  for (int j = 0; j < k; ++j) {
    const float s = exactDistance<D>(x, centroids + static_cast<std::size_t>(j) * d, d);
    if (s < best_dist) {
      best_dist = s;
      best = j;
    }
  }
  distance = best_dist;
  return best;
}

/// ‖x − c‖² exactly as the CPU backend computes it (exactDistance for rows of any length, d known
/// at run time; x and c global or shared).
__device__ inline float exactDistanceAt(const float* x, const float* c, int d) {
  float s = 0.0f;
  for (int t = 0; t < d; ++t) {
    const float diff = exact::sub(x[t], c[t]);
    s = exact::add(s, exact::mul(diff, diff));
  }
  return s;
}

/// exactNearest for rows of any length: the exact nearest of all k centroids, ties to the lower
/// index.
__device__ inline int exactNearestAt(const float* x, const float* __restrict__ centroids, int d,
                                     int k, float& distance) {
  int best = 0;
  float best_dist = INFINITY;
  for (int j = 0; j < k; ++j) {
    const float s = exactDistanceAt(x, centroids + static_cast<std::size_t>(j) * d, d);
    if (s < best_dist) {
      best_dist = s;
      best = j;
    }
  }
  distance = best_dist;
  return best;
}

/// exactNearest over the listed staged rows only (ascending indices, so the first of equal
/// distances is the lower index).
template <int D>
__device__ int exactNearestListed(const float (&x)[D], const float* rows,
                                  const unsigned short* list, int count, int d, float& distance) {
  int best = 0;
  float best_dist = INFINITY;
  for (int t = 0; t < count; ++t) {
    const int j = list[t];
    const float s = exactDistance<D>(x, rows + j * centroidRow(D), d);
    if (s < best_dist) {
      best_dist = s;
      best = j;
    }
  }
  distance = best_dist;
  return best;
}

/// The exact nearest of k centroids to one row, searched by the whole warp: lane l takes
/// centroids l, l + 32, …, `distanceTo(j)` giving the CPU's exact distance, then the lanes merge
/// (ties to the lower index). Every lane returns exactNearest's answer: the label (centroid 0
/// when none is below ∞) and its distance.
template <typename Distance>
__device__ __forceinline__ int warpExactNearest(int k, Distance distanceTo, float& distance) {
  const int lane = static_cast<int>(threadIdx.x) & 31;
  float best = INFINITY;
  int best_j = k;  // none below ∞ yet
  for (int j = lane; j < k; j += 32) {
    const float s = distanceTo(j);
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
  distance = best;
  return best_j == k ? 0 : best_j;
}

/// Block-wide totals of inertia and changed count, written to this block's slot.
template <int THREADS>
__device__ void writeBlockScalars(double inertia, unsigned long long changed, double* block_inertia,
                                  unsigned long long* block_changed) {
  const BlockScalars total = blockSumScalars<THREADS>(inertia, changed);
  if (threadIdx.x == 0) {
    block_inertia[blockIdx.x] = total.inertia;
    block_changed[blockIdx.x] = total.changed;
  }
}

/// The fast comparison ranks centroids by ‖c‖² − 2x·c in float. Its rounding error for one
/// centroid is below (D + 2)·u·(‖x‖² + 3‖c‖²) (u = 2^−24) and the exact form's below
/// 2(D + 1)·u·(‖x‖² + ‖c‖²); when the best and the runner-up differ by less than the sum of
/// these for both (≤ 7(D + 2)·u·(‖x‖² + ‖c₁‖² + ‖c₂‖²)), the point is re-ranked exactly, so the
/// label is the one the CPU backend computes. Where squares fall among float's subnormals the
/// rounding is absolute, not relative: 1e-37 covers it (and settles nothing in normal data).
/// (The factor holds for any d with d·u < 1/8; tieBoundFor takes d at run time.)
__host__ __device__ constexpr float tieBoundFactor(int d) {
  return 8.0f * (d + 4) * 5.9604645e-8f;
}
template <int D>
__device__ __forceinline__ float tieBound(float x_norm, float best_norm, float second_norm) {
  constexpr float kErr = tieBoundFactor(D);
  return kErr * (x_norm + best_norm + second_norm) + 1e-37f;
}
__device__ __forceinline__ float tieBoundFor(int d, float x_norm, float best_norm,
                                             float second_norm) {
  return tieBoundFactor(d) * (x_norm + best_norm + second_norm) + 1e-37f;
}

}  // namespace kms::cuda
