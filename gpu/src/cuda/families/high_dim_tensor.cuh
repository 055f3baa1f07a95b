// High-dimensional rows on tensor cores: d > 64 without counts, on the device, TF32 allowed
// (compute capability 8.0 and later). Each iteration first keeps the label of every row whose
// Hamerly bound proves it (one exact distance a row: kernels/high_dim_row_kernels.cuh), ranks
// the other rows' candidates with one-term TF32 products tiled like a GEMM
// (kernels/high_dim_tensor_kernel.cuh), ranks again with three-term (split) TF32 the rows the
// first bound could not settle, and makes every label exact with the CPU's own FP32 distances;
// the sums are the high-dimensional family's kept sums.
#pragma once

#include <cuda_fp16.h>

#include "cuda/families/kernel_family.cuh"

namespace kms::cuda {

struct FamilyPlanInput;

class HighDimTensorFamily final : public KernelFamily {
 public:
  /// Rows of d > 64 without counts held on the device, with tensor cores (CudaTuning::tensor_cores
  /// and high_dim_rows on). Streamed rows keep the FP32 family, which reads them in place.
  static bool fits(const FamilyPlanInput& in);
  explicit HighDimTensorFamily(const FamilyPlanInput& in);

  const char* name() const override { return "high-dimensional rows (tensor cores)"; }
  /// The two label halves and the labels the kept sums hold (AssignKernelsFamily::kSummedLabels).
  int labelArrays() const override { return 3; }
  /// Rows ranked over all k (the rest were settled by their bounds) and distances computed, a
  /// pair a block (IterationStats::rows_searched, distances_computed).
  int workWordsPerSlot() const override { return 2; }
  /// A lower bound a row, kept across iterations against the run's drift.
  bool keepsBounds() const override { return true; }
  bool reportsSearched() const override { return true; }
  std::size_t runBytes(const PlacedData& data, int k) const override;
  void allocate(const PlacedData& data, int k) override;
  void startRun(PlacedData&, const RunBuffers&, cudaStream_t) override {}
  void enqueue(PlacedData& data, const RunBuffers& run, Part part, const Launch& launch) override;
  std::size_t deviceBytes() const override {
    return norms_.bytes() + counters_.bytes() + active_.bytes() + listed_.bytes() +
           listed_threshold_.bytes() + forwarded_.bytes() + row_inertia_.bytes() + bounds_.bytes() +
           half_points_.bytes() + half_centroids_.bytes() + rows_largest_.bytes();
  }
  void release() override {
    norms_.release();
    counters_.release();
    active_.release();
    listed_.release();
    listed_threshold_.release();
    forwarded_.release();
    row_inertia_.release();
    bounds_.release();
    half_points_.release();
    half_centroids_.release();
    rows_largest_.release();
  }

 private:
  template <typename LabelT>
  void enqueueAs(PlacedData& data, const RunBuffers& run, Part part, const Launch& launch);

  std::size_t label_bytes_ = 1;
  int settle_blocks_ = 0;      ///< blocks of the settle test
  DeviceBuffer<float> norms_;  ///< ‖c‖² of the iteration's centroids
  /// [0] max ‖c‖² (float bits), [1] rows listed, [2] rows active, [3] rows forwarded: zeroed
  /// every iteration
  DeviceBuffer<unsigned> counters_;
  DeviceBuffer<unsigned> active_;         ///< n: rows their bounds left to the rank pass
  DeviceBuffer<unsigned> listed_;         ///< n: rows the rank pass left to the collect pass
  DeviceBuffer<float> listed_threshold_;  ///< n, by listed position: the collect pass's limit
  DeviceBuffer<unsigned> forwarded_;      ///< n: rows the collect pass left to the three-term pass
  DeviceBuffer<float> row_inertia_;       ///< n: each row's exact distance (× weight)
  DeviceBuffer<float> bounds_;            ///< n: each row's lower bound plus the drift (0: none)
  /// n × pitch and k × pitch: the rows and centroids as scaled FP16 for the one-term passes,
  /// when the device has room for them beside everything else (empty: they read the FP32 values
  /// as TF32); the rows' largest magnitude (float bits) their scale comes from.
  DeviceBuffer<__half> half_points_;
  DeviceBuffer<__half> half_centroids_;
  DeviceBuffer<unsigned> rows_largest_;
  int half_pitch_ = 0;       ///< halves a copied row: d rounded up to 8 (16-byte rows)
  bool half_copies_ = true;  ///< CudaTuning::half_copies
};

}  // namespace kms::cuda
