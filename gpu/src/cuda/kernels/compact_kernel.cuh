// One whole Lloyd iteration of compact data (distinct values with counts, d ≤ 4) in two kernels:
// the assignment with the exact sums, then one block for the reduction, the update, empty
// clusters, the shift, the convergence test and the report. An image's distinct colours (a few
// hundred thousand rows) sit in L2, so the launches are most of what an iteration costs. (A
// second kernel in the iteration's graph costs about 0.3 µs on an H200; a last-block-done
// update inside the first, with its fences and counter, about 2.5 µs — measured.)
//
// Sums are kept across iterations: the cluster totals k·(d+1) live in global memory for the
// whole run, and an iteration only moves the rows whose label changed (m·q(x) subtracted from
// the old cluster, added to the new one). Integer arithmetic, so the totals are exactly what a
// full recount would give, in any order; after the first iterations few rows change and the
// iteration is the assignment alone. Each block gathers its moves in shared 64-bit accumulators
// (32-bit words, as in assign_common.cuh) and adds the non-zero ones to the totals with one
// global atomic each.
//
// Most rows need no search either (Hamerly's bounds): each row keeps an upper bound u on the
// distance to its centroid and a lower bound l on the distance to every other centroid; each
// update moves u up by its centroid's shift and l down by the largest shift. While u < l the
// label cannot change, so the row only computes its exact distance (for the inertia). The
// bounds carry a relative slack (kBoundSlack) far above float rounding, so a row is skipped
// only when its centroid is nearer than every other by a margin no rounding can close: the
// label is the one the full search — and the CPU backend — would give.
#pragma once

#include <cub/block/block_reduce.cuh>

#include <cstdint>

#include "common/constants.h"
#include "cuda/kernels/assign_common.cuh"
#include "cuda/kernels/iteration_common.cuh"

