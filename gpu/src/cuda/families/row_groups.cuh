// Groups of equal rows: plain points with point tiles whose rows repeat (a photo's pixels) —
// the runs of the tiles' Morton-sorted rows that are equal bit for bit (repeat_groups.cuh). The
// compact row kernel runs over one row and its count a group; then every row is given its
// group's label, written only for the groups whose label changed.
#pragma once

#include "cuda/families/compact_rows.cuh"

namespace kms::cuda {

class RowGroupsFamily final : public CompactRowsFamily {
 public:
  /// Compact rows whose data have groups of equal rows.
  static bool fits(const FamilyPlanInput& in);
  explicit RowGroupsFamily(const FamilyPlanInput& in);

  const char* name() const override { return "groups of equal rows"; }
  std::size_t runBytes(const PlacedData& data, int k) const override;
  void allocate(const PlacedData& data, int k) override;
  void startRun(PlacedData& data, const RunBuffers& run, cudaStream_t stream) override;
  std::size_t deviceBytes() const override;
  void release() override;

 private:
  std::size_t boundRows(const PlacedData& data) const override { return data.groups.groups(); }
  void addArgs(const PlacedData& data, const RunBuffers& run,
               CompactArgs<std::uint8_t>& a) const override;
  void addArgs(const PlacedData& data, const RunBuffers& run,
               CompactArgs<std::uint16_t>& a) const override;
  template <typename LabelT>
  void addGroupArgs(const PlacedData& data, const RunBuffers& run, CompactArgs<LabelT>& a) const;

  /// Each group's label, and the lists of the groups whose label changed in the iteration
  /// (RepeatGroups::changeListWords).
  DeviceBuffer<unsigned char> group_labels_;
  DeviceBuffer<unsigned> group_changed_;
};

}  // namespace kms::cuda
