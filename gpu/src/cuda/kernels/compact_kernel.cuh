// One whole Lloyd iteration of compact data (d ≤ 4 with k ≤ 1,024, or d ≤ 16 with k ≤ 256) in two
// kernels: the assignment with the exact sums (here; the block's set-up and end in
// compact_block.cuh), then the reduction, the update, empty clusters, the shift, the convergence
// test, the report and the next geometry (compact_update.cuh). It serves compact data (distinct
// values with counts: an image's distinct colours sit in L2, so the launches are most of what an
// iteration costs) and, with every count 1, unweighted point data such as a photo's pixels one by
// one. (A second kernel in the iteration's graph costs less than a last-block-done update inside
// the first, with its fences and counter: measured, docs/experiments.md.)
//
// Sums are kept across iterations: the cluster totals k·(d+1) live in global memory for the
// whole run, and an iteration only moves the rows whose label changed (m·q(x) subtracted from
// the old cluster, added to the new one). Integer arithmetic, so the totals are exactly what a
// full recount would give, in any order; after the first iterations few rows change and the
// iteration is the assignment alone. Each block gathers its moves in shared 64-bit accumulators
// (32-bit words, as in assign_common.cuh) and adds the non-zero ones to the totals with one
// global atomic each.
//
// Most rows need no search either (Hamerly's bounds, with one float per row): each row keeps a
// lower bound l on the distance to every centroid but its own. Centroids move; every update adds
// its largest shift (inflated, rounded up) to a run-long drift D kept in double on the device,
// and a row stores L = l + D(t₀) (rounded down) when it is searched at iteration t₀. At a later
// iteration t, L − D(t) (rounded down) is still a lower bound — the other centroids came at most
// D(t) − D(t₀) nearer — so the row's bound is written only when the row is searched, and a
// settled row costs its point, label and bound read and nothing written. The upper bound is the
// row's exact distance to its own centroid, which the inertia needs anyway. While that distance
// (inflated by kBoundSlack, far above float rounding) is below the lower bound, the label cannot
// change: it is the one the full search — and the CPU backend — would give.
#pragma once

#include <cstdint>

#include "common/constants.h"
#include "cuda/kernels/assign_common.cuh"
#include "cuda/kernels/compact_args.cuh"
#include "cuda/kernels/compact_block.cuh"
#include "cuda/kernels/compact_geometry.cuh"
#include "cuda/kernels/iteration_common.cuh"
#include "cuda/repeat_groups.cuh"

