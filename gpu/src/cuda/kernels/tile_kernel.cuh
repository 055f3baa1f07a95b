// The assignment of point tiles (tile_index.cuh): plain points of d ≤ 4 (or distinct values
// with counts), k ≤ 1,024 — the compact kernels' iteration (compact_kernel.cuh: sums kept across
// iterations, the same update) with a whole tile of 32 rows settled at once wherever its ball
// lies inside one centroid's region.
//
// A tile is a ball (centre m, radius r) holding its rows. A tile whose rows all carry label o
// (its owner) is settled by Hamerly's tests on the ball: every row is within reach = ‖m − c_o‖ + r
// of c_o, and reach is below c_o's half gap or below the tile's bound less the run's drift (a
// lower bound on every row's distance to every other centroid, kept like the compact kernels'
// bound per row). Its inertia then comes from its moments (scatter + 2(m − c)·offset +
// w‖m − c‖², in double) and not one row is read or written.
// Otherwise the tile's thread walks the centroids sorted along the data's principal axis outwards
// from m's projection and keeps every centroid b whose bisector with a nearer centroid a does not
// leave the whole ball on a's side (‖x − b‖² − ‖x − a‖² is linear in x: its value at m less
// 2r‖a − b‖ bounds it over the ball); the walk goes on until the projection gap alone rules out
// every centroid not reached, and the nearer of the runner-up met and that gap gives the tile's
// new bound.
//  - One candidate: the tile is owned by it. If its rows carried another single label, the
//    tile's exact sums (precomputed, Σ w·q(x) and Σ w) move between the two clusters and its
//    labels are rewritten; nothing else is read.
//  - Several (at most kTileCandidates): the warp takes the tile's rows one per lane and compares
//    each row's exact distance — the CPU backend's `exact::squaredDistance` — with the
//    candidates only, ties to the lower index. That is the CPU's label: the centroids left out
//    are farther by a margin no rounding can close.
//  - More: each row runs the compact kernels' exact search (walkNearest).
// Margins: the walk's and the ball tests' distances are float values within a few units of
// rounding of the real ones; every test carries a relative margin of 1e-4 and an absolute one
// of 1e-5·(‖m‖ + max‖c‖) + 1e-18 — far above that rounding, the projections' and the CPU's own,
// also where squares fall among float's subnormals. A ball that reaches 1e18 (squares that could
// overflow) is searched row by row.
//
// Labels stay in the original row order (tile rows name their original index), so snapshots,
// re-seeding and assign() read them as they always did; a copy in the sorted order lets a tile's
// rows read theirs in one load. Warps take chunks of 32 tiles as they become free, the costliest
// of the last launch first (TileSchedule, tile_schedule.cuh); each chunk's inertia, formed in a
// fixed order, is added to a 128-bit integer on a fixed grid, so the total does not depend on which
// warp took which chunk (TileIteration).
#pragma once

#include <cstdint>

#include "cuda/kernels/compact_kernel.cuh"
#include "cuda/kernels/tile_schedule.cuh"
#include "cuda/kernels/tile_shape.cuh"
#include "cuda/tuning.h"

