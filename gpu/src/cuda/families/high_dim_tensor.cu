#include "cuda/families/high_dim_tensor.cuh"

#include <algorithm>

#include "cuda/cuda_check.cuh"
#include "cuda/families/assign_kernels.cuh"
#include "cuda/families/high_dim.cuh"
#include "cuda/families/planner.cuh"
#include "cuda/kernels/high_dim_tensor_kernel.cuh"

namespace kms::cuda {
namespace {

constexpr int kFastTiles = 2;   // m-tiles a warp in the one-term pass: 128 rows a block
constexpr int kSplitTiles = 2;  // and in the three-term pass: 64 rows a block

/// Sets the kernel's dynamic shared memory and returns its blocks a multiprocessor.
template <typename Kernel>
int prepare(Kernel kernel, std::size_t shared_bytes) {
  KMS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(shared_bytes)));
  int per_sm = 0;
  KMS_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kHdThreads, shared_bytes));
  return std::max(per_sm, 1);
}

}  // namespace

bool HighDimTensorFamily::fits(const FamilyPlanInput& in) {
  // 2 KB stay for the kernel's static shared memory (the tile's row indices, the block's count).
  return in.tuning.high_dim_rows && in.tuning.tensor_cores && in.limits.tensor_cores &&
         in.data.d > 64 && !in.data.summary.fixed.counted && !in.data.points.onHost() &&
         hdSharedBytes(kFastTiles) + 2048 <= in.limits.max_shared_per_block;
}

HighDimTensorFamily::HighDimTensorFamily(const FamilyPlanInput& in) {
  plan_.threads = kHdThreads;
  plan_.shared_bytes = hdSharedBytes(kFastTiles);
  withLabelBytes(in.label_bytes, [&](auto label_type) {
    using LabelT = decltype(label_type);
    const int per_sm =
        prepare(highDimTensorKernel<kFastTiles, false, LabelT>, hdSharedBytes(kFastTiles));
    prepare(highDimTensorKernel<kSplitTiles, true, LabelT>, hdSharedBytes(kSplitTiles));
    const std::size_t tiles = (in.data.n + hdBlockRows(kFastTiles) - 1) / hdBlockRows(kFastTiles);
    plan_.blocks = static_cast<int>(std::max<std::size_t>(
        1, std::min<std::size_t>(tiles,
                                 static_cast<std::size_t>(in.limits.multiprocessors) * per_sm)));
  });
  plan_.sum_threads = 256;
  plan_.sum_blocks = in.limits.multiprocessors * 4;
}

std::size_t HighDimTensorFamily::runBytes(const PlacedData& data, int k) const {
  return static_cast<std::size_t>(k) * sizeof(float) + 2 * sizeof(unsigned) +
         data.n * (sizeof(unsigned) + sizeof(float));
}

void HighDimTensorFamily::allocate(const PlacedData& data, int k) {
  label_bytes_ = k <= 256 ? 1 : 2;
  norms_.resize(k);
  largest_norm_.resize(2);
  listed_.resize(data.n);
  row_inertia_.resize(data.n);
}

void HighDimTensorFamily::enqueue(PlacedData& data, const RunBuffers& run, Part part,
                                  const Launch& launch) {
  withLabelBytes(label_bytes_, [&](auto label_type) {
    enqueueAs<decltype(label_type)>(data, run, part, launch);
  });
}

template <typename LabelT>
void HighDimTensorFamily::enqueueAs(PlacedData& data, const RunBuffers& run, Part part,
                                    const Launch& launch) {
  const cudaStream_t s = launch.stream;
  IterationEvents& events = *launch.events;
  const int k = run.k, d = data.d;
  if (part == Part::kUpdate) return enqueueUpdateFrom(run.global_totals, run, part, launch);
  AssignArgs<LabelT> a = assignArgsFor<LabelT>(data, run);  // counts: never (fits())
  a.clear = reinterpret_cast<unsigned long long*>(run.scalars);
  a.clear_words = sizeof(IterationScalars) / sizeof(unsigned long long);
  a.clear_totals = reinterpret_cast<unsigned long long*>(run.totals);
  // The sums are kept across iterations: zeroed for the run's first iteration only.
  a.clear_totals_words = run.in_half < 0 ? static_cast<std::size_t>(k) * (d + 1) : 0;
  HighDimTensorExtra x;
  x.norms = norms_.get();
  x.largest_norm_bits = largest_norm_.get();
  x.listed = listed_.get();
  x.listed_count = largest_norm_.get() + 1;
  x.row_inertia = row_inertia_.get();
  x.block_listed = run.block_work;

  events.start.recordInGraph(s);
  KMS_CUDA_CHECK(cudaMemsetAsync(largest_norm_.get(), 0, sizeof(unsigned), s));
  highDimNormsKernel<<<(k + 255) / 256, 256, 0, s>>>(a.centroids, k, d, norms_.get(),
                                                     largest_norm_.get(), x.listed_count);
  KMS_CHECK_LAUNCH();
  highDimTensorKernel<kFastTiles, false, LabelT>
      <<<plan_.blocks, kHdThreads, hdSharedBytes(kFastTiles), s>>>(a, x);
  KMS_CHECK_LAUNCH();
  // The rows the one-term bound left open (their count is on the device: every block reads it
  // and leaves if it has none).
  highDimTensorKernel<kSplitTiles, true, LabelT>
      <<<plan_.blocks, kHdThreads, hdSharedBytes(kSplitTiles), s>>>(a, x);
  KMS_CHECK_LAUNCH();
  highDimInertiaKernel<<<plan_.blocks, kHdScalarThreads, 0, s>>>(row_inertia_.get(), data.n,
                                                                 run.block_inertia);
  KMS_CHECK_LAUNCH();
  events.after_assign.recordInGraph(s);

  enqueueKeptSums(data, run, label_bytes_, plan_.sum_blocks, plan_.blocks, s, run.block_work);
  events.after_reduce.recordInGraph(s);
  if (part == Part::kSums) return;
  enqueueUpdateFrom(run.totals, run, part, launch);
}

}  // namespace kms::cuda
