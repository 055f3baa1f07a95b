#include "cuda/kernels/compact_iteration.cuh"

#include <cooperative_groups.h>

#include <algorithm>

#include "cuda/cuda_check.cuh"
#include "cuda/kernels/compact_kernel.cuh"
#include "cuda/kernels/compact_update.cuh"
#include "cuda/kernels/tile_kernel.cuh"

namespace kms::cuda {
namespace {

/// Resident blocks per multiprocessor the grid is sized for (at most): every block that fits,
/// in one wave. (4, 5 or 6 measured within 5 % of each other on an H200.)
constexpr int kCompactBlocksPerSm = 8;

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

/// The assignment kernel for the plan: whole point tiles (plan.point_tiles), or rows (one a
/// thread with plan.small_rows).
template <int D, typename LabelT>
auto compactAssignFor(const AssignPlan& plan) {
  if constexpr (D <= 4)
    if (plan.point_tiles) return tileAssignKernel<D, LabelT>;
  if constexpr (D >= 8 && sizeof(LabelT) == 1)  // k ≤ 256 there: 16-bit labels never run
    if (plan.small_rows) return compactAssignKernel<D, LabelT, 1>;
  return compactAssignKernel<D, LabelT>;
}

template <typename LabelT>
void launchCompactAssign(const AssignPlan& plan, const CompactArgs<LabelT>& args,
                         cudaStream_t stream) {
  withCompactDim(args.d, [&]<int D>() {
    compactAssignFor<D, LabelT>(plan)<<<plan.blocks, kCompactThreads, plan.shared_bytes, stream>>>(
        args);
  });
  KMS_CHECK_LAUNCH();
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
      plan.template_dim >= 8 && sizeof(LabelT) == 1 && !plan.point_tiles &&
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
void launchCompactUpdate(const CompactArgs<LabelT>& args, cudaStream_t stream) {
  withCompactDim(args.d, [&]<int D>() {
    if (smallUpdate(args.k)) {
      compactSmallUpdateKernel<D, LabelT><<<1, kCompactThreads, 0, stream>>>(args);
    } else if (spreadsGeometry(args.k)) {
      compactSpreadUpdateKernel<D, LabelT>
          <<<spreadBlocks(args.k), kCompactThreads, 0, stream>>>(args);
    } else {
      compactUpdateKernel<D, LabelT><<<1, kCompactThreads, 0, stream>>>(args);
    }
  });
  KMS_CHECK_LAUNCH();
}

template <typename LabelT>
void launchCompactIteration(const AssignPlan& plan, const CompactArgs<LabelT>& args,
                            cudaStream_t stream) {
  launchCompactAssign(plan, args, stream);
  launchCompactUpdate(args, stream);
}

namespace {

/// Iterations of compactAssignBlock and loopUpdateBlock in one cooperative launch of the
/// assignment's grid, which waits for itself between them: the assignment's moved sums and
/// block results are complete before the update reads them, and the update's centroids,
/// geometry and run counters before the next assignment reads them (grid.sync orders the memory
/// of the whole grid; the centroids are staged through L2, see stageCentroids). Each iteration's
/// verdict is read by every block from the scalars after the second wait, so all blocks leave
/// the loop together. For the wider rows only (4 < d ≤ 16, D = 8, 16): d ≤ 4 runs on point
/// tiles or sorted runs.
template <int D, typename LabelT, int P>
__global__ void __launch_bounds__(kCompactThreads)
    compactIterationsKernel(CompactArgs<LabelT> a, CompactLoop loop) {
  const cooperative_groups::grid_group grid = cooperative_groups::this_grid();
  const bool updates = static_cast<int>(blockIdx.x) < loopUpdateBlocks(a.k);
  CompactArgs<LabelT> it = a;
  int i = 0;
  while (i < loop.count) {
    it.centroids_in = loop.centroids[i & 1];
    it.centroids_out = loop.centroids[(i & 1) ^ 1];
    if (i > 0) it.labels_in = it.labels_out;  // the same half from then on, as step() writes
    it.report = loop.reports + i;
    compactAssignBlock<D, LabelT, P>(it);
    grid.sync();
    if (updates) loopUpdateBlock<D>(it);
    grid.sync();
    ++i;
    const volatile IterationScalars* s = it.scalars;
    if ((loop.stop_on_converged && s->converged != 0) || (loop.stop_on_empty && s->empty_count > 0))
      break;
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) *loop.done = i;
}

/// Calls f(kernel) with the loop kernel for the plan; false where there is none. Compiled for
/// D = 8, 16 and 8-bit labels only: d ≤ 4 runs on point tiles or sorted runs, and wider rows
/// take at most k = 256 (compactMaxK), whose labels are 8-bit.
template <typename LabelT, typename F>
bool withLoopKernel(const AssignPlan& plan, int d, F&& f) {
  if constexpr (sizeof(LabelT) != 1) {
    return false;
  } else {
    if (d <= 4 || d > kCompactMaxD) return false;
    const bool wide = compactDim(d) == 16;
    if (plan.small_rows)
      f(wide ? compactIterationsKernel<16, LabelT, 1> : compactIterationsKernel<8, LabelT, 1>);
    else
      f(wide ? compactIterationsKernel<16, LabelT, compactRowsPerThread(16)>
             : compactIterationsKernel<8, LabelT, compactRowsPerThread(8)>);
    return true;
  }
}

}  // namespace

template <typename LabelT>
bool compactLoopFits(const AssignPlan& plan, int d, int k) {
  if (!plan.compact || plan.point_tiles || plan.blocks < loopUpdateBlocks(k)) return false;
  int device = 0, cooperative = 0, multiprocessors = 0;
  KMS_CUDA_CHECK(cudaGetDevice(&device));
  KMS_CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, device));
  KMS_CUDA_CHECK(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device));
  if (cooperative == 0) return false;
  int per_sm = 0;
  const bool compiled = withLoopKernel<LabelT>(plan, d, [&](auto kernel) {
    KMS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(plan.shared_bytes)));
    KMS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kCompactThreads,
                                                                 plan.shared_bytes));
  });
  return compiled && static_cast<long long>(per_sm) * multiprocessors >= plan.blocks;
}

