// Groups of equal rows (repeat_groups.cuh): after the compact row kernel labelled the groups,
// every original row takes its group's label — the rows of the groups whose label changed (the
// row kernel lists their segments), or of every group (CompactArgs::groups_every). A warp a
// segment of at most kGroupSegment rows, its lanes over the segment's sorted rows; late in a run
// few groups change and this is a few writes.
#pragma once

#include "cuda/kernels/compact_args.cuh"
#include "cuda/repeat_groups.cuh"

namespace kms::cuda {

template <typename LabelT>
__global__ void __launch_bounds__(kCompactThreads) expandGroupLabelsKernel(CompactArgs<LabelT> a) {
  const int loop_mark = startCompactKernel(a.loop);
  if (a.loop.ended(loop_mark)) return;  // an earlier iteration of the launch ended it
  const std::size_t segments = a.groups_every ? a.group_segments : *a.group_changed_count;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  constexpr int kWarps = kCompactThreads / 32;
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * kWarps;
  for (std::size_t w = blockIdx.x * static_cast<std::size_t>(kWarps) + (threadIdx.x >> 5);
       w < segments; w += step) {
    const std::uint32_t segment =
        a.groups_every ? static_cast<std::uint32_t>(w) : a.group_changed[w];
    const std::uint32_t g = a.segment_group[segment];
    const LabelT label = a.labels_out[g];
    const std::uint32_t first =
        a.group_starts[g] + (segment - a.group_segment_first[g]) * kGroupSegment;
    const std::uint32_t end = min(first + kGroupSegment, a.group_starts[g + 1]);
    for (std::uint32_t p = first + lane; p < end; p += 32)
      a.row_labels[a.group_rows[p]] = label;
  }
}

}  // namespace kms::cuda