namespace kms::cuda {

inline constexpr int kCompactThreads = 256;
/// The assignment kernel stages every centroid in shared memory: k up to this, d up to
/// kCompactMaxD.
inline constexpr int kCompactMaxK = 1024;
inline constexpr int kCompactMaxD = 4;

/// Everything one iteration of compact data reads and writes (device pointers).
template <typename LabelT>
struct CompactArgs {
  const float* points = nullptr;          ///< n × d, centred
  const std::uint32_t* counts = nullptr;  ///< n multiplicities ≥ 1
  std::size_t n = 0;
  int d = 0;
  int k = 0;
  const float* centroids_in = nullptr;  ///< this iteration's centroids (k × d, centred)
  float* centroids_out = nullptr;       ///< the update writes the next ones here
  const LabelT* labels_in = nullptr;    ///< previous labels; null on the first iteration
  LabelT* labels_out = nullptr;         ///< may equal labels_in
  const float* coord_scale = nullptr;   ///< d fixed-point scales (powers of two)
  long long* totals = nullptr;          ///< k·(d+1) exact sums, kept for the whole run
  /// n (upper, lower) distance bounds; valid from iteration 2 on. (Half precision would halve
  /// the bytes but rounds away too much margin: measured on an H200, k = 64 and 256 took 15 %
  /// and 50 % longer.)
  float2* bounds = nullptr;
  double* block_inertia = nullptr;  ///< [blocks] of the assignment kernel
  unsigned long long* block_changed = nullptr;
  int blocks = 0;  ///< the assignment kernel's grid size
  unsigned char* empty_flags = nullptr;
  IterationScalars* scalars = nullptr;
  IterationReport* report = nullptr;
  UpdateParams update;  ///< update.shifts: k + 1 floats, written by the update, read next time
};

/// Adds a 64-bit value to a sum held as (lo: unsigned, hi: signed) 32-bit words in shared
/// memory (see atomicAddWide): the carry out of the low word goes to the high word.
__device__ __forceinline__ void atomicAddWide64(unsigned* lo, int* hi, long long v) {
  const unsigned u = static_cast<unsigned>(v);
  const int h = static_cast<int>(v >> 32);
  const unsigned old = atomicAdd(lo, u);
  const int delta = h + (old + u < old ? 1 : 0);
  if (delta != 0) atomicAdd(hi, delta);
}

/// Exact nearest of all k staged rows, ties to the lower index (the CPU backend's answer).
template <int D>
__device__ int exactNearestStaged(const float (&x)[D], const float* rows, int k, int d,
                                  float& distance) {
  int best = 0;
  float best_dist = INFINITY;
  for (int j = 0; j < k; ++j) {
    const float s = exactDistance<D>(x, rows + j * centroidRow(D), d);
    if (s < best_dist) {
      best_dist = s;
      best = j;
    }
  }
  distance = best_dist;
  return best;
}

/// The fast score ‖c‖² − 2x·c of one staged row, as the point-per-thread kernel forms it.
template <int D>
__device__ __forceinline__ float fastScore(const float (&x2)[D], const float* row) {
  constexpr int R = centroidRow(D);
  if constexpr (R == 2) {
    const float2 c = *reinterpret_cast<const float2*>(row);
    return fmaf(x2[0], c.x, c.y);
  } else {
    float s = row[D];
#pragma unroll
    for (int v = 0; v < R / 4; ++v) {
      const float4 c = reinterpret_cast<const float4*>(row)[v];
      if (4 * v < D) s = fmaf(x2[4 * v], c.x, s);
      if (4 * v + 1 < D) s = fmaf(x2[4 * v + 1], c.y, s);
      if (4 * v + 2 < D) s = fmaf(x2[4 * v + 2], c.z, s);
      if (4 * v + 3 < D) s = fmaf(x2[4 * v + 3], c.w, s);
    }
    return s;
  }
}

/// What the update block reduces: the assignment blocks' inertia and changed counts, and the
/// clusters' largest shift and number of empty ones.
struct UpdateTotals {
  double inertia;
  unsigned long long changed;
  float shift;
  int empty;
};

struct CombineTotals {
  __device__ __forceinline__ UpdateTotals operator()(const UpdateTotals& x,
                                                     const UpdateTotals& y) const {
    return {x.inertia + y.inertia, x.changed + y.changed, fmaxf(x.shift, y.shift),
            x.empty + y.empty};
  }
};

/// The update (one block, after the assignment kernel): totals → new centroids, empty flags,
/// shifts, convergence and the report. Every load is issued first, so they overlap instead of
/// queueing behind barriers; one block reduction (a fixed tree) does the rest.
template <int D, typename LabelT>
__global__ void __launch_bounds__(kCompactThreads) compactUpdateKernel(CompactArgs<LabelT> a) {
  constexpr int J = kCompactMaxK / kCompactThreads;  // clusters per thread at most
  const int d = a.d, k = a.k;
  const int iteration = threadIdx.x == 0 ? a.update.counters->iteration + 1 : 0;
  UpdateTotals mine{0.0, 0ull, 0.0f, 0};
  for (int b = threadIdx.x; b < a.blocks; b += kCompactThreads) {  // fixed order per thread
    mine.inertia += a.block_inertia[b];
    mine.changed += a.block_changed[b];
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
    const long long* row = a.totals + static_cast<std::size_t>(j) * (d + 1);
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
    const float own = weight == 0 ? 0.0f : sqrtf(exact::squaredDistance(fresh, old[s], d));
    a.update.shifts[j] = own;
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
    a.update.shifts[k] = total.shift;
    a.update.counters->iteration = iteration;
    finalizeIteration(s, a.report, a.update, iteration);
  }
}

/// Rows a thread loads together: their loads are in flight at once, so the iteration waits for
/// memory about once per batch instead of once per row.
inline constexpr int kCompactRowsPerThread = 2;

/// One row's inputs as the thread holds them.
template <int D, typename LabelT>
struct CompactRow {
  float x[D];
  float2 bounds;
  LabelT old_label;
  std::uint32_t count;
  bool valid;
};

template <int D, typename LabelT>
__device__ __forceinline__ void loadCompactRow(const CompactArgs<LabelT>& a, std::size_t i,
                                               bool first, CompactRow<D, LabelT>& r) {
  r.valid = i < a.n;
  const std::size_t at = r.valid ? i : 0;
  const float* p = a.points + at * a.d;
#pragma unroll
  for (int c = 0; c < D; ++c)
    r.x[c] = c < a.d ? __ldg(p + c) : 0.0f;
  r.count = __ldg(a.counts + at);
  r.old_label = first ? LabelT(0) : a.labels_in[at];
  r.bounds = first ? make_float2(0.0f, 0.0f) : a.bounds[at];
}

/// Per-block state of the row pass.
struct CompactBlock {
  const float* rows;   // staged centroids
  const float* shift;  // inflated shifts, [k] the largest
  const float* scale;  // fixed-point scales
  unsigned* acc_lo;
  int* acc_hi;
};

/// Assigns one row: the bounds settle it when they can, else the full exact search; records its
/// bounds, label, inertia and — when its label changed — moves its sums between clusters.
template <int D, typename LabelT>
__device__ __forceinline__ void assignCompactRow(const CompactArgs<LabelT>& a,
                                                 const CompactBlock& b, std::size_t i,
                                                 const CompactRow<D, LabelT>& r, bool first,
                                                 double& inertia, unsigned long long& changed) {
  constexpr int R = centroidRow(D);
  const int d = a.d, k = a.k;
  int label = r.old_label;
  float dist = 0.0f, upper = 0.0f, lower = 0.0f;
  bool settled = false;
  if (!first) {
    // The bounds follow the centroids; while the own centroid is nearer than any other could
    // be, the label stands and only the exact distance is needed.
    lower = fmaxf(0.0f, (r.bounds.y - b.shift[k]) * (1.0f - kBoundSlack));
    if ((r.bounds.x + b.shift[r.old_label]) * (1.0f + kBoundSlack) < lower) {
      dist = exactDistance<D>(r.x, b.rows + r.old_label * R, d);
      upper = sqrtf(dist) * (1.0f + kBoundSlack);
      settled = upper < lower;
    }
  }
  if (!settled) {
    float x2[D];
#pragma unroll
    for (int c = 0; c < D; ++c)
      x2[c] = -2.0f * r.x[c];
    float best = INFINITY, second = INFINITY;
    label = 0;
#pragma unroll 4
    for (int j = 0; j < k; ++j) {
      const float s = fastScore<D>(x2, b.rows + j * R);
      second = fminf(second, fmaxf(s, best));
      if (s < best) {  // strict: among equal scores the lower index stays
        best = s;
        label = j;
      }
    }
    dist = exactDistance<D>(r.x, b.rows + label * R, d);
    lower = INFINITY;  // k = 1: no other centroid
    if (second < INFINITY) {
      float x_norm = 0.0f;
#pragma unroll
      for (int c = 0; c < D; ++c)
        x_norm = fmaf(r.x[c], r.x[c], x_norm);
      // As in assignKernel: a gap below the rounding bound is settled with exact distances.
      const float reach = sqrtf(x_norm) + sqrtf(fmaxf(0.0f, second + x_norm));
      const float err = tieBound<D>(x_norm, b.rows[label * R + D], 1.01f * reach * reach);
      if (!(second - best > err)) label = exactNearestStaged<D>(r.x, b.rows, k, d, dist);
      // Every other centroid is at least this far: the runner-up's score less its error.
      lower = sqrtf(fmaxf(0.0f, second + x_norm - err)) * (1.0f - kBoundSlack);
    }
    upper = sqrtf(dist) * (1.0f + kBoundSlack);
  }
  a.bounds[i] = make_float2(upper, lower);
  inertia += static_cast<double>(dist) * r.count;
  const LabelT new_label = static_cast<LabelT>(label);
  if (first || r.old_label != new_label) {
    changed += r.count;
    const std::size_t to = static_cast<std::size_t>(new_label) * (d + 1);
    const std::size_t from = static_cast<std::size_t>(r.old_label) * (d + 1);
    const long long m = r.count;
#pragma unroll
    for (int c = 0; c < D; ++c) {
      if (c < d) {
        const long long q = m * exact::quantize(r.x[c], b.scale[c]);
        atomicAddWide64(b.acc_lo + to + c, b.acc_hi + to + c, q);
        if (!first) atomicAddWide64(b.acc_lo + from + c, b.acc_hi + from + c, -q);
      }
    }
    atomicAddWide64(b.acc_lo + to + d, b.acc_hi + to + d, m);
    if (!first) atomicAddWide64(b.acc_lo + from + d, b.acc_hi + from + d, -m);
    a.labels_out[i] = new_label;
  } else if (a.labels_out != a.labels_in) {
    a.labels_out[i] = new_label;
  }
}

template <int D, typename LabelT>
__global__ void __launch_bounds__(kCompactThreads) compactAssignKernel(CompactArgs<LabelT> a) {
  constexpr int R = centroidRow(D);
  constexpr int P = kCompactRowsPerThread;
  extern __shared__ __align__(16) unsigned char shared_raw[];
  const int d = a.d;
  const int k = a.k;
  const int kd1 = k * (d + 1);
  float* rows = reinterpret_cast<float*>(shared_raw);  // k × R
  unsigned* acc_lo = reinterpret_cast<unsigned*>(rows + static_cast<std::size_t>(k) * R);
  int* acc_hi = reinterpret_cast<int*>(acc_lo + kd1);
  float* shift = reinterpret_cast<float*>(acc_hi + kd1);  // k + 1: per cluster, then the largest
  __shared__ float scale[D];
  const bool first = a.labels_in == nullptr;

  // The first batch's loads go out before the block sets up, and overlap with it.
  const std::size_t batch = static_cast<std::size_t>(kCompactThreads) * P;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * batch;
  std::size_t base = blockIdx.x * batch + threadIdx.x;
  CompactRow<D, LabelT> cur[P];
#pragma unroll
  for (int r = 0; r < P; ++r)
    loadCompactRow<D>(a, base + static_cast<std::size_t>(r) * kCompactThreads, first, cur[r]);

  if (threadIdx.x < D)
    scale[threadIdx.x] = static_cast<int>(threadIdx.x) < d ? a.coord_scale[threadIdx.x] : 0.0f;
  for (int t = threadIdx.x; t < kd1; t += kCompactThreads) {
    acc_lo[t] = 0u;
    acc_hi[t] = 0;
  }
  if (!first)
    for (int j = threadIdx.x; j <= k; j += kCompactThreads)
      shift[j] = a.update.shifts[j] * (1.0f + kBoundSlack);
  stageCentroids<D>(rows, a.centroids_in, d, 0, k);  // ends with __syncthreads
  const CompactBlock block{rows, shift, scale, acc_lo, acc_hi};

  double inertia = 0.0;
  unsigned long long changed = 0;
  for (; base < a.n; base += stride) {
#pragma unroll
    for (int r = 0; r < P; ++r)
      if (cur[r].valid)
        assignCompactRow<D>(a, block, base + static_cast<std::size_t>(r) * kCompactThreads, cur[r],
                            first, inertia, changed);
    if (base + stride < a.n) {
#pragma unroll
      for (int r = 0; r < P; ++r)
        loadCompactRow<D>(a, base + stride + static_cast<std::size_t>(r) * kCompactThreads, first,
                          cur[r]);
    }
  }

  const BlockScalars total = blockSumScalars<kCompactThreads>(inertia, changed);
  if (threadIdx.x == 0) {
    a.block_inertia[blockIdx.x] = total.inertia;
    a.block_changed[blockIdx.x] = total.changed;
  }
  __syncthreads();  // every shared accumulation is done
  for (int t = threadIdx.x; t < kd1; t += kCompactThreads) {
    const long long v = wideValue(acc_lo[t], acc_hi[t]);
    if (v != 0) atomicAddInt64(a.totals + t, v);
  }
}

}  // namespace kms::cuda