template <typename LabelT>
void launchCompactIterations(const AssignPlan& plan, const CompactArgs<LabelT>& args,
                             const CompactLoop& loop, cudaStream_t stream) {
  CompactArgs<LabelT> a = args;
  CompactLoop l = loop;
  void* params[] = {&a, &l};
  const bool compiled = withLoopKernel<LabelT>(plan, args.d, [&](auto kernel) {
    KMS_CUDA_CHECK(cudaLaunchCooperativeKernel(reinterpret_cast<const void*>(kernel),
                                               dim3(plan.blocks), dim3(kCompactThreads), params,
                                               plan.shared_bytes, stream));
  });
  if (!compiled) throw DeviceError("internal error: no compact loop kernel for this dimension");
  KMS_CHECK_LAUNCH();
}

template <typename LabelT>
void launchCompactSums(const AssignPlan& plan, const CompactArgs<LabelT>& args,
                       cudaStream_t stream) {
  launchCompactAssign(plan, args, stream);
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
template void launchCompactIteration<std::uint8_t>(const AssignPlan&,
                                                   const CompactArgs<std::uint8_t>&, cudaStream_t);
template void launchCompactIteration<std::uint16_t>(const AssignPlan&,
                                                    const CompactArgs<std::uint16_t>&,
                                                    cudaStream_t);
template void launchCompactSums<std::uint8_t>(const AssignPlan&, const CompactArgs<std::uint8_t>&,
                                              cudaStream_t);
template void launchCompactSums<std::uint16_t>(const AssignPlan&, const CompactArgs<std::uint16_t>&,
                                               cudaStream_t);
template void launchCompactUpdate<std::uint8_t>(const CompactArgs<std::uint8_t>&, cudaStream_t);
template void launchCompactUpdate<std::uint16_t>(const CompactArgs<std::uint16_t>&, cudaStream_t);
template bool compactLoopFits<std::uint8_t>(const AssignPlan&, int, int);
template bool compactLoopFits<std::uint16_t>(const AssignPlan&, int, int);
template void launchCompactIterations<std::uint8_t>(const AssignPlan&,
                                                    const CompactArgs<std::uint8_t>&,
                                                    const CompactLoop&, cudaStream_t);
template void launchCompactIterations<std::uint16_t>(const AssignPlan&,
                                                     const CompactArgs<std::uint16_t>&,
                                                     const CompactLoop&, cudaStream_t);
template void launchCompactGeometry<std::uint8_t>(const CompactArgs<std::uint8_t>&, const float*,
                                                  cudaStream_t);
template void launchCompactGeometry<std::uint16_t>(const CompactArgs<std::uint16_t>&, const float*,
                                                   cudaStream_t);

}  // namespace kms::cuda
