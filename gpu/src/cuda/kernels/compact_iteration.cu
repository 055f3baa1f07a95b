#include "cuda/kernels/compact_iteration.cuh"

#include <algorithm>
#include <utility>

#include "cuda/cuda_check.cuh"
#include "cuda/kernels/compact_kernel.cuh"
#include "cuda/kernels/compact_update.cuh"
#include "cuda/kernels/group_labels.cuh"
#include "cuda/kernels/tile_kernel.cuh"

namespace kms::cuda {
namespace {

std::size_t compactSharedBytes(int d, int k, int D) {
  // Rows, the sums' two words, then half gaps, projections and their order.
  return static_cast<std::size_t>(k) * centroidRow(D) * sizeof(float) +
         2 * static_cast<std::size_t>(k) * (d + 1) * sizeof(unsigned) +
         static_cast<std::size_t>(k) * (2 * sizeof(float) + sizeof(unsigned short));
}

/// The compiled D for d (see kCompactMaxD).
int compactDim(int d) {
  return d <= 4 ? d : (d <= 8 ? 8 : 16);
}

/// Calls f.template operator()<D>() for the compiled D ≥ d.
template <typename F>
void withCompactDim(int d, F&& f) {
  // clang-format off
  switch (compactDim(d)) {
    case 1: f.template operator()<1>(); break;
    case 2: f.template operator()<2>(); break;
    case 3: f.template operator()<3>(); break;
    case 4: f.template operator()<4>(); break;
    case 8: f.template operator()<8>(); break;
    default: f.template operator()<16>(); break;
  }
  // clang-format on
}

/// Whether the one-row-a-thread kernel (AssignPlan::small_rows) is compiled for D and labels of
/// `label_bytes`: D = 8, 16, 8-bit labels (k ≤ 256 there: 16-bit labels never run).
constexpr bool hasSmallRowsKernel(int D, std::size_t label_bytes) {
  return D >= 8 && label_bytes == 1;
}

/// The assignment kernel for the plan: whole point tiles (plan.point_tiles), or rows (one a
/// thread with plan.small_rows).
template <int D, typename LabelT>
auto compactAssignFor(const AssignPlan& plan) {
  if constexpr (D <= 4)
    if (plan.point_tiles) return tileAssignKernel<D, LabelT>;
  if constexpr (hasSmallRowsKernel(D, sizeof(LabelT)))
    if (plan.small_rows) return compactAssignKernel<D, LabelT, 1>;
  return compactAssignKernel<D, LabelT>;
}

/// Launches `kernel`; with `after_kernel`, as a programmatic dependent launch of the kernel
/// before it in the stream (waitForPriorKernel), which stream capture records as a programmatic
/// edge of the graph.
template <typename... Params, typename... Args>
void launchCompactKernel(void (*kernel)(Params...), int blocks, std::size_t shared_bytes,
                         cudaStream_t stream, bool after_kernel, Args&&... args) {
  cudaLaunchAttribute programmatic[1];
  programmatic[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  programmatic[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(static_cast<unsigned>(blocks));
  config.blockDim = dim3(kCompactThreads);
  config.dynamicSmemBytes = shared_bytes;
  config.stream = stream;
  config.attrs = programmatic;
  config.numAttrs = after_kernel ? 1 : 0;
  KMS_CUDA_CHECK(cudaLaunchKernelEx(&config, kernel, std::forward<Args>(args)...));
}

}  // namespace

bool fitsCompactKernel(int d, int k) {
  return d >= 1 && d <= kCompactMaxD && k >= 1 && k <= compactMaxK(compactDim(d));
}

template <typename LabelT>
AssignPlan planCompact(std::size_t n, int d, int k, std::size_t tiles, const DeviceLimits& limits) {
  AssignPlan plan;
  plan.compact = true;
  plan.point_tiles = tiles > 0 && d <= 4;
  plan.template_dim = compactDim(d);
  plan.threads = kCompactThreads;
  plan.per_block_sums = false;
  plan.shared_bytes = compactSharedBytes(d, k, plan.template_dim);
  // A block takes a batch of rows per round, or with tiles a tile per thread.
  const std::size_t wide_batch =
      static_cast<std::size_t>(kCompactThreads) * compactRowsPerThread(plan.template_dim);
  plan.small_rows =
      hasSmallRowsKernel(plan.template_dim, sizeof(LabelT)) && !plan.point_tiles &&
      (n + wide_batch - 1) / wide_batch < static_cast<std::size_t>(limits.multiprocessors);
  int per_sm = 0;
  withCompactDim(d, [&]<int D>() {
    auto kernel = compactAssignFor<D, LabelT>(plan);
    KMS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(plan.shared_bytes)));
    KMS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kCompactThreads,
                                                                 plan.shared_bytes));
  });
  const std::size_t batch = plan.small_rows ? kCompactThreads : wide_batch;
  const std::size_t needed =
      plan.point_tiles ? (tiles + kCompactThreads - 1) / kCompactThreads : (n + batch - 1) / batch;
  const int resident = std::max(1, std::min(per_sm, kCompactBlocksPerSm));
  plan.blocks = static_cast<int>(std::max<std::size_t>(
      1,
      std::min<std::size_t>(needed, static_cast<std::size_t>(limits.multiprocessors) * resident)));
  return plan;
}

