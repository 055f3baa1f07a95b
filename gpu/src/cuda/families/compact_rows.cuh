// Compact rows: unweighted data of d ≤ 16 and k ≤ 256 (k ≤ 1,024 for d ≤ 4) — distinct values
// with their counts, or plain points (every count 1). The whole iteration is two kernels
// (compact_kernel.cuh): the assignment, pruned by a bound per row, adds only the rows whose
// label changed to sums kept across iterations; the update also describes the new centroids.
// Point tiles and groups of equal rows are built on it (point_tiles.cuh, row_groups.cuh).
#pragma once

#include "cuda/families/bounds_family.cuh"
#include "cuda/tuning.h"

namespace kms::cuda {

struct FamilyPlanInput;

class CompactRowsFamily : public BoundsFamily {
 public:
  /// Unweighted data whose d and k the compact kernels are compiled for.
  static bool fits(const FamilyPlanInput& in);
  explicit CompactRowsFamily(const FamilyPlanInput& in);

  const char* name() const override { return "compact rows"; }
  bool timesWholeIteration() const override { return true; }
  std::size_t runBytes(const PlacedData& data, int k) const override;
  void allocate(const PlacedData& data, int k) override;
  void enqueue(PlacedData& data, const RunBuffers& run, Part part, const Launch& launch) override;
  /// kCompactLoopSteps iterations captured back to back into one graph, each later one doing
  /// nothing once an earlier one converged or left a cluster empty (LoopStep) — on one GPU,
  /// with the data on it.
  int loopSteps(const PlacedData& data) const override;
  bool loopIsGraph() const override { return true; }
  void enqueueLoop(PlacedData& data, const RunBuffers& run, const DeviceLoop& loop,
                   const Launch& launch) override;
  std::size_t deviceBytes() const override;
  void release() override;

 protected:
  /// For the families built on it, which plan their own launch shape.
  CompactRowsFamily() = default;

 private:
  template <typename LabelT>
  void enqueueAs(PlacedData& data, const RunBuffers& run, Part part, const Launch& launch);
  template <typename LabelT>
  void enqueueLoopAs(PlacedData& data, const RunBuffers& run, const DeviceLoop& loop,
                     const Launch& launch);

  DeviceBuffer<int> loop_stop_;  ///< LoopStep::stop of a launch of several iterations
};

}  // namespace kms::cuda
