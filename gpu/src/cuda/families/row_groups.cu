#include "cuda/families/row_groups.cuh"

#include <algorithm>

#include "cuda/cuda_check.cuh"
#include "cuda/families/bounds_family_args.cuh"
#include "cuda/families/planner.cuh"
#include "cuda/kernels/compact_iteration.cuh"

namespace kms::cuda {

bool RowGroupsFamily::fits(const FamilyPlanInput& in) {
  return CompactRowsFamily::fits(in) && !in.data.groups.empty();
}

RowGroupsFamily::RowGroupsFamily(const FamilyPlanInput& in) {
  const RepeatGroups& groups = in.data.groups;
  withLabelBytes(in.label_bytes, [&](auto label_type) {
    plan_ = planCompact<decltype(label_type)>(groups.groups(), in.data.d, in.k, 0, in.limits);
  });
  plan_.repeat_groups = true;
  // Their rows' labels: a warp a segment, as many as the first iteration's segments fill.
  const std::size_t warps = static_cast<std::size_t>(plan_.threads) / 32;
  plan_.group_blocks = static_cast<int>(
      std::clamp<std::size_t>((groups.segments() + warps - 1) / warps, 1,
                              static_cast<std::size_t>(in.limits.multiprocessors) * 8));
}

std::size_t RowGroupsFamily::runBytes(const PlacedData& data, int k) const {
  const std::size_t label_bytes = k <= 256 ? 1 : 2;
  return CompactRowsFamily::runBytes(data, k) + data.groups.groups() * label_bytes +
         data.groups.changeListWords() * sizeof(unsigned);
}

void RowGroupsFamily::allocate(const PlacedData& data, int k) {
  CompactRowsFamily::allocate(data, k);
  group_labels_.resize(data.groups.groups() * label_bytes_);
  group_changed_.resize(data.groups.changeListWords());
}

void RowGroupsFamily::startRun(PlacedData& data, const RunBuffers& run, cudaStream_t stream) {
  KMS_CUDA_CHECK(cudaMemsetAsync(group_changed_.get() + data.groups.changeCountsAt(), 0,
                                 2 * sizeof(unsigned), stream));
  CompactRowsFamily::startRun(data, run, stream);
}

std::size_t RowGroupsFamily::deviceBytes() const {
  return CompactRowsFamily::deviceBytes() + group_labels_.bytes() + group_changed_.bytes();
}

void RowGroupsFamily::release() {
  CompactRowsFamily::release();
  group_labels_.release();
  group_changed_.release();
}

void RowGroupsFamily::addArgs(const PlacedData& data, const RunBuffers& run,
                              CompactArgs<std::uint8_t>& a) const {
  addGroupArgs(data, run, a);
}

void RowGroupsFamily::addArgs(const PlacedData& data, const RunBuffers& run,
                              CompactArgs<std::uint16_t>& a) const {
  addGroupArgs(data, run, a);
}

template <typename LabelT>
void RowGroupsFamily::addGroupArgs(const PlacedData& data, const RunBuffers& run,
                                   CompactArgs<LabelT>& a) const {
  // The row kernel over one row a group, then the rows' labels.
  const RepeatGroups& groups = data.groups;
  auto* group_labels = reinterpret_cast<LabelT*>(group_labels_.get());
  a.points = groups.values();
  a.counts = groups.counts();
  a.n = groups.groups();
  a.labels_in = run.in_half < 0 ? nullptr : group_labels;
  a.labels_out = group_labels;
  a.group_starts = groups.starts();
  a.group_rows = data.tiles.rows();
  a.group_segment_first = groups.segmentFirst();
  a.segment_group = groups.segmentGroup();
  a.group_segments = groups.segments();
  a.row_labels = reinterpret_cast<LabelT*>(run.half(run.out_half, data.n));
  // group_changed_ (RepeatGroups::changeListWords): the segments, the large groups, the counts.
  a.group_changed = group_changed_.get();
  a.group_changed_large = group_changed_.get() + groups.segments();
  a.group_changed_count = group_changed_.get() + groups.changeCountsAt();
  a.groups_every = run.in_half != run.out_half;  // (in_half −1: the first iteration)
}

}  // namespace kms::cuda
