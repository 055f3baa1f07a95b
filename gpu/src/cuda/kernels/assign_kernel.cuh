// The assignment pass for d ≤ 16 and large data sets: every point finds its nearest centroid,
// and each block accumulates exact fixed-point sums of its points per cluster. One pass over
// the data per iteration. (Large d and small data sets use assign_tiled_kernel.cuh; anything
// else assign_generic_kernel.cuh.)
//
// Centroids are staged in shared memory as rows
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

#include "cuda/kernels/assign_common.cuh"

namespace kms::cuda {

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
      // The bound is finite while the distances overflow (data near float's range): the CPU's
      // answer is then its first centroid at ∞ or below — search exactly.
      if (!(dist < INFINITY)) label[p] = exactNearest<D>(x, a.centroids, d, k, dist);
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

}  // namespace kms::cuda
