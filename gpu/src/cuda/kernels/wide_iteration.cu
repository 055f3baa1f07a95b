#include "cuda/kernels/wide_iteration.cuh"

#include <algorithm>

#include "cuda/cuda_check.cuh"
#include "cuda/kernels/wide_kernel.cuh"

namespace kms::cuda {
namespace {

int wideDim(int d) {
  return d <= 32 ? 32 : 64;
}

std::size_t wideSharedBytes(int k, int D) {
  return static_cast<std::size_t>(k) * (centroidRow(D) + 1) * sizeof(float);
}

template <typename F>
void withWideDim(int d, F&& f) {
  if (wideDim(d) == 32)
    f.template operator()<32>();
  else
    f.template operator()<64>();
}

}  // namespace

bool fitsWideKernel(int d, int k) {
  return d > kCompactMaxD && d <= 64 && k >= 1 && k <= kWideMaxK;
}

template <typename LabelT>
AssignPlan planWide(std::size_t n, int d, int k, const DeviceLimits& limits) {
  AssignPlan plan;
  plan.wide = true;
  plan.template_dim = wideDim(d);
  plan.threads = kCompactThreads;
  plan.per_block_sums = false;
  plan.shared_bytes = wideSharedBytes(k, plan.template_dim);
  int per_sm = 0;
  withWideDim(d, [&]<int D>() {
    auto kernel = wideAssignKernel<D, LabelT>;
    KMS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(plan.shared_bytes)));
    KMS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kCompactThreads,
                                                                 plan.shared_bytes));
    // The geometry kernel stages the k rows alone (launchWideGeometry).
    KMS_CUDA_CHECK(cudaFuncSetAttribute(
        wideGeometryKernel<D, LabelT>, cudaFuncAttributeMaxDynamicSharedMemorySize,
        static_cast<int>(static_cast<std::size_t>(k) * centroidRow(D) * sizeof(float))));
  });
  // A thread takes a row per round.
  const std::size_t needed = (n + kCompactThreads - 1) / kCompactThreads;
  const int resident = std::max(1, std::min(per_sm, kWideBlocksPerSm));
  plan.blocks = static_cast<int>(std::max<std::size_t>(
      1,
      std::min<std::size_t>(needed, static_cast<std::size_t>(limits.multiprocessors) * resident)));
  return plan;
}

template <typename LabelT>
void launchWideAssign(const AssignPlan& plan, const CompactArgs<LabelT>& a, cudaStream_t stream) {
  withWideDim(a.d, [&]<int D>() {
    wideAssignKernel<D, LabelT><<<plan.blocks, kCompactThreads, plan.shared_bytes, stream>>>(a);
  });
  KMS_CHECK_LAUNCH();
}

template <typename LabelT>
void launchWideReduce(const CompactArgs<LabelT>& a, cudaStream_t stream) {
  launchReduce(nullptr, 0, 0, a.totals, a.block_inertia, a.block_changed, a.block_work, a.blocks,
               a.scalars, stream, /*work_stride=*/2);
}

template <typename LabelT>
void launchWideGeometry(const CompactArgs<LabelT>& a, const float* centroids, cudaStream_t stream) {
  const int warps = kCompactThreads / 32;
  withWideDim(a.d, [&]<int D>() {
    const std::size_t shared = static_cast<std::size_t>(a.k) * centroidRow(D) * sizeof(float);
    wideGeometryKernel<D, LabelT>
        <<<(a.k + warps - 1) / warps, kCompactThreads, shared, stream>>>(a, centroids);
  });
  KMS_CHECK_LAUNCH();
}

template <typename LabelT>
void launchWideUpdate(const CompactArgs<LabelT>& a, cudaStream_t stream) {
  launchUpdate(a.update_totals, a.centroids_in, a.centroids_out, a.empty_flags, a.scalars, a.report,
               a.update, stream);
  launchWideGeometry(a, a.centroids_out, stream);
}

#define KMS_WIDE_INSTANTIATE(LabelT)                                                    \
  template AssignPlan planWide<LabelT>(std::size_t, int, int, const DeviceLimits&);     \
  template void launchWideAssign<LabelT>(const AssignPlan&, const CompactArgs<LabelT>&, \
                                         cudaStream_t);                                 \
  template void launchWideReduce<LabelT>(const CompactArgs<LabelT>&, cudaStream_t);     \
  template void launchWideUpdate<LabelT>(const CompactArgs<LabelT>&, cudaStream_t);     \
  template void launchWideGeometry<LabelT>(const CompactArgs<LabelT>&, const float*, cudaStream_t);
KMS_WIDE_INSTANTIATE(std::uint8_t)
KMS_WIDE_INSTANTIATE(std::uint16_t)
#undef KMS_WIDE_INSTANTIATE

}  // namespace kms::cuda
