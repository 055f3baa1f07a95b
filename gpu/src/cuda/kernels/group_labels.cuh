// Groups of equal rows (repeat_groups.cuh): after the compact row kernel labelled the groups,
// every original row takes its group's label — the rows of the groups whose label changed (the
// row kernel lists them), or of every group (CompactArgs::groups_every). A warp a group, its
// lanes over the group's sorted rows; late in a run few groups change and this is a few writes.
#pragma once

#include "cuda/kernels/compact_args.cuh"

namespace kms::cuda {

template <typename LabelT>
__global__ void __launch_bounds__(kCompactThreads) expandGroupLabelsKernel(CompactArgs<LabelT> a) {
  const int loop_mark = startCompactKernel(a.loop);
  if (a.loop.ended(loop_mark)) return;  // an earlier iteration of the launch ended it
  const std::size_t groups = a.groups_every ? a.n : *a.group_changed_count;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  constexpr int kWarps = kCompactThreads / 32;
  const std::size_t step = static_cast<std::size_t>(gridDim.x) * kWarps;
  for (std::size_t w = blockIdx.x * static_cast<std::size_t>(kWarps) + (threadIdx.x >> 5);
       w < groups; w += step) {
    const std::size_t g = a.groups_every ? w : a.group_changed[w];
    const LabelT label = a.labels_out[g];
    const std::uint32_t last = a.group_starts[g + 1];
    for (std::uint32_t p = a.group_starts[g] + lane; p < last; p += 32)
      a.row_labels[a.group_rows[p]] = label;
  }
}

}  // namespace kms::cuda
