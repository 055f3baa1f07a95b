// The compact kernels' update (after the assignment of compact_kernel.cuh or tile_kernel.cuh):
// the blocks' inertia and counts, the means from the kept totals, empty clusters, the largest
// shift and the drift it grows, convergence, the report and the new centroids' geometry for the
// next assignment — one block (compactUpdateKernel; compactSmallUpdateKernel for k ≤ 32) or
// ⌈k/8⌉ + 1 blocks for 64 ≤ k ≤ 256 (compactSpreadUpdateKernel); and a shard's half of the
// reduction.
#pragma once

#include <cub/block/block_reduce.cuh>

#include <cstdint>

#include "cuda/kernels/compact_args.cuh"
#include "cuda/kernels/compact_block.cuh"
#include "cuda/kernels/compact_geometry.cuh"
#include "cuda/kernels/iteration_common.cuh"
#include "cuda/kernels/tile_shape.cuh"

namespace kms::cuda {

/// Thread 0: the tile kernel's inertia (tile_kernel.cuh) of the iteration, and the state zeroed
/// (and the schedule advanced) for the next one.
template <typename LabelT>
__device__ __forceinline__ double takeTileInertia(const CompactArgs<LabelT>& a) {
  TileIteration* s = a.tile_iteration;
  const double inertia = tileInertiaTotal(*s, a.inertia_exp);
  *s = TileIteration{};
  advanceTileSchedule(a.tile_schedule);
  return inertia;
}

/// What the update reduces: the assignment's scalars (WorkTotals), and the clusters' largest
/// shift and number of empty ones.
struct UpdateTotals {
  WorkTotals work;
  float shift = 0.0f;
  int empty = 0;
  float drift_shift = 0.0f;  ///< largest shiftBound: what the drift grows by
};

struct CombineTotals {
  __device__ __forceinline__ UpdateTotals operator()(const UpdateTotals& x,
                                                     const UpdateTotals& y) const {
    UpdateTotals t;
    t.work.inertia = x.work.inertia + y.work.inertia;
    t.work.changed = x.work.changed + y.work.changed;
    t.work.searched = x.work.searched + y.work.searched;
    t.work.evaluated = x.work.evaluated + y.work.evaluated;
    t.shift = fmaxf(x.shift, y.shift);
    t.empty = x.empty + y.empty;
    t.drift_shift = fmaxf(x.drift_shift, y.drift_shift);
    return t;
  }
};

/// The assignment's scalars as this thread of the update starts from: a shard's (every GPU's,
/// all-reduced into a.scalars: thread 0 only), or this thread's share of the assignment blocks'
/// (blocks threadIdx.x, + kCompactThreads, …, in that fixed order; on thread 0 the tile kernel's
/// inertia too, taken once per iteration).
template <typename LabelT>
__device__ __forceinline__ WorkTotals assignmentPartials(const CompactArgs<LabelT>& a) {
  WorkTotals mine;
  if (a.scalars_reduced) {
    if (threadIdx.x == 0) {
      mine.inertia = a.scalars->inertia;
      mine.changed = a.scalars->changed;
      mine.searched = a.scalars->searched;
      mine.evaluated = a.scalars->evaluated;
    }
    return mine;
  }
#pragma unroll 4
  for (int b = threadIdx.x; b < a.blocks; b += kCompactThreads) {
    mine.inertia += a.block_inertia[b];
    mine.changed += a.block_changed[b];
    mine.searched += a.block_work[2 * b];
    mine.evaluated += a.block_work[2 * b + 1];
  }
  if (a.tile_iteration && threadIdx.x == 0) mine.inertia += takeTileInertia(a);
  return mine;
}

/// Thread 0 of the update: the iteration's scalars, the run counters (the drift grown by
/// `total.drift_shift`), the report and the convergence verdict (returned).
template <typename LabelT>
__device__ __forceinline__ bool reportUpdate(const CompactArgs<LabelT>& a,
                                             const UpdateTotals& total, int iteration,
                                             double drift) {
  IterationScalars* s = a.scalars;
  s->inertia = total.work.inertia;
  s->changed = total.work.changed;
  s->max_shift_bits = __float_as_uint(total.shift);
  s->empty_count = total.empty;
  RunCounters* run = a.update.counters;
  run->drift_before = drift;
  run->drift = grownDrift(drift, total.drift_shift);
  run->iteration = iteration;
  a.report->searched = total.work.searched;
  a.report->evaluated = total.work.evaluated;
  // From the totals in hand: reading back what was just stored had been a global round trip.
  const bool converged = finalizeIterationFrom(s, a.report, a.update, iteration, total.work.inertia,
                                               total.work.changed, total.shift, total.empty);
  a.loop.reported(converged, total.empty);
  if (a.group_changed_count != nullptr) {  // the expansion is done
    a.group_changed_count[0] = 0;
    a.group_changed_count[1] = 0;
  }
  return converged;
}

/// What one centroid's update reads: its kept totals and its old coordinates (zero past d).
/// Loaded apart from the arithmetic, so that a thread's loads for all its centroids are in
/// flight together.
template <int D>
struct CentroidInputs {
  long long sums[D];
  long long weight;
  float old[D];
};

template <int D, typename LabelT>
__device__ __forceinline__ CentroidInputs<D> loadCentroid(const CompactArgs<LabelT>& a, int j) {
  const int d = a.d;
  const long long* row = a.update_totals + static_cast<std::size_t>(j) * (d + 1);
  CentroidInputs<D> in;
#pragma unroll
  for (int c = 0; c < D; ++c) {
    in.sums[c] = c < d ? row[c] : 0;
    in.old[c] = c < d ? a.centroids_in[static_cast<std::size_t>(j) * d + c] : 0.0f;
  }
  in.weight = row[d];
  return in;
}

/// The d fixed-point exponents of the sums (zero past d).
template <int D, typename LabelT>
__device__ __forceinline__ void loadExponents(const CompactArgs<LabelT>& a, int (&exponent)[D]) {
#pragma unroll
  for (int c = 0; c < D; ++c)
    exponent[c] = c < a.d ? a.update.coord_exp[c] : 0;
}

/// One centroid's update: the mean of the kept totals (an empty cluster keeps its old centroid;
/// zero past d), and its shares of the largest shift, of the drift's growth and of the empty
/// count.
template <int D>
struct CentroidUpdate {
  float fresh[D];
  float shift = 0.0f, drift_shift = 0.0f;
  int empty = 0;
};

/// Centroid j's CentroidUpdate from its inputs; with `write`, stores the new centroid and its
/// empty flag.
template <int D, typename LabelT>
__device__ __forceinline__ CentroidUpdate<D> updateCentroid(const CompactArgs<LabelT>& a, int j,
                                                            const CentroidInputs<D>& in,
                                                            const int (&exponent)[D],
                                                            bool write = true) {
  const int d = a.d;
  CentroidUpdate<D> u;
  // exact::squaredDistance and shiftBound, unrolled over D (their loops over a runtime d kept
  // both arrays in local memory).
  float own2 = 0.0f, largest = 0.0f;
  const exact::MeanDivisor divisor(in.weight == 0 ? 1 : in.weight, 0);  // meanFromSums' divisor
#pragma unroll
  for (int c = 0; c < D; ++c) {
    u.fresh[c] =
        in.weight == 0 ? in.old[c] : (c < d ? divisor.mean(in.sums[c], exponent[c]) : 0.0f);
    if (c < d) {
      const float diff = exact::sub(u.fresh[c], in.old[c]);
      own2 = exact::add(own2, exact::mul(diff, diff));
      largest = fmaxf(largest, fabsf(diff));
    }
  }
  u.shift = in.weight == 0 ? 0.0f : sqrtf(own2);
  u.drift_shift = shiftBoundFrom(largest, d, u.shift);
  u.empty = in.weight == 0 ? 1 : 0;
  if (write) {
    float* nc = a.centroids_out + static_cast<std::size_t>(j) * d;
#pragma unroll
    for (int c = 0; c < D; ++c)
      if (c < d) nc[c] = u.fresh[c];
    a.empty_flags[j] = in.weight == 0 ? 1 : 0;
  }
  return u;
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
  const int loop_mark = startCompactKernel(a.loop);
  // Thread 0's run counters load now, not after the reduction, where every thread would wait at
  // the barrier for the round trip.
  const int iteration = threadIdx.x == 0 ? a.update.counters->iteration + 1 : 0;
  const double drift = threadIdx.x == 0 ? a.update.counters->drift : 0.0;
  if (a.loop.ended(loop_mark)) return;  // an earlier iteration of the launch ended it
  UpdateTotals mine;
  mine.work = assignmentPartials(a);
  int exponent[D];
  loadExponents(a, exponent);
  CentroidInputs<D> in[J];
#pragma unroll
  for (int s = 0; s < J; ++s) {
    const int j = threadIdx.x + s * kCompactThreads;
    if (j < k) in[s] = loadCentroid<D>(a, j);
  }
#pragma unroll
  for (int s = 0; s < J; ++s) {
    const int j = threadIdx.x + s * kCompactThreads;
    if (j >= k) continue;
    const CentroidUpdate<D> u = updateCentroid<D>(a, j, in[s], exponent);
    mine.shift = fmaxf(mine.shift, u.shift);
    mine.drift_shift = fmaxf(mine.drift_shift, u.drift_shift);
    mine.empty += u.empty;
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

/// Whether the update runs compactSmallUpdateKernel: k within one warp.
__host__ __device__ constexpr bool smallUpdate(int k) {
  return k <= 32;
}

/// compactUpdateKernel for k ≤ 32 (smallUpdate), with one barrier instead of a dozen: the block
/// sums the assignment blocks' partials (blockSumWork), and warp 0 alone does the rest with lane
/// j on centroid j — the means, the shift and empty-cluster reductions and the geometry by
/// shuffles (ranks by counting, nearest others by brute force: the keys, distances and minima of
/// computeGeometry, so the same geometry). Its centroid loads go out before the barrier. The
/// update of small k is a chain of latencies, not work: the one-block kernel's barriers and
/// shared round trips had made it a third of a small iteration (docs/experiments.md).
template <int D, typename LabelT>
__global__ void __launch_bounds__(kCompactThreads) compactSmallUpdateKernel(CompactArgs<LabelT> a) {
  const int k = a.k;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const bool mine_centroid = threadIdx.x < 32 && lane < k;
  const int loop_mark = startCompactKernel(a.loop);
  int iteration = 0;
  double drift = 0.0;
  if (threadIdx.x == 0) {
    iteration = a.update.counters->iteration + 1;
    drift = a.update.counters->drift;
  }
  int exponent[D];
  loadExponents(a, exponent);
  CentroidInputs<D> in{};
  if (mine_centroid) in = loadCentroid<D>(a, lane);
  if (a.loop.ended(loop_mark)) return;  // an earlier iteration of the launch ended it
  UpdateTotals total;
  total.work = blockSumWork(assignmentPartials(a));  // its barrier
  if (threadIdx.x >= 32) return;
  // Lane j: centroid j's mean, shift and the drift's share.
  CentroidUpdate<D> u;
  if (mine_centroid) u = updateCentroid<D>(a, lane, in, exponent);
  total.shift = warpMax(u.shift);
  total.drift_shift = warpMax(u.drift_shift);
  total.empty = warpSum(u.empty);
  if (lane == 0) reportUpdate(a, total, iteration, drift);
  // The geometry of the new centroids (computeGeometry's small-k branch, by shuffles); lanes
  // past k hold zeros and are never read.
  float fresh[D];
#pragma unroll
  for (int c = 0; c < D; ++c)
    fresh[c] = mine_centroid ? u.fresh[c] : 0.0f;
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
/// the same kernel: describeSpread's ⌈k/8⌉ blocks, then one more block that reports
/// (spreadUpdateBlocks). Every describing block computes all k new centroids from the kept
/// totals into its shared rows (k·d divisions, a thread per centroid — cheaper than staging them
/// from global memory after a kernel boundary) and describes its share; the reporting block
/// computes them too, writes them, and does compactUpdateKernel's reduction and report. Replaces
/// an update block followed by spreadGeometryKernel: one launch and one global round trip fewer.
/// The report has a block of its own so that its chain (the assignment blocks' results, the
/// reduction, the report) runs beside the geometry's instead of before it (block 0 had done both,
/// taking about twice as long as a block that only describes).
template <int D, typename LabelT>
__global__ void __launch_bounds__(kCompactThreads)
    compactSpreadUpdateKernel(CompactArgs<LabelT> a) {
  constexpr int S = geometryStride(D);
  __shared__ SpreadGeometryShared<D> sh;
  const int k = a.k;
  const int j = static_cast<int>(threadIdx.x);
  const bool reports = blockIdx.x == gridDim.x - 1;
  const int loop_mark = startCompactKernel(a.loop);
  int exponent[D];
  loadExponents(a, exponent);
  // The centroid's inputs load first: the reporting block's later stores (the tile kernel's
  // state, the counters) would otherwise keep them behind its other loads.
  CentroidInputs<D> in;
  if (j < k) in = loadCentroid<D>(a, j);
  if (a.loop.ended(loop_mark)) return;  // an earlier iteration of the launch ended it
  if (reports) {
    int iteration = 0;
    double drift = 0.0;
    if (j == 0) {
      iteration = a.update.counters->iteration + 1;
      drift = a.update.counters->drift;
    }
    UpdateTotals mine;
    mine.work = assignmentPartials(a);
    if (j < k) {
      const CentroidUpdate<D> u = updateCentroid<D>(a, j, in, exponent, /*write=*/true);
      mine.shift = u.shift;
      mine.drift_shift = u.drift_shift;
      mine.empty = u.empty;
    }
    using Reduce = cub::BlockReduce<UpdateTotals, kCompactThreads>;
    __shared__ typename Reduce::TempStorage temp;
    const UpdateTotals total = Reduce(temp).Reduce(mine, CombineTotals{});
    if (j == 0) reportUpdate(a, total, iteration, drift);
    return;
  }
  CentroidUpdate<D> u;
  if (j < k) u = updateCentroid<D>(a, j, in, exponent, /*write=*/false);
#pragma unroll
  for (int c = 0; c < S; ++c)
    sh.all[j * S + c] = c < D && j < k ? u.fresh[c] : 0.0f;
  __syncthreads();
  describeSpread<D>(a, sh);
}

/// A shard's half of the update's reduction (one block): its assignment blocks' inertia and
/// changed, searched and evaluated counts into `scalars`, for the all-reduce across GPUs.
template <typename LabelT>
__global__ void __launch_bounds__(kCompactThreads)
    compactShardScalarsKernel(CompactArgs<LabelT> a) {
  const WorkTotals total = blockSumWork(assignmentPartials(a));
  if (threadIdx.x == 0) {
    a.scalars->inertia = total.inertia;
    a.scalars->changed = total.changed;
    a.scalars->searched = total.searched;
    a.scalars->evaluated = total.evaluated;
  }
}

}  // namespace kms::cuda
