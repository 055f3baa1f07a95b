// Wide rows: unweighted data of 17 ≤ d ≤ 64 and k ≤ 256 (wide_kernel.cuh). A distance bound per
// row proves most rows' labels without ranking them again; the rest are searched exactly, and
// the sums are kept across iterations. The update grows the bounds' drift and describes the new
// centroids by their half gaps.
#pragma once

#include "cuda/families/bounds_family.cuh"

namespace kms::cuda {

struct FamilyPlanInput;

class WideRowsFamily final : public BoundsFamily {
 public:
  /// Unweighted data of a d and k the wide kernels are compiled for, with distance bounds on.
  static bool fits(const FamilyPlanInput& in);
  explicit WideRowsFamily(const FamilyPlanInput& in);

  const char* name() const override { return "wide rows"; }
  bool reportsSearched() const override { return true; }
  void enqueue(PlacedData& data, const RunBuffers& run, Part part, const Launch& launch) override;

 private:
  bool wideGeometry() const override { return true; }
  template <typename LabelT>
  void enqueueAs(PlacedData& data, const RunBuffers& run, Part part, const Launch& launch);
};

}  // namespace kms::cuda