namespace kms::cuda {

/// Candidates a mixed tile's rows are compared with before they search all k.
inline constexpr int kTileCandidates = 8;

namespace tile {

/// What a tile needs after its thread looked at it.
enum Work : int {
  kNone = 0,     ///< settled on its labels: nothing to write
  kRewrite = 1,  ///< settled on its labels, which a snapshot capture needs in the other half
  kFill = 2,     ///< settled on a new single label: written to every row
  kListed = 3,   ///< rows compared with the listed candidates
  kAll = 4,      ///< rows search all k (walkNearest)
};

/// Up to kTileCandidates (8) centroid indices (< 2^16), two per word, in registers: named words
/// and selects, since any array here (even one indexed in an unrolled loop) ended up in local
/// memory.
struct Candidates {
  unsigned w0, w1, w2, w3;
  int count;
  __device__ __forceinline__ int at(int s) const {
    const int q = s >> 1;
    const unsigned w = q == 0 ? w0 : q == 1 ? w1 : q == 2 ? w2 : w3;
    return static_cast<int>((s & 1) ? (w >> 16) : (w & 0xffffu));
  }
  __device__ __forceinline__ void set(int s, int j) {
    const int q = s >> 1;
    const unsigned keep = (s & 1) ? 0x0000ffffu : 0xffff0000u;
    const unsigned put = static_cast<unsigned>(j) << ((s & 1) ? 16 : 0);
    w0 = q == 0 ? ((w0 & keep) | put) : w0;
    w1 = q == 1 ? ((w1 & keep) | put) : w1;
    w2 = q == 2 ? ((w2 & keep) | put) : w2;
    w3 = q == 3 ? ((w3 & keep) | put) : w3;
  }
  __device__ __forceinline__ Candidates from(int lane) const {  // warp-uniform broadcast
    return {__shfl_sync(kFullWarp, w0, lane), __shfl_sync(kFullWarp, w1, lane),
            __shfl_sync(kFullWarp, w2, lane), __shfl_sync(kFullWarp, w3, lane),
            __shfl_sync(kFullWarp, count, lane)};
  }
};
static_assert(kTileCandidates == 8, "Candidates holds eight indices");

/// √x for the bisector test (beyondBisector; never for a label, a sum or a stored bound): the
/// hardware's approximate root (PTX sqrt.approx.ftz, one instruction, against IEEE sqrtf's
/// refinement and its branch for special values). Over every non-negative float its relative
/// error is below 1.0·10⁻⁷ (2^−23.25: checked exhaustively on the GPU); squares below float's
/// normal range (roots below 1.1·10⁻¹⁹) give 0. The test's margins — relative 10⁻⁴ of the
/// squared reaches, absolute at least 10⁻¹⁸·2r — exceed the error this makes in 2r·√x by more
/// than a thousand times. (The IEEE roots had been a tenth of the tile kernel's time; the same
/// approximate root in the walk's stop and bound and in the owner's test measured slower at
/// large k, so those stay IEEE: docs/experiments.md.)
__device__ __forceinline__ float boundSqrt(float x) {
  float r;
  asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
}

/// ‖u − v‖² in float (within a few units of rounding of the real value).
template <int D>
__device__ __forceinline__ float distance2(const float (&u)[D], const float* v) {
  float d2 = 0.0f;
#pragma unroll
  for (int c = 0; c < D; ++c) {
    const float diff = u[c] - v[c];
    d2 = fmaf(diff, diff, d2);
  }
  return d2;
}

/// Σ w‖x − c‖² over the tile's rows, from its moments (double).
template <int D>
__device__ __forceinline__ double tileInertia(const TileShape& s, const float* row) {
  double cross = 0.0, squared = 0.0;
#pragma unroll
  for (int c = 0; c < D; ++c) {
    const double diff = static_cast<double>(s.centre[c]) - static_cast<double>(row[c]);
    cross += diff * static_cast<double>(s.offset[c]);
    squared += diff * diff;
  }
  return s.scatter + 2.0 * cross + static_cast<double>(s.weight) * squared;
}

/// Moves (or, on the first iteration, adds) a whole tile's exact sums to cluster `to`.
__device__ __forceinline__ void moveTileSums(const CompactBlock& b, const long long* sums, int d,
                                             int from, int to, bool first) {
  const std::size_t t = static_cast<std::size_t>(to) * (d + 1);
  const std::size_t f = static_cast<std::size_t>(from) * (d + 1);
  for (int c = 0; c <= d; ++c) {
    const long long v = sums[c];
    atomicAddWide64(b.acc_lo + t + c, b.acc_hi + t + c, v);
    if (!first) atomicAddWide64(b.acc_lo + f + c, b.acc_hi + f + c, -v);
  }
}

/// The ball around m of radius r lies on a's side of the bisector of a and b, with a margin no
/// rounding can close: for every row x of the ball ‖x − b‖² − ‖x − a‖² exceeds the rounding of
/// both (the CPU's and these float values'). That difference is linear in x: at m it is
/// d2b − d2a, and across the ball it falls by at most 2r‖a − b‖. `da` = √d2a; a's coordinates
/// and b's row give ‖a − b‖, computed only when its upper bound ‖m − a‖ + ‖m − b‖ does not
/// already put the ball beyond (as it does for most centroids the walk meets).
template <int D>
__device__ __forceinline__ bool beyondBisector(float d2a, float da, const float (&ca)[D], float d2b,
                                               const float* rb, float radius, float margin) {
  const float db = boundSqrt(d2b);
  const float err = 1e-4f * ((da + radius) * (da + radius) + (db + radius) * (db + radius)) +
                    margin * (da + db + 2.0f * radius + margin);
  const float gain = d2b - d2a;
  if (gain - 2.0f * radius * (da + db) > err) return true;
  return gain - 2.0f * radius * boundSqrt(distance2<D>(ca, rb)) > err;
}

/// The walk: every centroid that may be nearest to a row of the ball (m, r) — at most
/// kTileCandidates of them in `list`, or `overflow` — and, when there is one, a lower bound
/// `lower` on the distance from every row to every other centroid. `visited` counts the
/// centroids scored. A centroid is left out when the ball lies beyond its bisector with a nearer
/// one (beyondBisector). The walk goes on until the projection gap alone puts every centroid not
/// reached farther than the nearest's distance plus the ball's diameter (no candidate left);
/// `lower` is the nearer of the runner-up met and that gap, less r, with margins. (Walking on
/// past the runner-up's distance, for a tighter bound, measured slower.)
template <int D>
__device__ __forceinline__ void collectCandidates(const CompactBlock& b, int k, const float (&m)[D],
                                                  float radius, float margin, Candidates& list,
                                                  float& lower, bool& overflow, unsigned& visited) {
  constexpr int R = centroidRow(D);
  float pm = 0.0f;
#pragma unroll
  for (int c = 0; c < D; ++c)
    pm = fmaf(b.axis[c], m[c], pm);
  ProjectionWalk walk(b.projection, b.order, k, pm);
  float best2 = INFINITY, second2 = INFINITY;
  float best_d = INFINITY;  // √best2
  int best = -1;
  float cb[D];  // the nearest centroid so far
#pragma unroll
  for (int c = 0; c < D; ++c)
    cb[c] = 0.0f;
  list.count = 0;
  overflow = false;
  lower = 0.0f;
  // Every row is within √best2 + r of the nearest; a centroid whose projection is farther than
  // that plus r from m's is farther from every row: the walk stops at a gap past `stop`, formed
  // again only when the nearest changes. ∞ (never stops) while best2 is ∞.
  float stop = INFINITY;
  // Keeps the candidates that are not beyond the nearest's bisector (exclusion by any centroid
  // is final, so this may run with a nearest found later or earlier).
  auto refilter = [&] {
    int kept = 0;
    for (int s = 0; s < list.count; ++s) {
      const int j = list.at(s);
      const float* rj = b.rows + j * R;
      if (j == best ||
          !beyondBisector<D>(best2, best_d, cb, distance2<D>(m, rj), rj, radius, margin))
        list.set(kept++, j);
    }
    list.count = kept;
  };
  float g = walk.gap();  // where the walk stops: ∞ when it reached every centroid
  for (; g < INFINITY; g = walk.gap()) {
    if (g > stop) break;
    const int j = walk.take();
    const float* rj = b.rows + j * R;
    const float d2 = distance2<D>(m, rj);
    ++visited;
    if (d2 < best2) {
      second2 = best2;
      best2 = d2;
      best_d = sqrtf(d2);
      best = j;
#pragma unroll
      for (int c = 0; c < D; ++c)
        cb[c] = rj[c];
      stop = (best_d + 2.0f * radius) * 1.0001f + margin;
    } else {
      second2 = fminf(second2, d2);
      if (beyondBisector<D>(best2, best_d, cb, d2, rj, radius, margin)) continue;
    }
    if (list.count == kTileCandidates) {  // full: drop those the nearest now excludes
      refilter();
      if (list.count == kTileCandidates) {
        overflow = true;
        return;
      }
    }
    list.set(list.count++, j);
  }
  if (!(stop < 1e18f)) {  // (∞ while no centroid was reached)
    overflow = true;      // squared distances could overflow: every row searches in full
    return;
  }
  refilter();  // the nearest may have come late
  // Every other centroid is at least min(runner-up, stopping gap) from m (float distances within
  // a few units of rounding; the gap within the projections' rounding, which the margin covers).
  lower = fmaxf(0.0f, (fminf(sqrtf(second2), g) - radius) * 0.9999f - margin);
}

/// The rows of one tile that needs them, a row per lane: loads first (for several tiles at once,
/// so their latencies overlap), then labels.
struct RowLoad {
  float x[4];
  std::uint32_t row;  ///< original index
  std::uint32_t count;
  unsigned short old_label;
  bool here;
};

template <int D, typename LabelT>
__device__ __forceinline__ void loadTileRow(const CompactArgs<LabelT>& a, std::size_t p, int work,
                                            bool first, RowLoad& r) {
  r.here = work != kNone && p < a.n;
  r.row = r.here ? __ldg(a.tile_rows + p) : 0u;
  const bool rows = r.here && work >= kListed;
#pragma unroll
  for (int c = 0; c < D; ++c)
    r.x[c] = rows ? __ldg(a.tile_points + p * D + c) : 0.0f;
  r.count = rows && a.tile_counts ? __ldg(a.tile_counts + p) : 1u;
  r.old_label = rows && !first ? a.tile_labels[p] : 0;
}

/// One row of a tile that needs its rows: its exact label among the candidates (the CPU's
/// exact::squaredDistance, ties to the lower index) or over all k, its inertia, its labels (both
/// orders) and sums.
template <int D, typename LabelT>
__device__ __forceinline__ void settleTileRow(const CompactArgs<LabelT>& a, const CompactBlock& b,
                                              std::size_t p, const RowLoad& r, int work,
                                              const Candidates& list, bool first, bool rewrite,
                                              double& inertia, unsigned long long& changed,
                                              unsigned& evaluated) {
  constexpr int R = centroidRow(D);
  float x[D];
#pragma unroll
  for (int c = 0; c < D; ++c)
    x[c] = r.x[c];
  int label;
  float dist;
  if (work == kAll) {
    float lower;
    label = walkNearest<D>(b, x, a.k, D, dist, lower, evaluated);
  } else {
    label = list.at(0);
    dist = exactDistance<D>(x, b.rows + label * R, D);
    for (int s = 1; s < list.count; ++s) {
      const int j = list.at(s);
      const float e = exactDistance<D>(x, b.rows + j * R, D);
      if (e < dist || (e == dist && j < label)) {
        dist = e;
        label = j;
      }
    }
    evaluated += list.count;
  }
  inertia += static_cast<double>(dist) * r.count;
  if (first || r.old_label != label) {
    changed += r.count;
    moveRowSums<D>(b, D, x, r.count, r.old_label, label, first);
    a.labels_out[r.row] = static_cast<LabelT>(label);
    a.tile_labels[p] = static_cast<unsigned short>(label);
  } else if (rewrite) {
    a.labels_out[r.row] = static_cast<LabelT>(label);
  }
}

/// A 128-bit unsigned sum in two words (lo, hi), added to exactly: integer sums do not depend on
/// their order.
struct Wide128 {
  unsigned long long lo = 0, hi = 0;
  /// Adds x ≥ 0 on the grid of 2^exp (rounded to the nearest unit). x ≤ 2^120 units: every
  /// inertia is below that (TileIteration).
  __device__ __forceinline__ void add(double x, int exp) {
    const double units = ldexp(fmax(x, 0.0), -exp);
    const double high = floor(ldexp(units, -64));  // exact: a power-of-two scaling, then floor
    const unsigned long long h = static_cast<unsigned long long>(high);
    const unsigned long long l = __double2ull_rn(units - ldexp(high, 64));  // exact difference
    add(Wide128{l, h});
  }
  /// Adds another such sum.
  __device__ __forceinline__ void add(const Wide128& o) {
    lo += o.lo;
    hi += o.hi + (lo < o.lo ? 1ull : 0ull);
  }
  /// Adds this sum to one in global memory (two atomics; the carry from the old low word).
  __device__ __forceinline__ void addTo(unsigned long long* total_lo,
                                        unsigned long long* total_hi) const {
    const unsigned long long old = atomicAdd(total_lo, lo);
    atomicAdd(total_hi, hi + (old + lo < old ? 1ull : 0ull));
  }
};

}  // namespace tile

template <int D, typename LabelT>
__global__ void __launch_bounds__(kCompactThreads, 3) tileAssignKernel(CompactArgs<LabelT> a) {
  static_assert(D <= 4, "tiles serve d ≤ 4");
  constexpr int R = centroidRow(D);
  extern __shared__ __align__(16) unsigned char shared_raw[];
  const int k = a.k;
  __shared__ float scale[D];
  const bool first = a.labels_in == nullptr;
  const int loop_mark = startCompactKernel(a.loop);  // tested after the set-up, which it overlaps
  // Labels go to another half than they came from (a snapshot capture): every row is written.
  const bool rewrite = a.labels_out != a.labels_in;
  // This launch's order (TileSchedule): the chunks of the last launch by its cost classes, the
  // costliest first; its class sizes in shared memory, loaded before the block's set-up syncs.
  const unsigned epoch = a.tile_schedule->epoch;
  __shared__ unsigned class_size[kTileCostClasses];
  __shared__ BlockListing listing;  // this launch's chunks as they finish, for the next
  if (threadIdx.x < kTileCostClasses) {
    class_size[threadIdx.x] = a.tile_schedule->count[(epoch + 1) & 1][threadIdx.x];
    listing.class_count[threadIdx.x] = 0u;
  }
  if (threadIdx.x == 0) listing.count = 0u;
  const CompactBlock block = setUpCompactBlock<D>(a, D, shared_raw, scale);  // syncs
  if (a.loop.ended(loop_mark)) return;  // an earlier iteration of the launch ended it
  a.loop.clearMark();
  const float* rows = block.rows;
  const float* half_gap = block.half_gap;
  const float top_reach = sqrtf(block.top_norm);

  tile::Wide128 warp_inertia;  // lane 0: the inertia of every chunk this warp took
  bool infinite = false;
  unsigned long long changed = 0;
  unsigned long long searched = 0;  // rows looked at one by one (lane 0 of each warp counts)
  unsigned evaluated = 0;           // distances computed by this thread
  const int lane = static_cast<int>(threadIdx.x) & 31;
  // Warp-uniform loop over chunks of 32 tiles, one tile per lane, each warp taking the next chunk
  // as it becomes free (chunk costs vary a hundredfold: a fixed share per warp left most of the
  // block waiting at its end for one warp), the costliest first (TileSchedule) — or, on a
  // launch without a full order (the first), scattered over the Morton order
  // (TileIndex::chunkStride). Then the tiles that need their rows, a row per lane.
  // A warp's first ticket is its place in the grid (every warp starts at once: a counter would
  // only serialise them), the later ones come from the counter, after those.
  const unsigned warps = gridDim.x * (kCompactThreads / 32);
  bool first_chunk = true;
  for (;;) {
    unsigned chunk = kNoChunk;
    unsigned started = 0;  // lane 0: the SM clock when it took the chunk
    if (lane == 0) {
      const unsigned next = first_chunk ? blockIdx.x * (kCompactThreads / 32) + (threadIdx.x >> 5)
                                        : warps + atomicAdd(&a.tile_iteration->next_chunk, 1u);
      chunk = scheduledChunk(a, class_size, epoch, next);
      started = static_cast<unsigned>(clock());
    }
    chunk = __shfl_sync(kFullWarp, chunk, 0);
    if (chunk == kNoChunk) break;
    first_chunk = false;
    const std::size_t base = static_cast<std::size_t>(chunk) * 32;
    double inertia = 0.0;  // this lane's part of the chunk's inertia, in a fixed order
    const std::size_t t = base + lane;
    int work = tile::kNone;
    int label = 0;
    tile::Candidates list{0u, 0u, 0u, 0u, 0};
    if (t < a.tiles) {
      const TileShape shape = a.tile_shapes[t];
      const int owner = first ? kMixedTile : a.tile_owners[t];
      float m[D];
      float m_norm = 0.0f;
#pragma unroll
      for (int c = 0; c < D; ++c) {
        m[c] = shape.centre[c];
        m_norm = fmaf(m[c], m[c], m_norm);
      }
      const float margin = 1e-5f * (sqrtf(m_norm) + top_reach) + 1e-18f;
      bool settled = false;
      if (owner != kMixedTile) {
        // Hamerly's tests on the ball, against the current centroids: every row is within
        // `reach` of its centroid, and every other centroid is farther than the tile's bound (less
        // the drift since it was stored) and than twice the centroid's half gap less `reach`.
        const float reach =
            (sqrtf(tile::distance2<D>(m, rows + owner * R)) + shape.radius) * 1.0001f + margin;
        const float lower = fmaxf(__fsub_rd(a.tile_bounds[t], block.drift_up), half_gap[owner]);
        ++evaluated;
        if (reach < lower && reach < 1e18f) {
          settled = true;
          label = owner;
          work = rewrite ? tile::kRewrite : tile::kNone;
        }
      }
      if (!settled) {
        bool overflow = false;
        float lower = 0.0f;
        tile::collectCandidates<D>(block, k, m, shape.radius, margin, list, lower, overflow,
                                   evaluated);
        if (overflow) {
          work = tile::kAll;
        } else if (list.count == 1) {
          label = list.at(0);
          settled = true;
          a.tile_bounds[t] = __fadd_rd(lower, block.drift_down);
          if (label == owner) {
            work = rewrite ? tile::kRewrite : tile::kNone;
          } else if (first || owner != kMixedTile) {  // one label to another: move the tile
            tile::moveTileSums(block, a.tile_sums + t * (D + 1), D, owner, label, first);
            changed += static_cast<unsigned long long>(a.tile_sums[t * (D + 1) + D]);
            work = tile::kFill;
          } else {  // rows of several labels join one: each row's sums move on its own
            work = tile::kListed;
          }
        } else {
          work = tile::kListed;
        }
        const int next = list.count == 1 && !overflow ? label : kMixedTile;
        if (first || next != owner) a.tile_owners[t] = static_cast<unsigned short>(next);
      }
      if (settled && work != tile::kListed)
        inertia += tile::tileInertia<D>(shape, rows + label * R);
    }
    unsigned pending = __ballot_sync(kFullWarp, work != tile::kNone);
    while (pending != 0) {  // warp-uniform
      int src[kTileBatch], kind[kTileBatch];
      tile::RowLoad load[kTileBatch];
#pragma unroll
      for (int g = 0; g < kTileBatch; ++g) {
        src[g] = pending != 0 ? __ffs(pending) - 1 : 0;
        const bool any = pending != 0;
        pending &= pending - 1;
        kind[g] = any ? __shfl_sync(kFullWarp, work, src[g]) : tile::kNone;
        tile::loadTileRow<D>(a, (base + src[g]) * kTileRows + lane, kind[g], first, load[g]);
      }
      // One copy of the row code (not unrolled: four copies of walkNearest cost registers); the
      // batch moves down by one after each tile.
#pragma unroll 1
      for (int g = 0; g < kTileBatch; ++g) {
        if (kind[0] != tile::kNone) {
          const std::size_t p = (base + src[0]) * kTileRows + lane;
          if (kind[0] == tile::kRewrite || kind[0] == tile::kFill) {
            const int fill = __shfl_sync(kFullWarp, label, src[0]);
            if (load[0].here) {
              a.labels_out[load[0].row] = static_cast<LabelT>(fill);
              if (kind[0] == tile::kFill) a.tile_labels[p] = static_cast<unsigned short>(fill);
            }
          } else {
            const tile::Candidates cl = list.from(src[0]);
            if (load[0].here)
              tile::settleTileRow<D>(a, block, p, load[0], kind[0], cl, first, rewrite, inertia,
                                     changed, evaluated);
            if (lane == 0) {
              const std::size_t left = a.n - (base + src[0]) * kTileRows;
              searched += left < kTileRows ? left : kTileRows;
            }
          }
        }
#pragma unroll
        for (int h = 0; h + 1 < kTileBatch; ++h) {
          src[h] = src[h + 1];
          kind[h] = kind[h + 1];
          load[h] = load[h + 1];
        }
      }
    }
    // The chunk's inertia in a fixed order (lane 0's butterfly), then on the integer grid.
    for (int offset = 16; offset > 0; offset >>= 1)
      inertia += __shfl_xor_sync(kFullWarp, inertia, offset);
    if (lane == 0) {
      if (isfinite(inertia))
        warp_inertia.add(inertia, a.inertia_exp);
      else
        infinite = true;
      listChunk(a, listing, epoch, chunk, static_cast<unsigned>(clock()) - started);
    }
  }
  // The warps' inertia, summed by the block (exactly: integers) and added to the grid's total
  // once (a warp's own atomics, whose carry waits for the low word's old value, had been a
  // few percent of the samples at the warps' ends: Nsight Compute, real photo k = 64).
  constexpr int kWarps = kCompactThreads / 32;
  __shared__ unsigned long long block_inertia[2][kWarps];  // each warp's low and high words
  __shared__ unsigned block_infinite[kWarps];
  if (lane == 0) {
    block_inertia[0][threadIdx.x >> 5] = warp_inertia.lo;
    block_inertia[1][threadIdx.x >> 5] = warp_inertia.hi;
    block_infinite[threadIdx.x >> 5] = infinite ? 1u : 0u;
  }

  // As compactAssignKernel: the block's scalars (its inertia goes to the grid's), then its sums
  // into the kept totals.
  writeBlockResults(a, {0.0, changed, searched, evaluated});  // its barrier: sums complete
  if (threadIdx.x == 0) {
    tile::Wide128 sum;
    unsigned any_infinite = 0;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) {
      sum.add(tile::Wide128{block_inertia[0][w], block_inertia[1][w]});
      any_infinite |= block_infinite[w];
    }
    sum.addTo(&a.tile_iteration->inertia_lo, &a.tile_iteration->inertia_hi);
    if (any_infinite) atomicOr(&a.tile_iteration->infinite, 1u);
  }
  writeBlockListing(a, listing, epoch);
  addBlockSums(a, block, D);
}

}  // namespace kms::cuda
