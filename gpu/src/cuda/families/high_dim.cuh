// High-dimensional rows: unweighted or weighted data of d > 64 (embeddings, descriptors), any k
// the labels hold. The assignment is tiled like a matrix product over the rows, the centroids and
// d itself (no n × k matrix is stored; each row's best three scores stay in registers), then each
// row's label is made exact: its best centroid's exact distance, and where the fast scores are
// too close to call, the exact distances of the candidates. The sums are kept across iterations
// and moved only for the rows whose label changed, with exact integer atomics.
#pragma once

#include "cuda/families/kernel_family.cuh"

namespace kms::cuda {

struct FamilyPlanInput;

/// The kept sums of the high-dimensional families: every row whose label (in label half
/// run.out_half) changed since the sums last saw it moves from its old cluster's totals to its
/// new one's (every row on the run's first iteration), by exact 64-bit integer atomics; then the
/// assignment's `result_blocks` block results and the totals are reduced into the iteration's
/// scalars (with each block's work words, `work_stride` a slot, when `block_work` is given:
/// launchReduce's).
void enqueueKeptSums(const PlacedData& data, const RunBuffers& run, std::size_t label_bytes,
                     int sum_blocks, int result_blocks, cudaStream_t stream,
                     const unsigned long long* block_work = nullptr, int work_stride = 1);

/// ‖c‖² of the k centroids (d coordinates each) into `norms`, by sequential FMAs — the order the
/// high-dimensional families' error bounds assume — and, unless `largest_bits` is null, their
/// maximum atomically into *largest_bits (float bits; zeroed before).
void launchCentroidNorms(const float* centroids, int k, int d, float* norms, unsigned* largest_bits,
                         cudaStream_t stream);

class HighDimFamily final : public KernelFamily {
 public:
  /// Rows of d > 64 without counts (counted data keep the generic kernel), unless
  /// CudaTuning::high_dim_rows is off.
  static bool fits(const FamilyPlanInput& in);
  explicit HighDimFamily(const FamilyPlanInput& in);

  const char* name() const override { return "high-dimensional rows"; }
  /// The two label halves and the labels the kept sums hold (AssignKernelsFamily::kSummedLabels).
  int labelArrays() const override { return 3; }
  std::size_t runBytes(const PlacedData& data, int k) const override;
  void allocate(const PlacedData& data, int k) override;
  void startRun(PlacedData&, const RunBuffers&, cudaStream_t) override {}
  void enqueue(PlacedData& data, const RunBuffers& run, Part part, const Launch& launch) override;
  std::size_t deviceBytes() const override { return norms_.bytes(); }
  void release() override { norms_.release(); }

 private:
  template <typename LabelT>
  void enqueueAs(PlacedData& data, const RunBuffers& run, Part part, const Launch& launch);

  std::size_t label_bytes_ = 1;
  /// Whether a block keeps its 128 rows' every coordinate in shared memory (d up to 384; 8 × 8
  /// products a thread), or stages 64 rows a slice of d at a time with the centroids' (4 × 4, two
  /// blocks a multiprocessor).
  bool rows_resident_ = false;
  DeviceBuffer<float> norms_;  ///< ‖c‖² of the iteration's centroids
};

}  // namespace kms::cuda
