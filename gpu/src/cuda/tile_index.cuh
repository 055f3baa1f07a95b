// Point tiles: a spatial index of data with d ≤ 4, built once when the data are loaded, that lets
// an iteration settle a whole tile of rows at once — most tiles without reading a row.
//
// The rows are sorted by the Morton code of their coordinates (each coordinate quantised over
// the data's bounding box, the bits interleaved), so consecutive rows are near each other in
// space, and cut into tiles of kTileRows. Each tile keeps a ball around its points (centre and
// radius), the moments that give its inertia about any centroid, and its exact integer sums.
// The sorted copy of the rows and of their counts, and each sorted row's original index, serve
// the tiles that must be looked at row by row. The engine's own points (original order) stay as
// they are: seeding, re-seeding, snapshots and assign() never see the sorted copy, and labels
// are always kept in the original order.
//
// The order only decides how tight the balls are, never a label or a sum (the tile kernel's
// tests are exact bounds), and it is a stable sort of keys computed in IEEE double on the
// device, so it is the same on every run.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda/device_memory.cuh"
#include "cuda/kernels/tile_shape.cuh"

namespace kms::cuda {

class TileIndex {
 public:
  /// Device bytes the tiles of n rows with d coordinates keep (with counts: `counted`).
  static std::size_t bytesFor(std::size_t n, int d, bool counted);
  /// Device bytes needed while building them (the sort's keys and scratch on top of bytesFor).
  static std::size_t buildBytesFor(std::size_t n, int d, bool counted);

  /// Builds the tiles of `n` centred rows of d ≤ 4 coordinates on the device (`points`, and
  /// `counts` or null), sorted along the Morton curve of the box [lo, hi] (centred, d values
  /// each, host). `coord_scale`: the engine's d fixed-point scales (device), for the exact sums.
  /// Synchronises `stream` before returning.
  void build(const float* points, const std::uint32_t* counts, std::size_t n, int d,
             const float* coord_scale, const double* lo, const double* hi, cudaStream_t stream);
  void release() noexcept;
  /// Keeps only the sorted order (rows()) and gives the rest back: the groups of equal rows
  /// (repeat_groups.cuh) replace the tiles and need nothing else of them. tiles() stays.
  void keepOrderOnly() noexcept;

  bool empty() const { return tiles_ == 0; }
  std::size_t tiles() const { return tiles_; }
  std::size_t bytes() const;

  const float* points() const { return points_.get(); }          ///< sorted rows, n × d
  const std::uint32_t* counts() const { return counts_.get(); }  ///< sorted counts, or null
  const std::uint32_t* rows() const { return rows_.get(); }      ///< original index of each
  const TileShape* shapes() const { return shapes_.get(); }
  const long long* sums() const { return sums_.get(); }  ///< (d + 1) per tile: Σ w·q(x), Σ w
  unsigned short* owners() const { return owners_.get(); }
  /// A lower bound L = l + D(t₀) on the distance from each owned tile's rows to every other
  /// centroid, as the compact kernels keep one per row (a run's state; see tile_kernel.cuh).
  float* bounds() const { return bounds_.get(); }
  /// The tile kernel's shared state of one iteration (zeroed here and by every update).
  TileIteration* iteration() const { return iteration_.get(); }
  /// Each sorted row's label (a run's state, kept by the tile kernel beside the labels in the
  /// original order, so that a tile's rows read their labels in one coalesced load).
  unsigned short* labels() const { return labels_.get(); }
  /// The order the tile kernel takes its chunks in (TileSchedule) and its lists: two parities
  /// of kTileCostClasses lists of chunks() entries.
  TileSchedule* schedule() const { return schedule_.get(); }
  unsigned* scheduleLists() const { return schedule_lists_.get(); }
  /// Tiles are taken 32 at a time ("chunks"); without a complete TileSchedule (the first launch
  /// after a build), chunk c of the grid's order is chunk
  /// (c · chunkStride()) mod chunks() of the Morton order, which scatters each block's chunks over
  /// the data (neighbouring tiles along the curve are alike in cost).
  std::size_t chunks() const { return (tiles_ + 31) / 32; }
  std::size_t chunkStride() const { return chunk_stride_; }

 private:
  std::size_t tiles_ = 0;
  std::size_t chunk_stride_ = 1;
  DeviceBuffer<float> points_;
  DeviceBuffer<std::uint32_t> counts_;
  DeviceBuffer<std::uint32_t> rows_;
  DeviceBuffer<TileShape> shapes_;
  DeviceBuffer<long long> sums_;
  DeviceBuffer<unsigned short> owners_;
  DeviceBuffer<unsigned short> labels_;
  DeviceBuffer<float> bounds_;
  DeviceBuffer<TileIteration> iteration_;
  DeviceBuffer<TileSchedule> schedule_;
  DeviceBuffer<unsigned> schedule_lists_;
};

}  // namespace kms::cuda
