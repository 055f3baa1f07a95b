// Groups of equal rows: the point tiles' sorted rows (tile_index.cuh) cut where a row differs
// from the one before, so that data whose rows repeat — a photo's pixels, each colour many times
// — iterate over one row per group with its count, as compact data do (the compact row kernel,
// compact_kernel.cuh), and every row of a group takes the group's label.
//
// Why: a photo's pixels are few colours, each many times; an iteration over the colours with
// their counts costs a fraction of one over every pixel's tile (docs/benchmarks.md), with the same
// labels and bit-identical centroids, since a group's exact sums are its count times its row's
// (integers) and its rows' distances are its row's.
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
#include "cuda/tuning.h"

namespace kms::cuda {

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
