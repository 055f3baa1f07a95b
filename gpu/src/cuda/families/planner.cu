#include "cuda/families/planner.cuh"

#include "cuda/families/assign_kernels.cuh"
#include "cuda/families/compact_rows.cuh"
#include "cuda/families/high_dim.cuh"
#include "cuda/families/high_dim_tensor.cuh"
#include "cuda/families/point_tiles.cuh"
#include "cuda/families/row_groups.cuh"
#include "cuda/families/sorted_runs.cuh"
#include "cuda/families/wide_rows.cuh"

namespace kms::cuda {
namespace {

template <typename Family>
std::unique_ptr<KernelFamily> make(const FamilyPlanInput& in) {
  return std::make_unique<Family>(in);
}

/// A family, tried in order: the first that fits runs. More specialised families come first —
/// each is exact, so the order decides only speed (docs/benchmarks.md has the comparisons).
struct Entry {
  bool (*fits)(const FamilyPlanInput&);
  std::unique_ptr<KernelFamily> (*make)(const FamilyPlanInput&);
};

constexpr Entry kFamilies[] = {
    {SortedRunsFamily::fits, make<SortedRunsFamily>},        // d = 1: no row read
    {RowGroupsFamily::fits, make<RowGroupsFamily>},          // a photo's repeated pixels
    {PointTilesFamily::fits, make<PointTilesFamily>},        // d ≤ 4, millions of points
    {CompactRowsFamily::fits, make<CompactRowsFamily>},      // d ≤ 16, bounds per row
    {WideRowsFamily::fits, make<WideRowsFamily>},            // 17 ≤ d ≤ 64, bounds per row
    {HighDimTensorFamily::fits, make<HighDimTensorFamily>},  // d > 64: TF32, exact re-ranking
    {HighDimFamily::fits, make<HighDimFamily>},  // d > 64 streamed or without TF32: FP32 tiles
};

}  // namespace

std::unique_ptr<KernelFamily> planFamily(const FamilyPlanInput& in) {
  std::unique_ptr<KernelFamily> chosen;
  for (const Entry& family : kFamilies)
    if (!chosen && family.fits(in)) chosen = family.make(in);
  if (!chosen) chosen = make<AssignKernelsFamily>(in);  // every other shape
  chosen->allowDependentLaunches(in.dependent_launches);
  return chosen;
}

}  // namespace kms::cuda
