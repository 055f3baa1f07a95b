// Sorted runs: one-dimensional unweighted data (d = 1) on one GPU, k ≤ 32, whose rows were
// sorted once with exact prefix sums when they were loaded (sorted_index.cuh). An iteration is
// one block (sorted_iteration.cuh): each centroid's run of rows is found by a search and its
// sums by subtraction, no row is read, and the labels are kept by run — written by row only when
// a capture or a re-seed needs them.
#pragma once

#include "cuda/families/kernel_family.cuh"
#include "cuda/kernels/sorted_iteration.cuh"

namespace kms::cuda {

struct FamilyPlanInput;

class SortedRunsFamily final : public KernelFamily {
 public:
  /// One GPU's unweighted data with sorted runs, and k ≤ kSortedMaxK.
  static bool fits(const FamilyPlanInput& in);
  explicit SortedRunsFamily(const FamilyPlanInput& in);

  const char* name() const override { return "sorted runs"; }
  bool timesWholeIteration() const override { return true; }
  std::size_t runBytes(const PlacedData&, int) const override { return 2 * sizeof(SortedRunState); }
  void allocate(const PlacedData& data, int k) override;
  void startRun(PlacedData& data, const RunBuffers& run, cudaStream_t stream) override;
  void enqueue(PlacedData& data, const RunBuffers& run, Part part, const Launch& launch) override;
  bool writeRowLabels(PlacedData& data, const RunBuffers& run, int half,
                      cudaStream_t stream) override;
  /// Up to kSortedLoopMax iterations in one kernel that loops.
  int loopSteps(const PlacedData&) const override { return kSortedLoopMax; }
  void enqueueLoop(PlacedData& data, const RunBuffers& run, const DeviceLoop& loop,
                   const Launch& launch) override;
  std::size_t deviceBytes() const override { return runs_.bytes(); }
  void release() override { runs_.release(); }

 private:
  /// The arguments of arrangement `run` (in_half −1: the run's first iteration, no previous
  /// runs).
  SortedArgs args(const PlacedData& data, const RunBuffers& run) const;

  std::size_t label_bytes_ = 1;
  /// The runs of the iterations that ran with centroids[0] and [1] are in [1] and [0] (each
  /// iteration reads the previous one's to count the changed labels).
  DeviceBuffer<SortedRunState> runs_;
};

}  // namespace kms::cuda
