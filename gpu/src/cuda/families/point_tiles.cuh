// Point tiles: compact rows of d ≤ 4 whose rows were sorted along a Morton curve into tiles of
// 32 when they were loaded (tile_index.cuh): the assignment settles a whole tile inside one
// centroid's region from its bounding ball without reading its rows (tile_kernel.cuh). The tiles
// keep their bounds themselves; the update is the compact rows'.
#pragma once

#include "cuda/families/compact_rows.cuh"

namespace kms::cuda {

class PointTilesFamily final : public CompactRowsFamily {
 public:
  /// Compact rows whose data have point tiles.
  static bool fits(const FamilyPlanInput& in);
  explicit PointTilesFamily(const FamilyPlanInput& in);

  const char* name() const override { return "point tiles"; }
  void startRun(PlacedData& data, const RunBuffers& run, cudaStream_t stream) override;

 private:
  std::size_t boundRows(const PlacedData&) const override { return 0; }
  void addArgs(const PlacedData& data, const RunBuffers& run,
               CompactArgs<std::uint8_t>& a) const override;
  void addArgs(const PlacedData& data, const RunBuffers& run,
               CompactArgs<std::uint16_t>& a) const override;
  template <typename LabelT>
  void addTileArgs(const PlacedData& data, CompactArgs<LabelT>& a) const;

  int inertia_exp_ = 0;  ///< CompactArgs::inertia_exp: the tiles' inertia grid
};

}  // namespace kms::cuda
