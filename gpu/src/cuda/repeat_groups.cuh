// Groups of equal rows: the point tiles' sorted rows (tile_index.cuh) cut where a row differs
// from the one before, so that data whose rows repeat — a photo's pixels, each colour many times
// — iterate over one row per group with its count, as compact data do (the compact row kernel,
// compact_kernel.cuh), and every row of a group takes the group's label.
//
// Why: the benchmarks' photo has 17,978,112 pixels of 538,753 colours. Pixel by pixel on point
// tiles an iteration took 0.190 ms at k = 256 (H200); its distinct colours with counts take
// 0.050 ms — the same labels and bit-identical centroids, since a group's exact sums are its
// count times its row's (integers) and its rows' distances are its row's.
//
// The Morton sort puts equal rows side by side (their keys are equal; rows of equal keys keep
// their original order, so a value whose key it shares with another may make two groups — which
// changes nothing but the count of groups). Rows compare bit for bit, centred as the engine keeps
// them: what is equal there is equal to every kernel.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda/device_memory.cuh"

namespace kms::cuda {

/// Rows of a group written by one warp at most when the rows take their groups' labels
/// (expandGroupLabelsKernel): a group is cut into segments of this many sorted rows, so that a
/// colour of a million pixels is written by four thousand warps, not one (one warp a group had
/// made the expansion 25–38 µs an iteration at k = 256 on the benchmarks' photo, Nsight Compute,
/// H200: a few groups of that size changing label).
inline constexpr unsigned kGroupSegment = 256;
/// A changed group of at most this many segments (16,384 rows) has them listed by the thread that
/// labelled it; a larger one is listed whole, and every warp of the expansion takes a share of its
/// segments (a 16-megapixel background would otherwise be 65,536 stores by one thread of the
/// assignment). Every warp reads the whole list of large groups, so only the rare largest go there:
/// with 8 (2,048 rows) the real photo's iteration took 0.0716–0.0728 ms at k = 256 against
/// 0.0594–0.0598 with 64 (H200, same call), every warp walking a long list of changed colours.
inline constexpr unsigned kListedSegments = 64;

class RepeatGroups {
 public:
  /// Device bytes the groups of n rows of d coordinates keep (at most n groups) while building.
  static std::size_t buildBytesFor(std::size_t n, int d);

  /// Groups the `n` sorted rows of d coordinates (`sorted`, device, centred) into runs of equal
  /// rows; keeps them only when there are at most `max_groups`. Synchronises `stream`.
  void build(const float* sorted, std::size_t n, int d, std::size_t max_groups,
             cudaStream_t stream);
  void release() noexcept;

  bool empty() const { return groups_ == 0; }
  std::size_t groups() const { return groups_; }
  std::size_t bytes() const;

  const float* values() const { return values_.get(); }          ///< groups × d: each group's row
  const std::uint32_t* counts() const { return counts_.get(); }  ///< rows in each group
  /// groups + 1: group g is the sorted rows [starts[g], starts[g + 1]).
  const std::uint32_t* starts() const { return starts_.get(); }
  /// Segments of up to kGroupSegment rows: group g's are [segmentFirst()[g], segmentFirst()[g +
  /// 1]) (groups + 1 entries), and segmentGroup() names each segment's group.
  std::size_t segments() const { return segments_; }
  const std::uint32_t* segmentFirst() const { return segment_first_.get(); }
  const std::uint32_t* segmentGroup() const { return segment_group_.get(); }

  /// A run's lists of the groups whose label changed in an iteration (CompactArgs::
  /// group_changed): the segments of the small ones, then the large groups whole, then their two
  /// counts — words in all, and where the counts start.
  std::size_t changeListWords() const { return segments_ + groups_ + 2; }
  std::size_t changeCountsAt() const { return segments_ + groups_; }

 private:
  std::size_t groups_ = 0;
  std::size_t segments_ = 0;
  DeviceBuffer<float> values_;
  DeviceBuffer<std::uint32_t> counts_;
  DeviceBuffer<std::uint32_t> starts_;
  DeviceBuffer<std::uint32_t> segment_first_;
  DeviceBuffer<std::uint32_t> segment_group_;
};

}  // namespace kms::cuda
