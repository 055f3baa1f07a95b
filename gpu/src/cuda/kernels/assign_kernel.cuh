// The assignment pass: every point finds its nearest centroid, and each block accumulates exact
// fixed-point sums of its points per cluster. One pass over the data per iteration.
//
// Templated kernel (d ≤ 64): centroids are staged in shared memory as rows
// [c_0 .. c_{D−1}, ‖c‖², 0 ..] and each thread holds P points in registers as the augmented
// vector [−2x_0 .. −2x_{D−1}, 1, 0 ..], so ‖c‖² − 2x·c is one FMA chain over the row and the
// dimension loop is fully unrolled. The argmin compares ‖c‖² − 2x·c (‖x‖² is common to all
// centroids); the winner's exact distance ‖x − c‖² is then recomputed term by term for the inertia.
// No N × k distance matrix exists anywhere.
//
// Sums use integers (see common/exact_math.h): each coordinate becomes q = rint(w·x·2^e), a warp
// merges lanes that share a label with one integer warp reduction, and the leader adds the
// result to the block's shared accumulators with an integer atomic. Integer addition is
// associative, so the sums are bit-identical whatever the schedule. Blocks write their sums to
// their own row; a second kernel reduces the rows.
#pragma once

#include <cub/block/block_reduce.cuh>

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
  for (int idx = threadIdx.x; idx < count * R; idx += blockDim.x) {
    const int j = idx / R;
    const int c = idx - j * R;
    rows[idx] = (c < d && c < D) ? centroids[static_cast<std::size_t>(first + j) * d + c] : 0.0f;
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

/// Adds one point per lane to the per-cluster sums (rows of d + 1: coordinates, then weight).
/// Lanes that share a label are merged with warp reductions first (two rounds: coherent data
/// such as images have one or two labels per warp); the remaining lanes add directly.
template <int D>
__device__ __forceinline__ void accumulatePoint(bool valid, int label, const float (&x)[D], float w,
                                                bool weighted, int d, const float* scale,
                                                float weight_scale, unsigned* acc_lo, int* acc_hi) {
  int q[D];  // padded coordinates are zero and quantise to zero
#pragma unroll
  for (int c = 0; c < D; ++c)
    q[c] = valid ? exact::quantize(weighted ? exact::mul(x[c], w) : x[c], scale[c]) : 0;
  const int qw = valid ? (weighted ? exact::quantize(w, weight_scale) : 1) : 0;
  const int lane = threadIdx.x & 31;
  const int stride = d + 1;
  unsigned remaining = __ballot_sync(kFullWarp, valid);
#pragma unroll 1
  for (int round = 0; round < 2 && remaining != 0u; ++round) {
    const int leader = __ffs(remaining) - 1;
    const int group_label = __shfl_sync(kFullWarp, label, leader);
    const bool mine = ((remaining >> lane) & 1u) != 0u && label == group_label;
    const unsigned group = __ballot_sync(kFullWarp, mine);
    const std::size_t row = static_cast<std::size_t>(group_label) * stride;
#pragma unroll
    for (int c = 0; c < D; ++c) {
      if (c < d) {
        const int s = warpSum(mine ? q[c] : 0);
        if (lane == leader) atomicAddWide(acc_lo + row + c, acc_hi + row + c, s);
      }
    }
    const int sw = warpSum(mine ? qw : 0);
    if (lane == leader) atomicAddWide(acc_lo + row + d, acc_hi + row + d, sw);
    remaining &= ~group;
  }
  if ((remaining >> lane) & 1u) {
    const std::size_t row = static_cast<std::size_t>(label) * stride;
#pragma unroll
    for (int c = 0; c < D; ++c)
      if (c < d) atomicAddWide(acc_lo + row + c, acc_hi + row + c, q[c]);
    atomicAddWide(acc_lo + row + d, acc_hi + row + d, qw);
  }
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

/// The staged centroids that can be nearest to some point of the box [lo, hi]: every centroid
/// whose smallest distance to the box is at most the smallest largest-distance of any centroid
/// (Kanungo et al.'s filtering, per warp). The bounds are computed in float; the relative
/// slack keeps the test conservative, so the true nearest centroid is never dropped. Writes
/// ascending indices into `list` and returns their count. Warp-collective.
template <int D>
__device__ int boxCandidates(const float* rows, int count, const float (&lo)[D],
                             const float (&hi)[D], unsigned short* list) {
  constexpr int R = centroidRow(D);
  const int lane = threadIdx.x & 31;
  __syncwarp();  // every lane is done reading the list of the warp's previous tile
  float threshold = INFINITY;
  for (int j = lane; j < count; j += 32) {
    const float* c = rows + j * R;
    float far = 0.0f;
#pragma unroll
    for (int k = 0; k < D; ++k) {
      const float a = c[k] - lo[k], b = c[k] - hi[k];
      far += fmaxf(a * a, b * b);
    }
    threshold = fminf(threshold, far);
  }
  const float limit = warpMin(threshold) * (1.0f + 1e-4f) + 1e-30f;
  int total = 0;
  for (int first = 0; first < count; first += 32) {
    const int j = first + lane;
    bool keep = false;
    if (j < count) {
      const float* c = rows + j * R;
      float near = 0.0f;
#pragma unroll
      for (int k = 0; k < D; ++k) {
        const float g = fmaxf(0.0f, fmaxf(lo[k] - c[k], c[k] - hi[k]));
        near += g * g;
      }
      keep = near <= limit;
    }
    const unsigned mask = __ballot_sync(kFullWarp, keep);
    if (keep) list[total + __popc(mask & ((1u << lane) - 1u))] = static_cast<unsigned short>(j);
    total += __popc(mask);
  }
  __syncwarp();
  return total;
}

/// ‖x − c‖² exactly as the CPU backend computes it (d ≤ D coordinates of c, global or shared).
template <int D>
__device__ __forceinline__ float exactDistance(const float (&x)[D], const float* c, int d) {
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
/// label is the one the CPU backend computes.
template <int D>
__device__ __forceinline__ float tieBound(float x_norm, float best_norm, float second_norm) {
  constexpr float kErr = 8.0f * (D + 4) * 5.9604645e-8f;
  return kErr * (x_norm + best_norm + second_norm);
}

/// Register budget: blocks per multiprocessor the compiler must make room for (small d is
/// latency-bound and needs warps in flight).
__host__ __device__ constexpr int minBlocksPerSm(int D) {
  return D == 1 ? 3 : (D <= 4 ? 2 : 1);
}

/// Whether a warp loads its next tile while it works on the current one. For small d a tile
/// has little arithmetic per byte, so without this the warps mostly wait on memory.
__host__ __device__ constexpr bool prefetchesTiles(int D) {
  return D <= 4;
}

/// One warp tile's inputs as this lane holds them: P points (centred; zero when invalid or
/// padded) and their previous labels.
template <int D, int P, typename LabelT>
struct WarpTile {
  float x[P][D];
  LabelT old[P];
};

template <int D, int P, typename LabelT>
__device__ __forceinline__ void loadWarpTile(const AssignArgs<LabelT>& a, std::size_t warp_base,
                                             WarpTile<D, P, LabelT>& t) {
  const int lane = threadIdx.x & 31;
  const float* points = a.points + warp_base * a.d;  // 64-bit once; 32-bit offsets below
  const LabelT* old = a.labels_in ? a.labels_in + warp_base : nullptr;
  const unsigned left =
      a.n > warp_base ? static_cast<unsigned>(min(a.n - warp_base, std::size_t(32 * P))) : 0u;
#pragma unroll
  for (int p = 0; p < P; ++p) {
    const unsigned local = p * 32 + lane;
    const bool valid = local < left;
    loadPoint<D>(points, local, a.d, valid, t.x[p]);
    t.old[p] = (valid && old) ? old[local] : LabelT(0);
  }
}

template <int D, typename LabelT, int THREADS>
__global__ void __launch_bounds__(THREADS, minBlocksPerSm(D))
    assignKernel(AssignArgs<LabelT> a, int chunk, int copies) {
  constexpr int R = centroidRow(D);
  constexpr int P = pointsPerThread(D);
  constexpr int S = R >= 8 ? 2 : 1;  // split accumulators: two FMA chains per point for long rows
  constexpr int WARPS = kWarps<THREADS>;
  constexpr bool kPrune = prunesWithBoxes(D);
  constexpr bool kFused = fusesSums(D);
  constexpr bool kPrefetch = prefetchesTiles(D);
  extern __shared__ __align__(16) unsigned char shared_raw[];
  const int d = a.d;
  const int k = a.k;
  const int kd1 = k * (d + 1);
  float* rows = reinterpret_cast<float*>(shared_raw);  // chunk × R
  unsigned short* lists =
      reinterpret_cast<unsigned short*>(rows + static_cast<std::size_t>(chunk) * R);
  const std::size_t list_bytes = kPrune ? static_cast<std::size_t>(WARPS) * chunk * 2 : 0;
  float* scale = reinterpret_cast<float*>(
      shared_raw + ((static_cast<std::size_t>(chunk) * R * 4 + list_bytes + 15) / 16) * 16);
  unsigned* acc_lo = reinterpret_cast<unsigned*>(scale + ((D + 3) / 4) * 4);  // copies × kd1
  int* acc_hi = reinterpret_cast<int*>(acc_lo + static_cast<std::size_t>(copies) * kd1);

  const int warp = threadIdx.x >> 5;
  const int lane = threadIdx.x & 31;
  unsigned short* my_list = lists + static_cast<std::size_t>(warp) * chunk;
  unsigned* my_lo = acc_lo + static_cast<std::size_t>(warp % copies) * kd1;
  int* my_hi = acc_hi + static_cast<std::size_t>(warp % copies) * kd1;
  const bool weighted = a.weights != nullptr;
  const bool first_iteration = a.labels_in == nullptr;

  if (blockIdx.x == 0) clearForNextStages(a);
  for (int c = threadIdx.x; c < D; c += THREADS)
    scale[c] = c < d ? a.coord_scale[c] : 0.0f;
  if constexpr (kFused) {
    for (int c = threadIdx.x; c < copies * kd1; c += THREADS) {
      acc_lo[c] = 0u;
      acc_hi[c] = 0;
    }
  }
  const bool single_chunk = chunk >= k;
  if (single_chunk) stageCentroids<D>(rows, a.centroids, d, 0, k);  // syncs
  __syncthreads();

  double inertia = 0.0;
  unsigned long long changed = 0;
  const std::size_t tile = static_cast<std::size_t>(THREADS) * P;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * tile;
  // Each warp owns 32·P consecutive points (tight boxes on images); loads stay coalesced.
  const std::size_t warp_offset = static_cast<std::size_t>(warp) * 32 * P;
  WarpTile<D, P, LabelT> cur;
  if (kPrefetch && blockIdx.x * tile < a.n) loadWarpTile(a, blockIdx.x * tile + warp_offset, cur);
  for (std::size_t base = blockIdx.x * tile; base < a.n; base += stride) {
    const std::size_t warp_base = base + warp_offset;
    WarpTile<D, P, LabelT> next;
    if constexpr (kPrefetch) {
      if (base + stride < a.n) loadWarpTile(a, base + stride + warp_offset, next);
    } else {
      loadWarpTile(a, warp_base, cur);
    }
    // Points left from this warp's first one, clamped: validity tests stay 32-bit.
    const unsigned left =
        a.n > warp_base ? static_cast<unsigned>(min(a.n - warp_base, std::size_t(32 * P))) : 0u;
    bool valid[P];
    float xa[P][R];
#pragma unroll
    for (int p = 0; p < P; ++p) {
      valid[p] = static_cast<unsigned>(p * 32 + lane) < left;
#pragma unroll
      for (int c = 0; c < R; ++c)
        xa[p][c] = c < D ? -2.0f * cur.x[p][c] : (c == D ? 1.0f : 0.0f);
    }
    float lo[kPrune ? D : 1], hi[kPrune ? D : 1];
    if constexpr (kPrune) {
#pragma unroll
      for (int c = 0; c < D; ++c) {
        lo[c] = INFINITY;
        hi[c] = -INFINITY;
#pragma unroll
        for (int p = 0; p < P; ++p) {
          if (valid[p]) {
            lo[c] = fminf(lo[c], -0.5f * xa[p][c]);
            hi[c] = fmaxf(hi[c], -0.5f * xa[p][c]);
          }
        }
        lo[c] = warpMin(lo[c]);
        hi[c] = warpMax(hi[c]);
      }
    }
    float best[P], second[P];
    int label[P];
#pragma unroll
    for (int p = 0; p < P; ++p) {
      best[p] = INFINITY;
      second[p] = INFINITY;
      label[p] = 0;
    }
    int candidates = 0;
    for (int first = 0; first < k; first += chunk) {
      const int count = min(chunk, k - first);
      if (!single_chunk) {
        __syncthreads();  // everyone is done with the previous chunk
        stageCentroids<D>(rows, a.centroids, d, first, count);
      }
      int listed = count;
      if constexpr (kPrune) listed = boxCandidates<D>(rows, count, lo, hi, my_list);
      candidates += listed;
#pragma unroll 2
      for (int t = 0; t < listed; ++t) {
        int j = t;
        if constexpr (kPrune) j = my_list[t];
        const float* row = rows + j * R;
        float part[P][S];
#pragma unroll
        for (int p = 0; p < P; ++p)
#pragma unroll
          for (int s = 0; s < S; ++s)
            part[p][s] = 0.0f;
        if constexpr (R == 2) {
          const float2 cv = *reinterpret_cast<const float2*>(row);
#pragma unroll
          for (int p = 0; p < P; ++p)
            part[p][0] = fmaf(xa[p][1], cv.y, xa[p][0] * cv.x);
        } else {
#pragma unroll
          for (int v = 0; v < R / 4; ++v) {
            const float4 cv = reinterpret_cast<const float4*>(row)[v];
#pragma unroll
            for (int p = 0; p < P; ++p) {
              float& s = part[p][v % S];
              s = fmaf(xa[p][4 * v], cv.x, s);
              s = fmaf(xa[p][4 * v + 1], cv.y, s);
              s = fmaf(xa[p][4 * v + 2], cv.z, s);
              s = fmaf(xa[p][4 * v + 3], cv.w, s);
            }
          }
        }
#pragma unroll
        for (int p = 0; p < P; ++p) {
          const float dist = S == 2 ? part[p][0] + part[p][S - 1] : part[p][0];
          second[p] = fminf(second[p], fmaxf(dist, best[p]));
          if (dist < best[p]) {  // strict: among equal values the lower index stays
            best[p] = dist;
            label[p] = first + j;
          }
        }
      }
    }

    // Labels (near ties re-ranked exactly), exact distances for the inertia, changed count.
    // Per-tile base pointers keep the per-point index arithmetic in 32 bits.
    LabelT* labels_out = a.labels_out + warp_base;
    const float* weights = weighted ? a.weights + warp_base : nullptr;
    float w[P];
    float tile_inertia = 0.0f;  // at most 4 terms: float is exact enough, one double add per tile
#pragma unroll
    for (int p = 0; p < P; ++p) {
      w[p] = 1.0f;
      if (!valid[p]) continue;
      const unsigned local = p * 32 + lane;
      if (weighted) w[p] = __ldg(weights + local);
      float x[D];
#pragma unroll
      for (int c = 0; c < D; ++c)
        x[c] = -0.5f * xa[p][c];  // exact: undoes the ×(−2)
      float dist = 0.0f, x_norm = 0.0f, c_norm = 0.0f;
      if (single_chunk) {
        // Staged rows are zero-padded like x, so padding adds exact zeros: no guards needed.
        const float* cb = rows + label[p] * R;
#pragma unroll
        for (int c = 0; c < D; ++c) {
          const float cv = cb[c];
          const float t = exact::sub(x[c], cv);
          dist = exact::add(dist, exact::mul(t, t));
          x_norm = fmaf(x[c], x[c], x_norm);
        }
        c_norm = cb[D];
      } else {
        const float* cb = a.centroids + static_cast<std::size_t>(label[p]) * d;
#pragma unroll
        for (int c = 0; c < D; ++c) {
          if (c < d) {
            const float cv = __ldg(cb + c);
            const float t = exact::sub(x[c], cv);
            dist = exact::add(dist, exact::mul(t, t));
            x_norm = fmaf(x[c], x[c], x_norm);
            c_norm = fmaf(cv, cv, c_norm);
          }
        }
      }
      // One candidate (second = ∞) is provably nearest. Otherwise the runner-up's squared norm
      // follows from the triangle inequality, ‖c₂‖ ≤ ‖x‖ + ‖x − c₂‖ with ‖x − c₂‖² ≈ second +
      // ‖x‖², and a gap under the rounding bound is settled with exact distances.
      if (second[p] < INFINITY) {
        const float reach = sqrtf(x_norm) + sqrtf(fmaxf(0.0f, second[p] + x_norm));
        if (!(second[p] - best[p] > tieBound<D>(x_norm, c_norm, 1.01f * reach * reach))) {
          // The exact winner is among the box candidates (the filter never drops it).
          if (kPrune && single_chunk)
            label[p] = exactNearestListed<D>(x, rows, my_list, candidates, d, dist);
          else
            label[p] = exactNearest<D>(x, a.centroids, d, k, dist);
        }
      }
      tile_inertia += weighted ? exact::mul(dist, w[p]) : dist;
      const LabelT new_label = static_cast<LabelT>(label[p]);
      if (first_iteration || cur.old[p] != new_label) ++changed;
      labels_out[local] = new_label;
    }
    inertia += tile_inertia;

    if constexpr (kFused) {
      // Sums: when the whole warp tile has one label (common on images), each lane adds up its
      // points and one warp reduction per coordinate serves the tile; otherwise point by point.
      if (__any_sync(kFullWarp, valid[0])) {
        const int tile_label = __shfl_sync(kFullWarp, label[0], 0);
        bool same = true;
#pragma unroll
        for (int p = 0; p < P; ++p)
          same = same && (!valid[p] || label[p] == tile_label);
        if (__all_sync(kFullWarp, same)) {
          const std::size_t row = static_cast<std::size_t>(tile_label) * (d + 1);
#pragma unroll
          for (int c = 0; c < D; ++c) {
            if (c < d) {
              int q = 0;  // ≤ P·2^23 per lane, ≤ 2^30 per warp
#pragma unroll
              for (int p = 0; p < P; ++p)
                if (valid[p]) {
                  const float xv = -0.5f * xa[p][c];
                  q += exact::quantize(weighted ? exact::mul(xv, w[p]) : xv, scale[c]);
                }
              const int s = warpSum(q);
              if (lane == 0) atomicAddWide(my_lo + row + c, my_hi + row + c, s);
            }
          }
          int qw = 0;
#pragma unroll
          for (int p = 0; p < P; ++p)
            if (valid[p]) qw += weighted ? exact::quantize(w[p], a.weight_scale) : 1;
          const int sw = warpSum(qw);
          if (lane == 0) atomicAddWide(my_lo + row + d, my_hi + row + d, sw);
        } else {
#pragma unroll
          for (int p = 0; p < P; ++p) {
            float x[D];
#pragma unroll
            for (int c = 0; c < D; ++c)
              x[c] = -0.5f * xa[p][c];
            accumulatePoint<D>(valid[p], label[p], x, w[p], weighted, d, scale, a.weight_scale,
                               my_lo, my_hi);
          }
        }
      }
    }
    if constexpr (kPrefetch) cur = next;
  }

  writeBlockScalars<THREADS>(inertia, changed, a.block_inertia, a.block_changed);
  if constexpr (kFused) {
    __syncthreads();  // all atomics into the accumulators are done
    long long* out = a.sums + static_cast<std::size_t>(blockIdx.x) * kd1;
    for (int c = threadIdx.x; c < kd1; c += THREADS) {
      long long total = 0;
      for (int copy = 0; copy < copies; ++copy)
        total += wideValue(acc_lo[static_cast<std::size_t>(copy) * kd1 + c],
                           acc_hi[static_cast<std::size_t>(copy) * kd1 + c]);
      out[c] = total;
    }
  }
}

/// The cluster sums for large d, in a second pass over the points (labels just written).
/// A warp takes 32 points at a time: it first loads all of them (lane l holds coordinates
/// l, l + 32, … of every point, so each row load is coalesced and all loads are in flight
/// together), then walks them one by one, adding each point to its cluster's row with native
/// 32-bit shared atomics on distinct addresses. Integer sums: order-free, exact.
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
    const float my_weight = (lane < count && weighted) ? a.weights[mine] : 1.0f;
    float v[32][V];
#pragma unroll
    for (int t = 0; t < 32; ++t)
#pragma unroll
      for (int u = 0; u < V; ++u) {
        const int c = lane + 32 * u;
        v[t][u] = (t < count && c < d) ? __ldg(a.points + (base + t) * d + c) : 0.0f;
      }
#pragma unroll
    for (int t = 0; t < 32; ++t) {
      if (t >= count) break;
      const int label = __shfl_sync(kFullWarp, my_label, t);
      const float w = __shfl_sync(kFullWarp, my_weight, t);
      unsigned* lo = acc_lo + static_cast<std::size_t>(label) * (d + 1);
      int* hi = acc_hi + static_cast<std::size_t>(label) * (d + 1);
#pragma unroll
      for (int u = 0; u < V; ++u) {
        const int c = lane + 32 * u;
        if (c < d)
          atomicAddWide(lo + c, hi + c,
                        exact::quantize(weighted ? exact::mul(v[t][u], w) : v[t][u], scale[c]));
      }
      if (lane == 0)
        atomicAddWide(lo + d, hi + d, weighted ? exact::quantize(w, a.weight_scale) : 1);
    }
  }
  __syncthreads();
  long long* out = a.sums + static_cast<std::size_t>(blockIdx.x) * kd1;
  for (int c = threadIdx.x; c < kd1; c += THREADS)
    out[c] = wideValue(acc_lo[c], acc_hi[c]);
}

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
    if (valid) {
      const float* x = a.points + i * d;
      float best = INFINITY;
      for (int j = 0; j < a.k; ++j) {
        const float dist =
            exact::squaredDistance(x, a.centroids + static_cast<std::size_t>(j) * d, d);
        if (dist < best) {
          best = dist;
          label = j;
        }
      }
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