namespace kms::cuda {

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

/// Rows a thread loads together: their loads are in flight at once, so the iteration waits for
/// memory about once per batch instead of once per row, and the block's barriers come once per
/// batch. Rows of d ≤ 2 hold few registers, so they take 8: a million rows of d = 1 take two
/// batches per block instead of four (the registers this costs allow two blocks per
/// multiprocessor instead of four; capping them to keep four spilled, and measured slower). For
/// d = 3, 4 four rows a thread helped data that settle but slowed the searches of larger k, so
/// they stay at two (docs/experiments.md).
/// This is the default; small data of D = 8, 16 take one row a thread instead
/// (AssignPlan::small_rows, compactAssignKernel's P = 1): twice the blocks, so that a data set
/// of under 132 · 512 rows reaches more multiprocessors — each warp searches its own rows one
/// after another, and those chains were the searching iterations' time.
__host__ __device__ constexpr int compactRowsPerThread(int D) {
  return D <= 2 ? 8 : 2;
}
/// Rows the bounds did not settle wait in a block-wide queue until a whole round of the block's
/// threads can search one each: the search (k scores) runs with every lane busy instead of
/// holding up the warps whose lanes were settled. (D = 8, 16: each warp has its share of the
/// queue, searches each of its rows with all lanes, and empties it after every batch.)
__host__ __device__ constexpr int compactSearchQueue(int P) {
  return kCompactThreads * (P + 1);
}
/// (1 + kBoundSlack)², rounded up.
inline constexpr float kSquaredSlack = 1.0000201f;

/// What a search reads of row i (searchRow: its thread; warpSearchRow: every lane the same):
/// its coordinates (zero past d), count and old label, one global round trip — the count and
/// old label go out with the coordinates, not after the search, where they had been a second
/// round trip per row.
template <int D, typename LabelT>
struct SearchInput {
  float x[D];
  std::uint32_t count;
  LabelT old_label;
};

template <int D, typename LabelT>
__device__ __forceinline__ SearchInput<D, LabelT> loadSearchInput(const CompactArgs<LabelT>& a,
                                                                  std::size_t i, bool first) {
  SearchInput<D, LabelT> in;
  const int d = compactExactDim(D) ? D : a.d;
  const float* p = a.points + i * d;
#pragma unroll
  for (int c = 0; c < D; ++c)
    in.x[c] = (compactExactDim(D) || c < d) ? __ldg(p + c) : 0.0f;
  in.count = a.counts ? __ldg(a.counts + i) : 1u;
  in.old_label = first ? LabelT(0) : a.labels_in[i];
  return in;
}

/// One row's inputs as the thread holds them: what a search reads, its bound, and whether the
/// row exists.
template <int D, typename LabelT>
struct CompactRow : SearchInput<D, LabelT> {
  float bound;  // L, see the top of this file
  bool valid;
};

template <int D, typename LabelT>
__device__ __forceinline__ void loadCompactRow(const CompactArgs<LabelT>& a, std::size_t i,
                                               bool first, CompactRow<D, LabelT>& r) {
  r.valid = i < a.n;
  const std::size_t at = r.valid ? i : 0;
  static_cast<SearchInput<D, LabelT>&>(r) = loadSearchInput<D>(a, at, first);
  r.bound = first ? 0.0f : a.bounds[at];
}

/// Records a searched row's label (`moved`: it changed, or the first iteration), counting it as
/// changed.
template <typename LabelT>
__device__ __forceinline__ void writeLabel(const CompactArgs<LabelT>& a, std::size_t i,
                                           LabelT new_label, bool moved, std::uint32_t count,
                                           unsigned long long& changed) {
  if (moved) {
    changed += count;
    a.labels_out[i] = new_label;
    // Groups of equal rows: this group's rows take the new label after the assignment (its
    // segments listed).
    if (a.group_changed != nullptr && !a.groups_every) {
      const unsigned first = a.group_segment_first[i];
      const unsigned segments = a.group_segment_first[i + 1] - first;
      if (segments <= kListedSegments) {
        const unsigned at = atomicAdd(a.group_changed_count, segments);
        for (unsigned s = 0; s < segments; ++s)
          a.group_changed[at + s] = first + s;
      } else {  // large: the expansion's warps share its segments
        a.group_changed_large[atomicAdd(a.group_changed_count + 1, 1u)] = static_cast<unsigned>(i);
      }
    }
  } else if (a.labels_out != a.labels_in) {
    a.labels_out[i] = new_label;
  }
}

/// Records a row's label; when it changed, moves the row's sums between the clusters.
template <int D, typename LabelT>
__device__ __forceinline__ void settleLabel(const CompactArgs<LabelT>& a, const CompactBlock& b,
                                            std::size_t i, const float (&x)[D], std::uint32_t count,
                                            LabelT old_label, int label, bool first,
                                            unsigned long long& changed) {
  const LabelT new_label = static_cast<LabelT>(label);
  const bool moved = first || old_label != new_label;
  if (moved) moveRowSums<D>(b, compactExactDim(D) ? D : a.d, x, count, old_label, new_label, first);
  writeLabel(a, i, new_label, moved, count, changed);
}

/// First look at a row: true when its bounds settle it (its label stands; inertia and — after a
/// snapshot capture — the label recorded). Otherwise the row must be searched.
template <int D, typename LabelT>
__device__ __forceinline__ bool settleByBounds(const CompactArgs<LabelT>& a, const CompactBlock& b,
                                               std::size_t i, const CompactRow<D, LabelT>& r,
                                               double& inertia) {
  constexpr int R = centroidRow(D);
  // The own centroid's exact distance is the upper bound; while it is below every other
  // centroid's lower bound the label stands.
  const float dist = exactDistance<D>(r.x, b.rows + r.old_label * R, compactExactDim(D) ? D : a.d);
  const float lower = fmaxf(__fsub_rd(r.bound, b.drift_up), b.half_gap[r.old_label]);
  // √dist·(1 + slack) < lower, squared: no square root per row (the two roundings are far
  // below the slack).
  if (!(lower > 0.0f && dist * kSquaredSlack < lower * lower)) return false;
  inertia += static_cast<double>(dist) * r.count;
  if (a.labels_out != a.labels_in) a.labels_out[i] = r.old_label;
  return true;
}

/// The centroids in order of their projections' distance from p (nearest first), for searches
/// whose stop is a projection gap: |a·x − a·c| ≤ ‖x − c‖, so once the next gap alone passes a
/// distance, no centroid not yet reached is nearer.
struct ProjectionWalk {
  const float* projection;      // ascending
  const unsigned short* order;  // the centroid at each position
  int k;
  float p;
  int left, right;  // the next positions below and above p
  __device__ __forceinline__ ProjectionWalk(const float* projection_, const unsigned short* order_,
                                            int k_, float p_)
      : projection(projection_), order(order_), k(k_), p(p_) {
    int lo = 0, hi = k;
    while (lo < hi) {  // first position with projection ≥ p
      const int mid = (lo + hi) >> 1;
      if (projection[mid] < p)
        lo = mid + 1;
      else
        hi = mid;
    }
    left = lo - 1;
    right = lo;
  }
  /// The next centroid's projection gap; ∞ when every one has been taken.
  __device__ __forceinline__ float gap() const {
    const float gl = left >= 0 ? p - projection[left] : INFINITY;
    const float gr = right < k ? projection[right] - p : INFINITY;
    return fminf(gl, gr);
  }
  /// Takes the next centroid (the nearer side; the left one on equal gaps).
  __device__ __forceinline__ int take() {
    const float gl = left >= 0 ? p - projection[left] : INFINITY;
    const float gr = right < k ? projection[right] - p : INFINITY;
    return order[left >= 0 && (right >= k || gl <= gr) ? left-- : right++];
  }
};

/// The exact nearest of all k staged centroids to x (d ≤ 4: D = d), ties to the lower index —
/// the CPU backend's answer — by a walk over the centroids sorted by their projection on the
/// axis, outwards from a·x, nearest projection first. Every centroid not reached is farther than
/// the runner-up (its projection gap alone says so, with a margin above the rounding of the
/// scores and projections), so best and runner-up are those of the full search; a gap between
/// them below the rounding bound is settled with exact distances. Gives the label, its exact
/// distance, and a lower bound on the distance to every other centroid (∞ for k = 1). Points or
/// centroids near float's range (squares past 1e36) are searched with exact distances alone.
template <int D>
__device__ __forceinline__ int walkNearest(const CompactBlock& b, const float (&x)[D], int k, int d,
                                           float& dist, float& lower, unsigned& evaluated) {
  constexpr int R = centroidRow(D);
  float x2[D];
#pragma unroll
  for (int c = 0; c < D; ++c)
    x2[c] = -2.0f * x[c];
  float x_norm = 0.0f, px = 0.0f;
#pragma unroll
  for (int c = 0; c < D; ++c) {
    x_norm = fmaf(x[c], x[c], x_norm);
    px = fmaf(b.axis[c], x[c], px);
  }
  if (!(x_norm + b.top_norm < 1e36f)) {
    // Near float's range the scores ‖c‖² − 2x·c overflow: every distance exactly (the CPU's own
    // overflows included), and no bound.
    lower = 0.0f;
    evaluated += k;
    return exactNearestStaged<D>(x, b.rows, k, d, dist);
  }
  ProjectionWalk walk(b.projection, b.order, k, px);
  const float margin = 4e-5f * (x_norm + b.top_norm) + 1e-30f;
  float best = INFINITY, second = INFINITY;
  int label = 0;
  for (float g = walk.gap(); g < INFINITY; g = walk.gap()) {
    if (g * g > (second + x_norm) * 1.0001f + margin) break;  // never while second is ∞
    const int j = walk.take();
    const float s = fastScore<D>(x2, b.rows + j * R);
    ++evaluated;
    second = fminf(second, fmaxf(s, best));
    if (s < best || (s == best && j < label)) {  // among equal scores the lower index
      best = s;
      label = j;
    }
  }
  dist = exactDistance<D>(x, b.rows + label * R, d);
  lower = INFINITY;  // k = 1: no other centroid
  if (second < INFINITY) {
    // As in assignKernel: a gap below the rounding bound is settled with exact distances.
    const float reach = sqrtf(x_norm) + sqrtf(fmaxf(0.0f, second + x_norm));
    const float err = tieBound<D>(x_norm, b.rows[label * R + D], 1.01f * reach * reach);
    if (!(second - best > err)) {
      label = exactNearestStaged<D>(x, b.rows, k, d, dist);
      evaluated += k;
    }
    // Every other centroid is at least this far: the runner-up's score less its error.
    lower = sqrtf(fmaxf(0.0f, second + x_norm - err)) * (1.0f - kBoundSlack);
  }
  return label;
}

/// The full exact search of one row (walkNearest); stores the row's new lower bound, label and
/// sums.
template <int D, typename LabelT>
__device__ __forceinline__ void searchRow(const CompactArgs<LabelT>& a, const CompactBlock& b,
                                          std::size_t i, bool first, double& inertia,
                                          unsigned long long& changed, unsigned& evaluated) {
  const int d = compactExactDim(D) ? D : a.d;
  const SearchInput<D, LabelT> in = loadSearchInput<D>(a, i, first);
  float dist, lower;
  const int label = walkNearest<D>(b, in.x, a.k, d, dist, lower, evaluated);
  a.bounds[i] = __fadd_rd(lower, b.drift_down);
  inertia += static_cast<double>(dist) * in.count;
  settleLabel<D>(a, b, i, in.x, in.count, in.old_label, label, first, changed);
}

/// Combines two lanes' (best score, its index, runner-up score) into those of the union: the
/// lower score wins, equal scores the lower index; the runner-up is the smaller of the two
/// runners-up and the losing best (equal bests make it the best itself: a gap of zero).
__device__ __forceinline__ void warpCombineBest(float& best, int& label, float& second) {
  for (int offset = 16; offset > 0; offset >>= 1) {
    const float other_best = __shfl_xor_sync(kFullWarp, best, offset);
    const float other_second = __shfl_xor_sync(kFullWarp, second, offset);
    const int other_label = __shfl_xor_sync(kFullWarp, label, offset);
    second = fminf(fminf(second, other_second), fmaxf(best, other_best));
    if (other_best < best || (other_best == best && other_label < label)) {
      best = other_best;
      label = other_label;
    }
  }
}

/// The exact nearest of the k staged rows to x by the whole warp (lane l takes rows l, l + 32, …):
/// the CPU's exact distances, ties to the lower index. Every lane gets the label and its
/// distance. Warp-uniform. x: D floats in registers, or a pointer to them (exactDistance).
template <int D, typename X>
__device__ __forceinline__ int warpExactNearest(const X& x, const float* rows, int k, int d,
                                                float& distance) {
  constexpr int R = centroidRow(D);
  float best = INFINITY;
  int label = 0;
  for (int j = static_cast<int>(threadIdx.x) & 31; j < k; j += 32) {
    const float s = exactDistance<D>(x, rows + j * R, d);
    if (s < best) {
      best = s;
      label = j;
    }
  }
  float unused = INFINITY;
  warpCombineBest(best, label, unused);
  distance = best;
  return label;
}

/// searchRow for the zero-padded dimensions (D = 8, 16), where projections on one axis prune
/// little: the whole warp searches one row, lane l scoring centroids l, l + 32, …, then the
/// lanes combine. A row costs k/32 scores per lane instead of k in one thread; on small data
/// sets a block has a few searched rows, and one thread's serial search of all k was the
/// kernel's critical path. Same scores, ties, exact re-ranking and bound as searchRow, so the
/// same label; lane 0 stores the results. Warp-uniform: every lane calls it with the same row.
template <int D, typename LabelT>
__device__ __forceinline__ void warpSearchRow(const CompactArgs<LabelT>& a, const CompactBlock& b,
                                              std::size_t i, const SearchInput<D, LabelT>& in,
                                              bool first, double& inertia,
                                              unsigned long long& changed, unsigned& evaluated) {
  constexpr int R = centroidRow(D);
  const int d = a.d;
  const int k = a.k;
  const int lane = threadIdx.x & 31;
  const float(&x)[D] = in.x;
  const std::uint32_t count = in.count;
  const LabelT old_label = in.old_label;
  float x2[D];
  float x_norm = 0.0f;
#pragma unroll
  for (int c = 0; c < D; ++c) {
    x2[c] = -2.0f * x[c];
    x_norm = fmaf(x[c], x[c], x_norm);
  }
  float best = INFINITY, second = INFINITY;
  int label = 0;
  for (int j = lane; j < k; j += 32) {  // ascending: equal scores keep the lower index
    const float s = fastScore<D>(x2, b.rows + j * R);
    second = fminf(second, fmaxf(s, best));
    if (s < best) {
      best = s;
      label = j;
    }
  }
  warpCombineBest(best, label, second);
  float dist = exactDistance<D>(x, b.rows + label * R, d);
  float lower = k == 1 ? INFINITY : 0.0f;  // k = 1: no other centroid
  unsigned searched_here = k;
  // Near float's range the scores overflow: exact distances alone, and no bound.
  const bool huge = !(x_norm + b.top_norm < 1e36f);
  if (k > 1) {
    const float reach = sqrtf(x_norm) + sqrtf(fmaxf(0.0f, second + x_norm));
    const float err = tieBound<D>(x_norm, b.rows[label * R + D], 1.01f * reach * reach);
    if (huge || !(second - best > err)) {  // exact distances, ties to the lower index
      label = warpExactNearest<D>(x, b.rows, k, d, dist);
      searched_here += k;
    }
    if (!huge) lower = sqrtf(fmaxf(0.0f, second + x_norm - err)) * (1.0f - kBoundSlack);
  }
  const LabelT new_label = static_cast<LabelT>(label);
  const bool moved = first || old_label != new_label;
  if (moved) moveRowSumsByLanes<D>(b, d, x, count, old_label, new_label, first, lane);
  if (lane != 0) return;
  evaluated += searched_here;
  a.bounds[i] = __fadd_rd(lower, b.drift_down);
  inertia += static_cast<double>(dist) * count;
  writeLabel(a, i, new_label, moved, count, changed);
}

/// The assignment: each block its rows, grid-strided (P a thread per round), then its results
/// and moved sums.
template <int D, typename LabelT, int P = compactRowsPerThread(D)>
__global__ void __launch_bounds__(kCompactThreads) compactAssignKernel(CompactArgs<LabelT> a) {
  constexpr int kSearchQueue = compactSearchQueue(P);
  constexpr int kWarpQueue = kSearchQueue / (kCompactThreads / 32);
  extern __shared__ __align__(16) unsigned char shared_raw[];
  const int d = a.d;
  __shared__ float scale[D];
  // Row offsets from the block's first row, waiting for a search (D = 8, 16: kWarpQueue per warp).
  __shared__ unsigned queue[kSearchQueue];
  __shared__ int queued;
  const bool first = a.labels_in == nullptr;

  const int loop_mark = startCompactKernel(a.loop);  // tested after the set-up, which it overlaps
  // The first batch's loads go out before the block sets up, and overlap with it.
  const std::size_t batch = static_cast<std::size_t>(kCompactThreads) * P;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * batch;
  const std::size_t block_first = blockIdx.x * batch;
  CompactRow<D, LabelT> cur[P];
#pragma unroll
  for (int r = 0; r < P; ++r)
    loadCompactRow<D>(a, block_first + threadIdx.x + static_cast<std::size_t>(r) * kCompactThreads,
                      first, cur[r]);

  if (threadIdx.x == 0) queued = 0;
  const CompactBlock block = setUpCompactBlock<D>(a, d, shared_raw, scale);  // syncs
  if (a.loop.ended(loop_mark)) return;  // an earlier iteration of the launch ended it
  a.loop.clearMark();

  double inertia = 0.0;
  unsigned long long changed = 0;
  unsigned long long searched = 0;  // rows of this block searched: thread 0 (D = 8, 16: lane 0s)
  unsigned evaluated = 0;           // distances this thread computed (settled rows: one each)
  // D ≤ 4: unsettled rows wait in a block-wide queue and are searched a whole round of 256 at a
  // time, one per thread (`all`: the rest too, on the last batch), so the k scores run with
  // every lane busy. D = 8, 16: each warp queues its own rows and searches every one of them, a
  // warp per row, without block barriers (measured faster there; for D ≤ 4 the block's rounds
  // balance the searches across warps better).
  const int lane = static_cast<int>(threadIdx.x) & 31;
  unsigned* wq = queue + (threadIdx.x >> 5) * kWarpQueue;
  int wq_count = 0;  // warp-uniform
  auto search = [&](bool all) {
    if constexpr (compactExactDim(D)) {
      __syncthreads();  // the queue is complete
      const int total = queued;
      const int rounds = all ? total : total - total % kCompactThreads;
      for (int q = threadIdx.x; q < rounds; q += kCompactThreads)
        searchRow<D>(a, block, block_first + queue[q], first, inertia, changed, evaluated);
      if (threadIdx.x == 0) searched += static_cast<unsigned long long>(rounds);
      __syncthreads();                  // every lane has taken its entries
      const int left = total - rounds;  // fewer than a round: move them to the front
      for (int q = threadIdx.x; q < left; q += kCompactThreads)
        queue[q] = queue[rounds + q];
      if (threadIdx.x == 0) queued = left;
      __syncthreads();
    } else {
      __syncwarp();  // every lane's entries are in the warp's queue
      if constexpr (P == 1) {
        // Small data: each warp's rows are searched one after another, a chain of round trips;
        // the next row's inputs load while this one is searched. (The two-row kernel, which
        // serves large data at up to two blocks per multiprocessor, keeps its registers.)
        SearchInput<D, LabelT> next;
        if (wq_count > 0) next = loadSearchInput<D>(a, block_first + wq[0], first);
        for (int q = 0; q < wq_count; ++q) {
          const SearchInput<D, LabelT> in = next;
          if (q + 1 < wq_count) next = loadSearchInput<D>(a, block_first + wq[q + 1], first);
          warpSearchRow<D>(a, block, block_first + wq[q], in, first, inertia, changed, evaluated);
        }
      } else {
        for (int q = 0; q < wq_count; ++q) {
          const std::size_t i = block_first + wq[q];
          warpSearchRow<D>(a, block, i, loadSearchInput<D>(a, i, first), first, inertia, changed,
                           evaluated);
        }
      }
      if (lane == 0) searched += static_cast<unsigned long long>(wq_count);
      wq_count = 0;
      __syncwarp();
    }
  };
  // Every thread runs the same batches (uniform loop), so the block can synchronise in it.
  for (std::size_t base = block_first; base < a.n; base += stride) {
#pragma unroll
    for (int r = 0; r < P; ++r) {
      const std::size_t i = base + threadIdx.x + static_cast<std::size_t>(r) * kCompactThreads;
      if constexpr (compactExactDim(D)) {
        if (!cur[r].valid) continue;
        if (first || !settleByBounds<D>(a, block, i, cur[r], inertia))
          queue[atomicAdd(&queued, 1)] = static_cast<unsigned>(i - block_first);
        else
          ++evaluated;
      } else {  // every lane takes part in the ballot
        bool queue_it = false;
        if (cur[r].valid) {
          if (first || !settleByBounds<D>(a, block, i, cur[r], inertia))
            queue_it = true;
          else
            ++evaluated;
        }
        const unsigned ballot = __ballot_sync(kFullWarp, queue_it);
        if (queue_it)
          wq[wq_count + __popc(ballot & ((1u << lane) - 1u))] =
              static_cast<unsigned>(i - block_first);
        wq_count += __popc(ballot);
      }
    }
    if (base + stride < a.n) {
#pragma unroll
      for (int r = 0; r < P; ++r)
        loadCompactRow<D>(
            a, base + stride + threadIdx.x + static_cast<std::size_t>(r) * kCompactThreads, first,
            cur[r]);
    }
    search(base + stride >= a.n);
  }

  writeBlockResults(a, {inertia, changed, searched, evaluated});  // its barrier: sums complete
  addBlockSums(a, block, d);
}

}  // namespace kms::cuda
