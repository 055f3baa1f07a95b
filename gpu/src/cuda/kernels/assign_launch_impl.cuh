// Implementation of planAssign/launchAssign, included once per label type by assign_u8.cu and
// assign_u16.cu (explicit instantiation per type; two files so both compile in parallel).
#pragma once

#include <algorithm>

#include "cuda/cuda_check.cuh"
#include "cuda/kernels/accumulate_kernel.cuh"
#include "cuda/kernels/assign_generic_kernel.cuh"
#include "cuda/kernels/assign_kernel.cuh"
#include "cuda/kernels/assign_launch.cuh"
#include "cuda/kernels/assign_tensor_kernel.cuh"
#include "cuda/kernels/assign_tiled_kernel.cuh"

namespace kms::cuda {
namespace detail {

inline constexpr int kGenericThreads = 256;
inline constexpr int kSumThreads = 512;
/// Fewer centroids per shared-memory chunk than this and the generic kernel is as good.
inline constexpr int kMinChunk = 32;
/// Kept free of the opt-in shared-memory limit for the kernel's static shared memory (CUB).
inline constexpr std::size_t kStaticSharedReserve = 2048;
/// Per-warp accumulator copies are used while they need at most this much shared memory.
inline constexpr std::size_t kPerWarpAccumulatorBytes = 64 * 1024;

/// Sets `kernel`'s shared-memory limit to plan.shared_bytes and its launch shape: `threads` per
/// block, one block per `tile` points, at most as many blocks as fit on the device at once.
template <typename Kernel>
void configureKernel(AssignPlan& plan, Kernel kernel, int threads, std::size_t tile, std::size_t n,
                     const DeviceLimits& limits) {
  KMS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(plan.shared_bytes)));
  int per_sm = 0;
  KMS_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, threads, plan.shared_bytes));
  plan.threads = threads;
  const std::size_t tiles = (n + tile - 1) / tile;
  plan.blocks = static_cast<int>(std::min<std::size_t>(
      tiles, static_cast<std::size_t>(limits.multiprocessors) * std::max(per_sm, 1)));
}

template <int D, typename LabelT>
void configureTemplated(AssignPlan& plan, std::size_t n, const DeviceLimits& limits) {
  constexpr int threads = assignThreads(D);
  configureKernel(plan, assignKernel<D, LabelT, threads>, threads,
                  static_cast<std::size_t>(threads) * pointsPerThread(D), n, limits);
}

/// Coordinates per lane in accumulateKernel (d ≤ 32·V); the separate pass serves d ≤ 64.
inline int sumValuesPerLane(int d) {
  return d <= 32 ? 1 : 2;
}

template <typename LabelT>
void configureSeparateSums(AssignPlan& plan, std::size_t n, const DeviceLimits& limits) {
  auto kernel = plan.sum_values_per_lane == 1 ? accumulateKernel<kSumThreads, 1, LabelT>
                                              : accumulateKernel<kSumThreads, 2, LabelT>;
  KMS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(plan.sum_shared_bytes)));
  int per_sm = 0;
  KMS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kSumThreads,
                                                               plan.sum_shared_bytes));
  plan.sum_threads = kSumThreads;
  const std::size_t warps_needed = (n + 31) / 32;
  const std::size_t blocks_needed = (warps_needed + kSumThreads / 32 - 1) / (kSumThreads / 32);
  plan.sum_blocks = static_cast<int>(std::min<std::size_t>(
      blocks_needed, static_cast<std::size_t>(limits.multiprocessors) * std::max(per_sm, 1)));
}

template <typename LabelT>
void configureGeneric(AssignPlan& plan, std::size_t n, const DeviceLimits& limits) {
  auto kernel = assignGenericKernel<LabelT, kGenericThreads>;
  int per_sm = 0;
  KMS_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kGenericThreads, 0));
  plan.threads = kGenericThreads;
  const std::size_t blocks = (n + kGenericThreads - 1) / kGenericThreads;
  plan.blocks = static_cast<int>(std::min<std::size_t>(
      blocks, static_cast<std::size_t>(limits.multiprocessors) * std::max(per_sm, 1)));
}

/// Calls f.template operator()<D>() for the compiled D of the point-per-thread kernel.
template <typename F>
void withSmallDim(int D, F&& f) {
  // clang-format off
  switch (D) {
    case 1: f.template operator()<1>(); break;
    case 2: f.template operator()<2>(); break;
    case 3: f.template operator()<3>(); break;
    case 4: f.template operator()<4>(); break;
    case 8: f.template operator()<8>(); break;
    case 9: f.template operator()<9>(); break;
    case 16: f.template operator()<16>(); break;
    default: break;
  }
  // clang-format on
}

