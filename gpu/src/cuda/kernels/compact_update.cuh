// The compact kernels' update (after the assignment of compact_kernel.cuh or tile_kernel.cuh):
// the blocks' inertia and counts, the means from the kept totals, empty clusters, the largest
// shift and the drift it grows, convergence, the report and the new centroids' geometry for the
// next assignment — one block (compactUpdateKernel; compactSmallUpdateKernel for k ≤ 32) or
// ⌈k/8⌉ blocks for 64 ≤ k ≤ 256 (compactSpreadUpdateKernel); and a shard's half of the reduction.
#pragma once

#include <cub/block/block_reduce.cuh>

#include <cstdint>

#include "cuda/kernels/compact_args.cuh"
#include "cuda/kernels/compact_geometry.cuh"
#include "cuda/kernels/iteration_common.cuh"
#include "cuda/kernels/tile_shape.cuh"

namespace kms::cuda {

/// Thread 0: the tile kernel's inertia (tile_kernel.cuh) of the iteration, and the state zeroed
/// for the next one.
template <typename LabelT>
__device__ __forceinline__ double takeTileInertia(const CompactArgs<LabelT>& a) {
  TileIteration* s = a.tile_iteration;
  const double inertia = tileInertiaTotal(*s, a.inertia_exp);
  *s = TileIteration{};
  return inertia;
}

/// What the update block reduces: the assignment blocks' inertia and changed counts, and the
/// clusters' largest shift and number of empty ones.
struct UpdateTotals {
  double inertia;
  unsigned long long changed;
  float shift;
  int empty;
  unsigned long long searched, evaluated;
  float drift_shift;  ///< largest shiftBound: what the drift grows by
};

struct CombineTotals {
  __device__ __forceinline__ UpdateTotals operator()(const UpdateTotals& x,
                                                     const UpdateTotals& y) const {
    return {x.inertia + y.inertia,
            x.changed + y.changed,
            fmaxf(x.shift, y.shift),
            x.empty + y.empty,
            x.searched + y.searched,
            x.evaluated + y.evaluated,
            fmaxf(x.drift_shift, y.drift_shift)};
  }
};

/// This thread's share of the assignment blocks' inertia and counts (blocks threadIdx.x,
/// + kCompactThreads, …, in that fixed order), and on thread 0 the tile kernel's inertia.
template <typename LabelT>
__device__ __forceinline__ UpdateTotals assignmentPartials(const CompactArgs<LabelT>& a) {
  UpdateTotals mine{0.0, 0ull, 0.0f, 0, 0ull, 0ull, 0.0f};
  for (int b = threadIdx.x; b < a.blocks; b += kCompactThreads) {
    mine.inertia += a.block_inertia[b];
    mine.changed += a.block_changed[b];
    mine.searched += a.block_work[2 * b];
    mine.evaluated += a.block_work[2 * b + 1];
  }
  if (a.tile_iteration && threadIdx.x == 0) mine.inertia += takeTileInertia(a);
  return mine;
}

/// The update (one block, after the assignment kernel): totals → new centroids, empty flags,
/// the largest shift (and the drift it grows), convergence, the report, and the new centroids'
/// geometry for the next assignment. Every load is issued first, so they overlap instead of
/// queueing behind barriers; one block reduction (a fixed tree) does the rest. For k ≤ 32
/// (smallUpdate) and 64 ≤ k ≤ 256 (spreadsGeometry) the kernels below do the same faster.
template <int D, typename LabelT>
__global__ void __launch_bounds__(kCompactThreads) compactUpdateKernel(CompactArgs<LabelT> a) {
  constexpr int J = compactMaxK(D) / kCompactThreads;  // clusters per thread at most
  const int d = a.d, k = a.k;
  // Thread 0's run counters load now, not after the reduction, where every thread would wait at
  // the barrier for the round trip.
  const int iteration = threadIdx.x == 0 ? a.update.counters->iteration + 1 : 0;
  const double drift = threadIdx.x == 0 ? a.update.counters->drift : 0.0;
  UpdateTotals mine{0.0, 0ull, 0.0f, 0, 0ull, 0ull, 0.0f};
  if (!a.scalars_reduced) {
    mine = assignmentPartials(a);
  } else if (threadIdx.x == 0) {  // a shard: every GPU's totals, summed by the all-reduce
    mine.inertia = a.scalars->inertia;
    mine.changed = a.scalars->changed;
    mine.searched = a.scalars->searched;
    mine.evaluated = a.scalars->evaluated;
  }
  long long sums[J][D];
  long long weights[J];
  float old[J][D];
  int exponent[D];
#pragma unroll
  for (int c = 0; c < D; ++c)
    exponent[c] = c < d ? a.update.coord_exp[c] : 0;
#pragma unroll
  for (int s = 0; s < J; ++s) {
    const int j = threadIdx.x + s * kCompactThreads;
    if (j >= k) continue;
    const long long* row = a.update_totals + static_cast<std::size_t>(j) * (d + 1);
#pragma unroll
    for (int c = 0; c < D; ++c)
      sums[s][c] = c < d ? row[c] : 0;
    weights[s] = row[d];
#pragma unroll
    for (int c = 0; c < D; ++c)
      old[s][c] = c < d ? a.centroids_in[static_cast<std::size_t>(j) * d + c] : 0.0f;
  }
#pragma unroll
  for (int s = 0; s < J; ++s) {
    const int j = threadIdx.x + s * kCompactThreads;
    if (j >= k) continue;
    const long long weight = weights[s];
    float fresh[D];
#pragma unroll
    for (int c = 0; c < D; ++c)
      fresh[c] = weight == 0
                     ? old[s][c]  // an empty cluster keeps its centroid
                     : (c < d ? exact::meanFromSums(sums[s][c], exponent[c], weight, 0) : 0.0f);
    float* nc = a.centroids_out + static_cast<std::size_t>(j) * d;
#pragma unroll
    for (int c = 0; c < D; ++c)
      if (c < d) nc[c] = fresh[c];
    // exact::squaredDistance and shiftBound, unrolled over D (their loops over a runtime d kept
    // both arrays in local memory).
    float own2 = 0.0f, largest = 0.0f;
#pragma unroll
    for (int c = 0; c < D; ++c) {
      if (c < d) {
        const float diff = exact::sub(fresh[c], old[s][c]);
        own2 = exact::add(own2, exact::mul(diff, diff));
        largest = fmaxf(largest, fabsf(diff));
      }
    }
    const float own = weight == 0 ? 0.0f : sqrtf(own2);
    mine.drift_shift = fmaxf(mine.drift_shift, shiftBoundFrom(largest, d, own));
    a.empty_flags[j] = weight == 0 ? 1 : 0;
    mine.shift = fmaxf(mine.shift, own);
    mine.empty += weight == 0 ? 1 : 0;
  }
  using Reduce = cub::BlockReduce<UpdateTotals, kCompactThreads>;
  __shared__ typename Reduce::TempStorage temp;
  const UpdateTotals total = Reduce(temp).Reduce(mine, CombineTotals{});
  if (threadIdx.x == 0) reportUpdate(a, total, iteration, drift);
  __syncthreads();  // the new centroids are in global memory, visible to the whole block
  float axis[D];
#pragma unroll
  for (int c = 0; c < D; ++c)
    axis[c] = a.axis[c];
  computeGeometry<D>(a.centroids_out, k, d, axis, a.geometry, a.order);
}

/// One centroid's update, as compactUpdateKernel does it for each of its clusters: the mean of
/// the kept totals (an empty cluster keeps its old centroid; zero past d), and its shares of the
/// largest shift, of the drift's growth and of the empty count.
template <int D>
struct CentroidUpdate {
  float fresh[D];
  float shift = 0.0f, drift_shift = 0.0f;
  int empty = 0;
};

/// Centroid j's CentroidUpdate (a thread's own; `valid` false: zeros). With `write` it also
/// stores the new centroid and its empty flag.
template <int D, typename LabelT>
__device__ __forceinline__ CentroidUpdate<D> updateOwnCentroid(const CompactArgs<LabelT>& a, int j,
                                                               bool valid, bool write) {
  const int d = a.d;
  CentroidUpdate<D> u;
#pragma unroll
  for (int c = 0; c < D; ++c)
    u.fresh[c] = 0.0f;
  if (!valid) return u;
  const long long* row = a.update_totals + static_cast<std::size_t>(j) * (d + 1);
  long long sums[D];
  float old[D];
  int exponent[D];
#pragma unroll
  for (int c = 0; c < D; ++c) {
    sums[c] = c < d ? row[c] : 0;
    old[c] = c < d ? a.centroids_in[static_cast<std::size_t>(j) * d + c] : 0.0f;
    exponent[c] = c < d ? a.update.coord_exp[c] : 0;
  }
  const long long weight = row[d];
  float own2 = 0.0f, largest = 0.0f;
#pragma unroll
  for (int c = 0; c < D; ++c) {
    u.fresh[c] = weight == 0
                     ? old[c]
                     : (c < d ? exact::meanFromSums(sums[c], exponent[c], weight, 0) : 0.0f);
    if (c < d) {
      const float diff = exact::sub(u.fresh[c], old[c]);
      own2 = exact::add(own2, exact::mul(diff, diff));
      largest = fmaxf(largest, fabsf(diff));
    }
  }
  u.shift = weight == 0 ? 0.0f : sqrtf(own2);
  u.drift_shift = shiftBoundFrom(largest, d, u.shift);
  u.empty = weight == 0 ? 1 : 0;
  if (write) {
    float* nc = a.centroids_out + static_cast<std::size_t>(j) * d;
#pragma unroll
    for (int c = 0; c < D; ++c)
      if (c < d) nc[c] = u.fresh[c];
    a.empty_flags[j] = weight == 0 ? 1 : 0;
  }
  return u;
}

/// Thread 0 of the update: the iteration's scalars, the run counters (the drift grown by
/// `total.drift_shift`), the report and the convergence verdict.
template <typename LabelT>
__device__ __forceinline__ void reportUpdate(const CompactArgs<LabelT>& a,
                                             const UpdateTotals& total, int iteration,
                                             double drift) {
  IterationScalars* s = a.scalars;
  s->inertia = total.inertia;
  s->changed = total.changed;
  s->max_shift_bits = __float_as_uint(total.shift);
  s->empty_count = total.empty;
  RunCounters* run = a.update.counters;
  run->drift_before = drift;
  run->drift = grownDrift(drift, total.drift_shift);
  run->iteration = iteration;
  a.report->searched = total.searched;
  a.report->evaluated = total.evaluated;
  finalizeIteration(s, a.report, a.update, iteration);
}

/// Whether the update runs compactSmallUpdateKernel: k within one warp.
__host__ __device__ constexpr bool smallUpdate(int k) {
  return k <= 32;
}

/// compactUpdateKernel for k ≤ 32 (smallUpdate), with one barrier instead of a dozen: the block
/// sums the assignment blocks' partials (a warp butterfly each, then warp 0 over the eight warps'
/// results, in a fixed order), and warp 0 alone does the rest with lane j on centroid j — the
/// means, the shift and empty-cluster reductions and the geometry by shuffles (ranks by counting,
/// nearest others by brute force: the keys, distances and minima of computeGeometry, so the same
/// geometry). Its centroid loads go out before the barrier. The update of small k is a chain of
/// latencies, not work: the one-block kernel's barriers and shared round trips had made it about
/// 6 µs of every 17 µs iteration on a million rows of d = 1 (Nsight Compute, H200).
template <int D, typename LabelT>
__global__ void __launch_bounds__(kCompactThreads) compactSmallUpdateKernel(CompactArgs<LabelT> a) {
  constexpr int kWarps = kCompactThreads / 32;
  const int k = a.k;
  const int lane = static_cast<int>(threadIdx.x) & 31, warp = static_cast<int>(threadIdx.x) >> 5;
  const bool mine_centroid = warp == 0 && lane < k;
  int iteration = 0;
  double drift = 0.0;
  if (warp == 0 && lane == 0) {
    iteration = a.update.counters->iteration + 1;
    drift = a.update.counters->drift;
  }
  // The assignment blocks' partials: each thread's in block order, each warp's by a butterfly.
  UpdateTotals part{0.0, 0ull, 0.0f, 0, 0ull, 0ull, 0.0f};
  if (!a.scalars_reduced) {
#pragma unroll 4
    for (int b = threadIdx.x; b < a.blocks; b += kCompactThreads) {
      part.inertia += a.block_inertia[b];
      part.changed += a.block_changed[b];
      part.searched += a.block_work[2 * b];
      part.evaluated += a.block_work[2 * b + 1];
    }
    for (int offset = 16; offset > 0; offset >>= 1) {
      part.inertia += __shfl_xor_sync(kFullWarp, part.inertia, offset);
      part.changed += __shfl_xor_sync(kFullWarp, part.changed, offset);
      part.searched += __shfl_xor_sync(kFullWarp, part.searched, offset);
      part.evaluated += __shfl_xor_sync(kFullWarp, part.evaluated, offset);
    }
  }
  __shared__ double warp_inertia[kWarps];
  __shared__ unsigned long long warp_counts[3][kWarps];
  if (lane == 0) {
    warp_inertia[warp] = part.inertia;
    warp_counts[0][warp] = part.changed;
    warp_counts[1][warp] = part.searched;
    warp_counts[2][warp] = part.evaluated;
  }
  // Lane j of warp 0: centroid j's mean, shift and the drift's share (its loads overlap the
  // other warps' partials).
  const CentroidUpdate<D> u = updateOwnCentroid<D>(a, lane, mine_centroid, true);
  __syncthreads();
  if (warp != 0) return;
  UpdateTotals total{0.0, 0ull, 0.0f, 0, 0ull, 0ull, 0.0f};
  if (!a.scalars_reduced) {
    if (lane < kWarps) {
      total.inertia = warp_inertia[lane];
      total.changed = warp_counts[0][lane];
      total.searched = warp_counts[1][lane];
      total.evaluated = warp_counts[2][lane];
    }
    for (int offset = kWarps / 2; offset > 0; offset >>= 1) {
      total.inertia += __shfl_xor_sync(kFullWarp, total.inertia, offset);
      total.changed += __shfl_xor_sync(kFullWarp, total.changed, offset);
      total.searched += __shfl_xor_sync(kFullWarp, total.searched, offset);
      total.evaluated += __shfl_xor_sync(kFullWarp, total.evaluated, offset);
    }
    if (a.tile_iteration && lane == 0) total.inertia += takeTileInertia(a);
  } else if (lane == 0) {  // a shard: every GPU's totals, summed by the all-reduce
    total.inertia = a.scalars->inertia;
    total.changed = a.scalars->changed;
    total.searched = a.scalars->searched;
    total.evaluated = a.scalars->evaluated;
  }
  total.shift = warpMax(u.shift);
  total.drift_shift = warpMax(u.drift_shift);
  total.empty = warpSum(u.empty);
  if (lane == 0) reportUpdate(a, total, iteration, drift);
  const float(&fresh)[D] = u.fresh;
  // The geometry of the new centroids (computeGeometry's small-k branch, by shuffles).
  float key = 0.0f, norm = 0.0f;
#pragma unroll
  for (int c = 0; c < D; ++c) {
    key = fmaf(a.axis[c], fresh[c], key);
    norm = fmaf(fresh[c], fresh[c], norm);
  }
  const float top = warpMax(mine_centroid ? norm : 0.0f);
  int rank = 0;
  float nearest = INFINITY;  // squared
  for (int i = 0; i < k; ++i) {
    const float other = __shfl_sync(kFullWarp, key, i);
    rank += (other < key || (other == key && i < lane)) ? 1 : 0;
    float d2 = 0.0f;
#pragma unroll
    for (int c = 0; c < D; ++c) {
      const float diff = fresh[c] - __shfl_sync(kFullWarp, fresh[c], i);
      d2 = fmaf(diff, diff, d2);
    }
    if (i != lane) nearest = fminf(nearest, d2);
  }
  if (mine_centroid) {
    a.geometry[lane] = halfGap(nearest, k);
    a.geometry[k + rank] = key;
    a.order[rank] = static_cast<unsigned short>(lane);
    if (lane == 0) a.geometry[2 * k] = top;
  }
}

/// The update for 64 ≤ k ≤ kCompactThreads (spreadsGeometry) with the new centroids' geometry in
/// the same kernel, over describeSpread's ⌈k/8⌉ blocks: every block computes all k new centroids
/// from the kept totals into its shared rows (k·d divisions, a thread per centroid — cheaper than
/// staging them from global memory after a kernel boundary), block 0 also writes them and does
/// compactUpdateKernel's reduction and report, then every block describes its share. Replaces
/// an update block followed by spreadGeometryKernel: one launch and one global round trip fewer.
template <int D, typename LabelT>
__global__ void __launch_bounds__(kCompactThreads)
    compactSpreadUpdateKernel(CompactArgs<LabelT> a) {
  constexpr int S = geometryStride(D);
  __shared__ SpreadGeometryShared<D> sh;
  const int k = a.k;
  const bool lead = blockIdx.x == 0;
  const int j = static_cast<int>(threadIdx.x);
  int iteration = 0;
  double drift = 0.0;
  if (lead && j == 0) {
    iteration = a.update.counters->iteration + 1;
    drift = a.update.counters->drift;
  }
  UpdateTotals mine{0.0, 0ull, 0.0f, 0, 0ull, 0ull, 0.0f};
  if (lead) {
    if (!a.scalars_reduced) {
      mine = assignmentPartials(a);
    } else if (j == 0) {  // a shard: every GPU's totals, summed by the all-reduce
      mine.inertia = a.scalars->inertia;
      mine.changed = a.scalars->changed;
      mine.searched = a.scalars->searched;
      mine.evaluated = a.scalars->evaluated;
    }
  }
  const CentroidUpdate<D> u = updateOwnCentroid<D>(a, j, j < k, lead);
#pragma unroll
  for (int c = 0; c < S; ++c)
    sh.all[j * S + c] = c < D ? u.fresh[c] : 0.0f;
  if (lead) {
    mine.shift = u.shift;
    mine.drift_shift = u.drift_shift;
    mine.empty = u.empty;
    using Reduce = cub::BlockReduce<UpdateTotals, kCompactThreads>;
    __shared__ typename Reduce::TempStorage temp;
    const UpdateTotals total = Reduce(temp).Reduce(mine, CombineTotals{});
    if (j == 0) reportUpdate(a, total, iteration, drift);
  }
  __syncthreads();
  describeSpread<D>(a, sh);
}

/// A shard's half of the update's reduction (one block): its assignment blocks' inertia and
/// changed, searched and evaluated counts into `scalars`, for the all-reduce across GPUs.
template <typename LabelT>
__global__ void __launch_bounds__(kCompactThreads)
    compactShardScalarsKernel(CompactArgs<LabelT> a) {
  const UpdateTotals mine = assignmentPartials(a);
  using Reduce = cub::BlockReduce<UpdateTotals, kCompactThreads>;
  __shared__ typename Reduce::TempStorage temp;
  const UpdateTotals total = Reduce(temp).Reduce(mine, CombineTotals{});
  if (threadIdx.x == 0) {
    a.scalars->inertia = total.inertia;
    a.scalars->changed = total.changed;
    a.scalars->searched = total.searched;
    a.scalars->evaluated = total.evaluated;
  }
}

}  // namespace kms::cuda
