// The assignment kernels: every other shape — weighted data or k beyond the compact and wide
// kernels at d ≤ 64, counted data of d > 64 (assign_launch.cuh). Each iteration ranks every row
// (FP32 SIMT, the register-tiled kernel, or TF32 tensor cores with exact re-ranking), sums each
// block's rows into exact integer partial sums (or, for large d, a separate summing pass that
// keeps the totals), reduces them and updates.
#pragma once

#include "common/exact_math.h"
#include "cuda/families/kernel_family.cuh"

namespace kms::cuda {

struct FamilyPlanInput;

/// The arguments of an assignment over arrangement `run` that every row-ranking family fills the
/// same way (the sums, the work slots and what block 0 clears are each family's own).
template <typename LabelT>
AssignArgs<LabelT> assignArgsFor(const PlacedData& data, const RunBuffers& run) {
  AssignArgs<LabelT> a;
  a.points = data.points.get();
  a.weights = data.weightsOrNull();
  a.counts = data.countsOrNull();
  a.n = data.n;
  a.d = data.d;
  a.k = run.k;
  a.centroids = run.centroids[run.cur];
  a.labels_in =
      run.in_half < 0 ? nullptr : reinterpret_cast<const LabelT*>(run.half(run.in_half, data.n));
  a.labels_out = reinterpret_cast<LabelT*>(run.half(run.out_half, data.n));
  a.coord_scale = data.coord_scale.get();
  a.weight_scale = exact::pow2f(data.summary.fixed.weight_exp);
  a.block_inertia = run.block_inertia;
  a.block_changed = run.block_changed;
  return a;
}

/// The update from `totals` (run.totals, or a shard's run.global_totals after the all-reduce,
/// then with its update_start event), ending with after_update.
void enqueueUpdateFrom(const long long* totals, const RunBuffers& run, Part part,
                       const Launch& launch);

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
