// The compact kernels' update (one block, after the assignment of compact_kernel.cuh or
// tile_kernel.cuh): the blocks' inertia and counts, the means from the kept totals, empty
// clusters, the largest shift and the drift it grows, convergence, the report and — for few
// centroids — their geometry for the next assignment; and a shard's half of that reduction.
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
/// the largest shift (and the drift it grows), convergence, the report, and — unless
/// spreadsGeometry(k) — the new centroids' geometry for the next assignment. Every
/// load is issued first, so they overlap instead of queueing behind barriers; one block reduction
/// (a fixed tree) does the rest.
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
  if (threadIdx.x == 0) {
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
  if (spreadsGeometry(k)) return;  // spreadGeometryKernel describes them after this kernel
  __syncthreads();  // the new centroids are in global memory, visible to the whole block
  float axis[D];
#pragma unroll
  for (int c = 0; c < D; ++c)
    axis[c] = a.axis[c];
  computeGeometry<D>(a.centroids_out, k, d, axis, a.geometry, a.order);
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