/// Large d runs on the register-tiled kernel (assign_tiled_kernel.cuh), and so do small data
/// sets with d ≤ 16 that would not give the point-per-thread kernel one block per
/// multiprocessor (its blocks take 1,024 points; the tiled kernel's take 64).
inline bool usesTiledKernel(int D, std::size_t n, const DeviceLimits& limits) {
  if (D >= 32) return true;
  if (D > 16) return false;
  const std::size_t tile = static_cast<std::size_t>(assignThreads(D)) * pointsPerThread(D);
  return (n + tile - 1) / tile < static_cast<std::size_t>(limits.multiprocessors);
}
using ::kms::cuda::tiledSharedBytes;

template <int D, typename LabelT>
void configureTiled(AssignPlan& plan, std::size_t n, const DeviceLimits& limits) {
  configureKernel(plan, assignTiledKernel<D, LabelT>, kTiledThreads, kTiledPoints, n, limits);
}

template <int D, typename LabelT>
void configureTensor(AssignPlan& plan, std::size_t n, const DeviceLimits& limits) {
  configureKernel(plan, assignTensorKernel<D, LabelT>, kTensorThreads, kTensorPoints, n, limits);
}

/// The tensor-core plan for D = 32 or 64: all centroids staged at once when they fit beside the
/// points in half a multiprocessor's shared memory (two blocks per SM), else chunks of 32·m.
/// False when not even one chunk of 32 fits.
template <typename LabelT>
bool planTensor(AssignPlan& plan, int D, std::size_t n, int k, std::size_t budget,
                const DeviceLimits& limits) {
  const std::size_t half_sm = limits.shared_per_multiprocessor / 2 > kStaticSharedReserve
                                  ? limits.shared_per_multiprocessor / 2 - kStaticSharedReserve
                                  : 0;
  const std::size_t room = std::min(budget, half_sm);
  const std::size_t fixed = tensorSharedBytes(D, 0);
  const std::size_t per_centroid = tensorSharedBytes(D, 1) - fixed;
  if (room < fixed + kTensorColumns * per_centroid) return false;
  const std::size_t fit = (room - fixed) / per_centroid / kTensorColumns * kTensorColumns;
  const std::size_t needed =
      (static_cast<std::size_t>(k) + kTensorColumns - 1) / kTensorColumns * kTensorColumns;
  plan.template_dim = D;
  plan.tensor = true;
  plan.centroid_chunk = static_cast<int>(std::min(fit, needed));
  plan.shared_bytes = tensorSharedBytes(D, plan.centroid_chunk);
  plan.per_block_sums = true;
  if (D == 32) configureTensor<32, LabelT>(plan, n, limits);
  if (D == 64) configureTensor<64, LabelT>(plan, n, limits);
  return true;
}

}  // namespace detail

template <typename LabelT>
AssignPlan planAssign(std::size_t n, int d, int k, const DeviceLimits& limits) {
  AssignPlan plan;
  int D = 0;
  for (int candidate : kTemplateDims)
    if (candidate >= d) {
      D = candidate;
      break;
    }
  const std::size_t budget = limits.max_shared_per_block - detail::kStaticSharedReserve;
  const std::size_t columns = static_cast<std::size_t>(k) * (d + 1);
  const std::size_t sum_shared =
      columns * sizeof(long long) + static_cast<std::size_t>(d) * sizeof(float);
  const bool tiled = D > 0 && detail::usesTiledKernel(D, n, limits);
  if (tiled && D >= 32 && limits.tensor_cores && sum_shared <= budget &&
      detail::planTensor<LabelT>(plan, D, n, k, budget, limits)) {
    plan.separate_sums = true;
    plan.sum_shared_bytes = sum_shared;
    plan.sum_values_per_lane = detail::sumValuesPerLane(d);
    detail::configureSeparateSums<LabelT>(plan, n, limits);
    return plan;
  }
  if (tiled && sum_shared <= budget) {
    if (D < 16) D = 16;  // the tiled kernel is compiled for 16, 32 and 64
    // Centroids staged in chunks of whole 64-wide tiles; as many as fit (two blocks per SM).
    const std::size_t per_tile =
        detail::tiledSharedBytes(D, kTiledCentroids) - detail::tiledSharedBytes(D, 0);
    const std::size_t room = budget / 2 > detail::tiledSharedBytes(D, 0)
                                 ? budget / 2 - detail::tiledSharedBytes(D, 0)
                                 : 0;
    const int tiles_fit = static_cast<int>(room / per_tile);
    const int tiles_needed = (k + kTiledCentroids - 1) / kTiledCentroids;
    if (tiles_fit >= 1) {
      plan.template_dim = D;
      plan.tiled = true;
      plan.centroid_chunk = std::min(tiles_fit, tiles_needed) * kTiledCentroids;
      plan.shared_bytes = detail::tiledSharedBytes(D, plan.centroid_chunk);
      plan.per_block_sums = true;
      if (D == 16) detail::configureTiled<16, LabelT>(plan, n, limits);
      if (D == 32) detail::configureTiled<32, LabelT>(plan, n, limits);
      if (D == 64) detail::configureTiled<64, LabelT>(plan, n, limits);
      plan.separate_sums = true;
      plan.sum_shared_bytes = sum_shared;
      plan.sum_values_per_lane = detail::sumValuesPerLane(d);
      detail::configureSeparateSums<LabelT>(plan, n, limits);
      return plan;
    }
  }
  if (D > 0 && !tiled) {
    const int threads = assignThreads(D);
    const int warps = threads / 32;
    // Sums fused into the pass: one accumulator copy per warp when that is small.
    const int copies =
        warps * columns * sizeof(long long) <= detail::kPerWarpAccumulatorBytes ? warps : 1;
    const std::size_t acc_bytes = copies * columns * sizeof(long long);
    const std::size_t scale_bytes = static_cast<std::size_t>((D + 3) / 4) * 4 * sizeof(float);
    const std::size_t per_centroid = static_cast<std::size_t>(sharedBytesPerCentroid(D, warps));
    const std::size_t fixed = acc_bytes + scale_bytes + 16;  // 16: alignment of the scale block
    if (fixed + detail::kMinChunk * per_centroid <= budget) {
      const std::size_t fit = (budget - fixed) / per_centroid;
      plan.template_dim = D;
      plan.centroid_chunk =
          static_cast<int>(std::min<std::size_t>(fit, static_cast<std::size_t>(k)));
      plan.accumulator_copies = copies;
      plan.shared_bytes = plan.centroid_chunk * per_centroid + fixed;
      plan.per_block_sums = true;
      detail::withSmallDim(
          D, [&]<int TD>() { detail::configureTemplated<TD, LabelT>(plan, n, limits); });
      return plan;
    }
  }
  return planGeneric<LabelT>(n, limits);
}

