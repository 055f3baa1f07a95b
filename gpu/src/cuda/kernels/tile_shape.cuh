// What the tile kernel (tile_kernel.cuh) knows of each tile of the point tiles (tile_index.cuh):
// a ball that holds its points, and the moments that give its inertia about any centroid.
#pragma once

#include <cstdint>

namespace kms::cuda {

/// Rows per tile: a warp's lanes take a tile's rows one each when it must be looked at row by row.
inline constexpr int kTileRows = 32;
/// A tile whose rows do not all carry the same label (or, before the first iteration, any tile).
inline constexpr unsigned short kMixedTile = 0xffff;

/// One tile of up to kTileRows consecutive rows of the sorted points, with weights w (the rows'
/// counts, or 1). m is the weighted mean rounded to float; every row x of the tile lies within
/// `radius` of m (‖x − m‖ ≤ radius in real arithmetic: computed in double, rounded up). The
/// inertia about a centroid c is Σ w‖x − c‖² = scatter + 2(m − c)·offset + weight·‖m − c‖²,
/// formed in double (scatter = Σ w‖x − m‖², offset = Σ w(x − m), both from double sums).
struct __align__(16) TileShape {
  float centre[4];  ///< m (coordinates past d are 0)
  float offset[4];  ///< Σ w(x − m), rounded to float
  float radius;
  float weight;    ///< Σ w (the exact count is the last column of the tile's sums)
  double scatter;  ///< Σ w‖x − m‖²
};
static_assert(sizeof(TileShape) == 48, "three 16-byte loads per tile");

/// What the tile kernel's warps share during an iteration (zeroed before it, read and zeroed
/// again by the update): the tickets taken after each warp's first chunk, and the inertia as a
/// 128-bit integer on a fixed grid of 2^inertia_exp, so that its sum does not depend on which warp
/// took which chunk. (Each chunk's own part is formed in a fixed order, in double, then put on the
/// grid.)
struct TileIteration {
  unsigned long long inertia_lo;
  unsigned long long inertia_hi;
  unsigned int infinite;  ///< some distance overflowed: the inertia is ∞, as on the CPU
  unsigned int next_chunk;
};

/// Cost classes of the tile kernel's chunks (TileSchedule): class c holds the chunks that took
/// 2^(c + 9) to 2^(c + 10) SM cycles (the first and last classes open-ended: below 1,024 and from
/// 2^24 = 16.8 million on).
inline constexpr int kTileCostClasses = 16;

/// The order in which the tile kernel takes its chunks (TileIndex::schedule; a state that
/// outlives runs, set to epoch 1 only when the tiles are built). Chunks cost from a few tests to a
/// hundred times that when their tiles' rows must be looked at one by one, and a warp takes
/// only a couple of them in an iteration: taken in a fixed order, the iteration ended waiting
/// for costly chunks taken last. Each launch lists its chunks by the class of their cost, and the
/// next launch takes them class by class, the costliest first (costs change little from one
/// iteration to the next): the longest-first rule of scheduling. The order decides nothing else
/// — sums and the inertia are exact integers, added in any order — so a timing-based order
/// leaves every result as it was.
struct TileSchedule {
  /// The tile kernel's launch (from 1): launch e lists its chunks in the lists of parity e & 1
  /// and takes them from those of the other parity (filled by launch e − 1); the update advances
  /// it and empties the lists the next launch fills.
  unsigned int epoch;
  unsigned int count[2][kTileCostClasses];  ///< chunks in each list
};

/// Thread 0 of the update, after the tile kernel: the next launch's epoch and its empty lists.
__device__ __forceinline__ void advanceTileSchedule(TileSchedule* s) {
  const unsigned int e = s->epoch + 1;
  s->epoch = e;
  for (int c = 0; c < kTileCostClasses; ++c)
    s->count[e & 1][c] = 0;
}

/// The inertia a TileIteration holds, in double.
__device__ __forceinline__ double tileInertiaTotal(const TileIteration& s, int inertia_exp) {
  if (s.infinite) return INFINITY;
  return ldexp(static_cast<double>(s.inertia_hi), 64 + inertia_exp) +
         ldexp(static_cast<double>(s.inertia_lo), inertia_exp);
}

}  // namespace kms::cuda