namespace {

/// The geometry of `centroids`: spread over a warp per centroid (spreadsGeometry), or one block.
template <typename LabelT>
void launchGeometry(const CompactArgs<LabelT>& args, const float* centroids, cudaStream_t stream) {
  if (spreadsGeometry(args.k)) {
    withCompactDim(args.d, [&]<int D>() {
      spreadGeometryKernel<D, LabelT>
          <<<spreadBlocks(args.k), kCompactThreads, 0, stream>>>(args, centroids);
    });
  } else {
    withCompactDim(args.d, [&]<int D>() {
      compactGeometryKernel<D, LabelT><<<1, kCompactThreads, 0, stream>>>(args, centroids);
    });
  }
  KMS_CHECK_LAUNCH();
}

}  // namespace

template <typename LabelT>
void launchCompactUpdate(const CompactArgs<LabelT>& args, cudaStream_t stream, bool after_kernel) {
  withCompactDim(args.d, [&]<int D>() {
    if (smallUpdate(args.k))
      launchCompactKernel(compactSmallUpdateKernel<D, LabelT>, 1, 0, stream, after_kernel, args);
    else if (spreadsGeometry(args.k))
      launchCompactKernel(compactSpreadUpdateKernel<D, LabelT>, spreadUpdateBlocks(args.k), 0,
                          stream, after_kernel, args);
    else
      launchCompactKernel(compactUpdateKernel<D, LabelT>, 1, 0, stream, after_kernel, args);
  });
  KMS_CHECK_LAUNCH();
}

template <typename LabelT>
void launchCompactAssign(const AssignPlan& plan, const CompactArgs<LabelT>& args,
                         cudaStream_t stream, bool after_kernel) {
  withCompactDim(args.d, [&]<int D>() {
    launchCompactKernel(compactAssignFor<D, LabelT>(plan), plan.blocks, plan.shared_bytes, stream,
                        after_kernel, args);
  });
  KMS_CHECK_LAUNCH();
  if (args.group_starts != nullptr) {  // groups of equal rows: their rows' labels
    launchCompactKernel(expandGroupLabelsKernel<LabelT>, plan.group_blocks, 0, stream,
                        plan.dependent_launches, args);
    KMS_CHECK_LAUNCH();
  }
}

template <typename LabelT>
void launchCompactShardScalars(const CompactArgs<LabelT>& args, cudaStream_t stream) {
  compactShardScalarsKernel<LabelT><<<1, kCompactThreads, 0, stream>>>(args);
  KMS_CHECK_LAUNCH();
}

template <typename LabelT>
void launchCompactGeometry(const CompactArgs<LabelT>& args, const float* centroids,
                           cudaStream_t stream) {
  launchGeometry(args, centroids, stream);
}

template AssignPlan planCompact<std::uint8_t>(std::size_t, int, int, std::size_t,
                                              const DeviceLimits&);
template AssignPlan planCompact<std::uint16_t>(std::size_t, int, int, std::size_t,
                                               const DeviceLimits&);
template void launchCompactAssign<std::uint8_t>(const AssignPlan&, const CompactArgs<std::uint8_t>&,
                                                cudaStream_t, bool);
template void launchCompactAssign<std::uint16_t>(const AssignPlan&,
                                                 const CompactArgs<std::uint16_t>&, cudaStream_t,
                                                 bool);
template void launchCompactShardScalars<std::uint8_t>(const CompactArgs<std::uint8_t>&,
                                                      cudaStream_t);
template void launchCompactShardScalars<std::uint16_t>(const CompactArgs<std::uint16_t>&,
                                                       cudaStream_t);
template void launchCompactUpdate<std::uint8_t>(const CompactArgs<std::uint8_t>&, cudaStream_t,
                                                bool);
template void launchCompactUpdate<std::uint16_t>(const CompactArgs<std::uint16_t>&, cudaStream_t,
                                                 bool);
template void launchCompactGeometry<std::uint8_t>(const CompactArgs<std::uint8_t>&, const float*,
                                                  cudaStream_t);
template void launchCompactGeometry<std::uint16_t>(const CompactArgs<std::uint16_t>&, const float*,
                                                   cudaStream_t);

}  // namespace kms::cuda