template <typename LabelT>
AssignPlan planGeneric(std::size_t n, const DeviceLimits& limits) {
  AssignPlan plan;
  plan.template_dim = 0;
  plan.per_block_sums = false;
  detail::configureGeneric<LabelT>(plan, n, limits);
  return plan;
}

template <typename LabelT>
void launchAssign(const AssignPlan& plan, const AssignArgs<LabelT>& args, cudaStream_t stream) {
  if (plan.template_dim == 0) {
    assignGenericKernel<LabelT, detail::kGenericThreads>
        <<<plan.blocks, plan.threads, 0, stream>>>(args);
    KMS_CHECK_LAUNCH();
    return;
  }
  if (plan.tensor) {
    if (plan.template_dim == 32)
      assignTensorKernel<32, LabelT>
          <<<plan.blocks, plan.threads, plan.shared_bytes, stream>>>(args, plan.centroid_chunk);
    else
      assignTensorKernel<64, LabelT>
          <<<plan.blocks, plan.threads, plan.shared_bytes, stream>>>(args, plan.centroid_chunk);
  } else if (plan.tiled) {
    if (plan.template_dim == 16)
      assignTiledKernel<16, LabelT>
          <<<plan.blocks, plan.threads, plan.shared_bytes, stream>>>(args, plan.centroid_chunk);
    else if (plan.template_dim == 32)
      assignTiledKernel<32, LabelT>
          <<<plan.blocks, plan.threads, plan.shared_bytes, stream>>>(args, plan.centroid_chunk);
    else
      assignTiledKernel<64, LabelT>
          <<<plan.blocks, plan.threads, plan.shared_bytes, stream>>>(args, plan.centroid_chunk);
  } else {
    detail::withSmallDim(plan.template_dim, [&]<int TD>() {
      assignKernel<TD, LabelT, assignThreads(TD)>
          <<<plan.blocks, plan.threads, plan.shared_bytes, stream>>>(args, plan.centroid_chunk,
                                                                     plan.accumulator_copies);
    });
  }
  KMS_CHECK_LAUNCH();
}

template <typename LabelT>
void launchAccumulate(const AssignPlan& plan, const AccumulateArgs<LabelT>& args,
                      cudaStream_t stream) {
  if (plan.sum_values_per_lane == 1)
    accumulateKernel<detail::kSumThreads, 1, LabelT>
        <<<plan.sum_blocks, plan.sum_threads, plan.sum_shared_bytes, stream>>>(args);
  else
    accumulateKernel<detail::kSumThreads, 2, LabelT>
        <<<plan.sum_blocks, plan.sum_threads, plan.sum_shared_bytes, stream>>>(args);
  KMS_CHECK_LAUNCH();
}

}  // namespace kms::cuda
