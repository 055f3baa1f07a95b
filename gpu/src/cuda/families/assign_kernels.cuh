// The assignment kernels: every other shape — weighted data, d > 64, k beyond the compact and
// wide kernels, counted data outside them (assign_launch.cuh). Each iteration ranks every row
// (FP32 SIMT, the register-tiled kernel, or TF32 tensor cores with exact re-ranking), sums each
// block's rows into exact integer partial sums (or, for large d, a separate summing pass that
// keeps the totals), reduces them and updates.
#pragma once

#include "cuda/families/kernel_family.cuh"

namespace kms::cuda {

struct FamilyPlanInput;

class AssignKernelsFamily final : public KernelFamily {
 public:
  explicit AssignKernelsFamily(const FamilyPlanInput& in);

  const char* name() const override;
  int labelArrays() const override { return plan_.separate_sums ? 3 : 2; }
  int workWordsPerSlot() const override { return plan_.tensor ? 1 : 0; }
  bool reportsSearched() const override { return plan_.tensor; }
  std::size_t runBytes(const PlacedData& data, int k) const override;
  void allocate(const PlacedData& data, int k) override;
  void startRun(PlacedData&, const RunBuffers&, cudaStream_t) override {}
  void enqueue(PlacedData& data, const RunBuffers& run, Part part, const Launch& launch) override;
  std::size_t deviceBytes() const override { return block_sums_.bytes(); }
  void release() override { block_sums_.release(); }

  /// The third label array of plans with a separate summing pass: the labels its running totals
  /// hold (accumulate_kernel.cuh).
  static constexpr int kSummedLabels = 2;

 private:
  std::size_t blockSumCount(const PlacedData& data, int k) const;
  template <typename LabelT>
  void enqueueAs(PlacedData& data, const RunBuffers& run, Part part, const Launch& launch);

  std::size_t label_bytes_ = 1;
  DeviceBuffer<long long> block_sums_;  ///< per-block partial sums [block][k·(d+1)]
};

}  // namespace kms::cuda
