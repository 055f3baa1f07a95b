// The order in which the tile kernel's warps take chunks of 32 tiles (TileSchedule,
// tile_shape.cuh): each launch lists its chunks in classes of their measured cost, and the next
// takes them class by class, the costliest first. Only the time depends on it (tile_kernel.cuh).
#pragma once

#include "cuda/kernels/compact_args.cuh"
#include "cuda/kernels/tile_shape.cuh"

namespace kms::cuda {

/// A chunk index that is none (the launch's chunks are all taken).
inline constexpr unsigned kNoChunk = ~0u;

/// List c of the schedule's lists of `parity` (TileSchedule): tile_chunks entries.
template <typename LabelT>
__device__ __forceinline__ unsigned* scheduleList(const CompactArgs<LabelT>& a, unsigned parity,
                                                  int c) {
  return a.tile_sched_lists + (parity * kTileCostClasses + c) * a.tile_chunks;
}

/// The chunk a launch takes `next`-th (TileSchedule): with the last launch's order complete (its
/// classes hold every chunk once), class after class from the costliest, else the scattered
/// order; kNoChunk past the last.
template <typename LabelT>
__device__ __forceinline__ unsigned scheduledChunk(const CompactArgs<LabelT>& a,
                                                   const unsigned* class_size, unsigned epoch,
                                                   unsigned next) {
  if (next >= a.tile_chunks) return kNoChunk;
  unsigned listed = 0;
#pragma unroll
  for (int c = 0; c < kTileCostClasses; ++c)
    listed += class_size[c];
  if (listed != a.tile_chunks)
    return static_cast<unsigned>(next * a.tile_chunk_stride % a.tile_chunks);
  for (int c = kTileCostClasses - 1;; --c) {
    if (next < class_size[c] || c == 0) return scheduleList(a, (epoch + 1) & 1, c)[next];
    next -= class_size[c];
  }
}

/// Chunks a block lists in shared memory (BlockListing); past them, straight into the lists.
inline constexpr int kBlockListed = 512;

/// The chunks one block took, listed for the next launch (TileSchedule) in shared memory as they
/// finish, and written into the launch's lists at the block's end with one atomic per cost class
/// (a chunk's own atomic for its place, and the store that waited for it, had been a tenth of
/// the warps' samples: docs/experiments.md).
struct BlockListing {
  unsigned count;  ///< chunks listed (the first kBlockListed kept here)
  unsigned class_count[kTileCostClasses];
  unsigned class_base[kTileCostClasses];  ///< their first place in each class's list
  unsigned chunk[kBlockListed];
  unsigned place[kBlockListed];  ///< class << 16 | place among the block's chunks of the class
};

/// Lane 0, after a chunk: lists it for the next launch in the class of its cost (`cycles`, the
/// SM clock from taking the chunk to its inertia): class ⌊log₂ cycles⌋ − 9, within the classes —
/// in the block's listing, or when that is full, straight into its class's list. Never past the
/// list: should a launch ever miss its advance, the lists overfill, the next launch finds them
/// incomplete and takes the scattered order.
template <typename LabelT>
__device__ __forceinline__ void listChunk(const CompactArgs<LabelT>& a, BlockListing& listing,
                                          unsigned epoch, unsigned chunk, unsigned cycles) {
  const int log2 = 31 - __clz(cycles | 1u);
  const int c = min(kTileCostClasses - 1, max(0, log2 - 9));
  const unsigned e = atomicAdd(&listing.count, 1u);
  if (e < kBlockListed) {
    listing.chunk[e] = chunk;
    listing.place[e] = static_cast<unsigned>(c) << 16 | atomicAdd(&listing.class_count[c], 1u);
    return;
  }
  const unsigned slot = atomicAdd(&a.tile_schedule->count[epoch & 1][c], 1u);
  if (slot < a.tile_chunks) scheduleList(a, epoch & 1, c)[slot] = chunk;
}

/// The block's end (every warp past its last chunk, after a barrier): its listed chunks into the
/// lists. Ends with the barrier between taking the places and writing them.
template <typename LabelT>
__device__ __forceinline__ void writeBlockListing(const CompactArgs<LabelT>& a,
                                                  BlockListing& listing, unsigned epoch) {
  const int t = static_cast<int>(threadIdx.x);
  if (t < kTileCostClasses && listing.class_count[t] > 0)
    listing.class_base[t] =
        atomicAdd(&a.tile_schedule->count[epoch & 1][t], listing.class_count[t]);
  __syncthreads();
  const unsigned listed = min(listing.count, static_cast<unsigned>(kBlockListed));
  for (unsigned e = threadIdx.x; e < listed; e += kCompactThreads) {
    const unsigned c = listing.place[e] >> 16;
    const unsigned slot = listing.class_base[c] + (listing.place[e] & 0xffffu);
    if (slot < a.tile_chunks)
      scheduleList(a, epoch & 1, static_cast<int>(c))[slot] = listing.chunk[e];
  }
}

}  // namespace kms::cuda
