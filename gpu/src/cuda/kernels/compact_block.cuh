// What every compact assignment block (compactAssignKernel, tileAssignKernel) shares: its set-up
// (the centroids, their geometry and the sums' accumulators in shared memory), the moves of exact
// sums between clusters, and its end — the block's results into its slots and its moved sums into
// the kept totals. And blockSumWork, the one-barrier sum of an assignment's scalars that the block
// results and the small update share.
#pragma once

#include <cstdint>

#include "common/constants.h"
#include "cuda/kernels/assign_common.cuh"
#include "cuda/kernels/compact_args.cuh"
#include "cuda/kernels/iteration_common.cuh"

namespace kms::cuda {

/// An assignment's scalars — a thread's, a block's or an iteration's: inertia, points changed,
/// rows searched over all k, distances computed.
struct WorkTotals {
  double inertia = 0.0;
  unsigned long long changed = 0, searched = 0, evaluated = 0;
};

/// Sums the four over `width` lanes (a power of two ≤ 32) by a butterfly: every lane gets the
/// sum, formed in a fixed order.
__device__ __forceinline__ void warpSumWork(WorkTotals& w, int width = 32) {
  for (int offset = width / 2; offset > 0; offset >>= 1) {
    w.inertia += __shfl_xor_sync(kFullWarp, w.inertia, offset);
    w.changed += __shfl_xor_sync(kFullWarp, w.changed, offset);
    w.searched += __shfl_xor_sync(kFullWarp, w.searched, offset);
    w.evaluated += __shfl_xor_sync(kFullWarp, w.evaluated, offset);
  }
}

/// The block's sum of every thread's WorkTotals (kCompactThreads threads, all of which call it):
/// a butterfly per warp, then warp 0 over the warps' sums — a fixed order, so the inertia is the
/// same on every run — with one barrier. The sum is valid in warp 0. (A cub block reduction of
/// two of them and shared atomics for the others, with three barriers, had been a fifth of the
/// small cases' assignment time.)
__device__ __forceinline__ WorkTotals blockSumWork(WorkTotals w) {
  constexpr int kWarps = kCompactThreads / 32;
  __shared__ double warp_inertia[kWarps];
  __shared__ unsigned long long warp_counts[3][kWarps];  // rows × k of a block can pass 2^32
  const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
  warpSumWork(w);
  if (lane == 0) {
    warp_inertia[warp] = w.inertia;
    warp_counts[0][warp] = w.changed;
    warp_counts[1][warp] = w.searched;
    warp_counts[2][warp] = w.evaluated;
  }
  __syncthreads();
  WorkTotals total;
  if (warp == 0 && lane < kWarps) {
    total.inertia = warp_inertia[lane];
    total.changed = warp_counts[0][lane];
    total.searched = warp_counts[1][lane];
    total.evaluated = warp_counts[2][lane];
  }
  if (warp == 0) warpSumWork(total, kWarps);
  return total;
}

/// Adds a 64-bit value to a sum held as (lo: unsigned, hi: signed) 32-bit words in shared
/// memory (see atomicAddWide): the carry out of the low word goes to the high word.
__device__ __forceinline__ void atomicAddWide64(unsigned* lo, int* hi, long long v) {
  const unsigned u = static_cast<unsigned>(v);
  const int h = static_cast<int>(v >> 32);
  const unsigned old = atomicAdd(lo, u);
  const int delta = h + (old + u < old ? 1 : 0);
  if (delta != 0) atomicAdd(hi, delta);
}

/// Per-block state of the row pass.
struct CompactBlock {
  const float* rows;            // staged centroids
  const float* half_gap;        // computeGeometry's, staged
  const float* projection;      // ascending
  const unsigned short* order;  // centroid at each position of `projection`
  float top_norm;               // largest ‖c‖²
  float drift_down;             // the run's drift D(t) rounded down (stored with new bounds)
  float drift_up;               // and rounded up (taken off stored bounds)
  float axis[kCompactMaxD];     // the unit axis of `projection`
  const float* scale;           // fixed-point scales
  unsigned* acc_lo;
  int* acc_hi;
};

/// The set-up every compact assignment block (compactAssignKernel, tileAssignKernel) starts
/// with: its dynamic shared memory (compactSharedBytes: the k staged rows, the k·(d + 1) sums'
/// two words, zeroed, then half gaps, projections and their order, staged from a.geometry and
/// a.order), the d fixed-point scales into `scale` (D floats, zero past d), the run's drift, and
/// the centroids staged. Ends with __syncthreads.
template <int D, typename LabelT>
__device__ __forceinline__ CompactBlock setUpCompactBlock(const CompactArgs<LabelT>& a, int d,
                                                          unsigned char* shared_raw, float* scale) {
  const int k = a.k;
  const int kd1 = k * (d + 1);
  float* rows = reinterpret_cast<float*>(shared_raw);  // k × R
  unsigned* acc_lo =
      reinterpret_cast<unsigned*>(rows + static_cast<std::size_t>(k) * centroidRow(D));
  int* acc_hi = reinterpret_cast<int*>(acc_lo + kd1);
  float* half_gap = reinterpret_cast<float*>(acc_hi + kd1);  // k
  float* projection = half_gap + k;                          // k
  auto* order = reinterpret_cast<unsigned short*>(projection + k);
  if (threadIdx.x < D)
    scale[threadIdx.x] = static_cast<int>(threadIdx.x) < d ? a.coord_scale[threadIdx.x] : 0.0f;
  for (int t = threadIdx.x; t < kd1; t += kCompactThreads) {
    acc_lo[t] = 0u;
    acc_hi[t] = 0;
  }
  for (int t = threadIdx.x; t < k; t += kCompactThreads) {
    half_gap[t] = a.geometry[t];
    projection[t] = a.geometry[k + t];
    order[t] = a.order[t];
  }
  const double drift = a.update.counters->drift;
  CompactBlock block{rows,
                     half_gap,
                     projection,
                     order,
                     a.geometry[2 * k],
                     __double2float_rd(drift),
                     __double2float_ru(drift),
                     {},
                     scale,
                     acc_lo,
                     acc_hi};
#pragma unroll
  for (int c = 0; c < kCompactMaxD; ++c)
    block.axis[c] = a.axis[c];
  stageCentroids<D>(rows, a.centroids_in, d, 0, k);  // ends with __syncthreads
  return block;
}

/// The end of a compact assignment block, after writeBlockResults' barrier: its moved sums
/// (k·(d + 1), the non-zero ones) into the kept totals.
template <typename LabelT>
__device__ __forceinline__ void addBlockSums(const CompactArgs<LabelT>& a, const CompactBlock& b,
                                             int d) {
  for (int t = threadIdx.x; t < a.k * (d + 1); t += kCompactThreads) {
    const long long v = wideValue(b.acc_lo[t], b.acc_hi[t]);
    if (v != 0) atomicAddInt64(a.totals + t, v);
  }
}

/// Moves a row's exact sums m·q(x) and its count m from cluster `from` to `to` in the block's
/// shared accumulators (on the first iteration, `first`: only adds them to `to`).
template <int D>
__device__ __forceinline__ void moveRowSums(const CompactBlock& b, int d, const float (&x)[D],
                                            std::uint32_t count, int from, int to, bool first) {
  const std::size_t t = static_cast<std::size_t>(to) * (d + 1);
  const std::size_t f = static_cast<std::size_t>(from) * (d + 1);
  const long long m = count;
#pragma unroll
  for (int c = 0; c < D; ++c) {
    if (c < d) {
      const long long q = m * exact::quantize(x[c], b.scale[c]);
      atomicAddWide64(b.acc_lo + t + c, b.acc_hi + t + c, q);
      if (!first) atomicAddWide64(b.acc_lo + f + c, b.acc_hi + f + c, -q);
    }
  }
  atomicAddWide64(b.acc_lo + t + d, b.acc_hi + t + d, m);
  if (!first) atomicAddWide64(b.acc_lo + f + d, b.acc_hi + f + d, -m);
}

/// moveRowSums by the lanes of a warp that all hold the row (warpSearchRow): lane c < d moves
/// coordinate c, lane d the count — the same words and values, d + 1 lanes at once instead of
/// one lane's 2·(d + 1) shared atomics in a row. Lanes past d do nothing.
template <int D>
__device__ __forceinline__ void moveRowSumsByLanes(const CompactBlock& b, int d,
                                                   const float (&x)[D], std::uint32_t count,
                                                   int from, int to, bool first, int lane) {
  if (lane > d) return;
  const std::size_t t = static_cast<std::size_t>(to) * (d + 1) + lane;
  const std::size_t f = static_cast<std::size_t>(from) * (d + 1) + lane;
  float mine = 0.0f;  // x[lane], without indexing the register array at run time
#pragma unroll
  for (int c = 0; c < D; ++c)
    if (c == lane) mine = x[c];
  const long long m = count;
  const long long q = lane < d ? m * exact::quantize(mine, b.scale[lane]) : m;
  atomicAddWide64(b.acc_lo + t, b.acc_hi + t, q);
  if (!first) atomicAddWide64(b.acc_lo + f, b.acc_hi + f, -q);
}

/// The end of an assignment block (every thread calls it): the block's inertia, changed count,
/// rows searched (counted by lane 0s) and distances computed (every thread's) into its slots of
/// a.block_inertia, block_changed and block_work (two per block). Its one barrier (blockSumWork)
/// also completes the block's shared accumulators for addBlockSums.
template <typename LabelT>
__device__ __forceinline__ void writeBlockResults(const CompactArgs<LabelT>& a,
                                                  const WorkTotals& mine) {
  const WorkTotals total = blockSumWork(mine);
  if (threadIdx.x == 0) {
    a.block_inertia[blockIdx.x] = total.inertia;
    a.block_changed[blockIdx.x] = total.changed;
    a.block_work[2 * blockIdx.x] = total.searched;
    a.block_work[2 * blockIdx.x + 1] = total.evaluated;
  }
}

}  // namespace kms::cuda
