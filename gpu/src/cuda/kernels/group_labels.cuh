// Groups of equal rows (repeat_groups.cuh): after the compact row kernel labelled the groups,
// every original row takes its group's label — the rows of the groups whose label changed (the
// row kernel lists their segments, or a large group whole), or of every group
// (CompactArgs::groups_every). A warp a segment of at most kGroupSegment rows, its lanes over the
// segment's sorted rows; late in a run few groups change and this is a few writes.
#pragma once

#include "cuda/kernels/compact_args.cuh"
#include "cuda/repeat_groups.cuh"

namespace kms::cuda {

/// Segment `segment` of its group's rows takes the group's label (a warp, its lanes over the rows).
template <typename LabelT>
__device__ __forceinline__ void expandSegment(const CompactArgs<LabelT>& a, std::uint32_t segment,
                                              std::uint32_t g, int lane) {
  const LabelT label = a.labels_out[g];
  const std::uint32_t first =
      a.group_starts[g] + (segment - a.group_segment_first[g]) * kGroupSegment;
  const std::uint32_t end = min(first + kGroupSegment, a.group_starts[g + 1]);
  for (std::uint32_t p = first + lane; p < end; p += 32)
    a.row_labels[a.group_rows[p]] = label;
}

template <typename LabelT>
__global__ void __launch_bounds__(kCompactThreads) expandGroupLabelsKernel(CompactArgs<LabelT> a) {
  const int loop_mark = startCompactKernel(a.loop);
  if (a.loop.ended(loop_mark)) return;  // an earlier iteration of the launch ended it
  const std::size_t segments = a.groups_every ? a.group_segments : a.group_changed_count[0];
  const int lane = static_cast<int>(threadIdx.x) & 31;
  constexpr int kWarps = kCompactThreads / 32;
  const std::size_t warp = blockIdx.x * static_cast<std::size_t>(kWarps) + (threadIdx.x >> 5);
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * kWarps;
  for (std::size_t w = warp; w < segments; w += step) {
    const std::uint32_t segment =
        a.groups_every ? static_cast<std::uint32_t>(w) : a.group_changed[w];
    expandSegment(a, segment, a.segment_group[segment], lane);
  }
  if (a.groups_every) return;
  // The large groups that changed: every warp a share of each one's segments.
  const unsigned large = a.group_changed_count[1];
  for (unsigned b = 0; b < large; ++b) {
    const std::uint32_t g = a.group_changed_large[b];
    const std::uint32_t first = a.group_segment_first[g];
    const std::uint32_t count = a.group_segment_first[g + 1] - first;
    for (std::size_t s = warp; s < count; s += step)
      expandSegment(a, first + static_cast<std::uint32_t>(s), g, lane);
  }
}

}  // namespace kms::cuda
