#include "cuda/repeat_groups.cuh"

#include <cub/device/device_scan.cuh>

#include "cuda/cuda_check.cuh"

namespace kms::cuda {
namespace {

constexpr int kThreads = 256;

unsigned blocksFor(std::size_t items) {
  return static_cast<unsigned>((items + kThreads - 1) / kThreads);
}

/// 1 where sorted row p starts a group (it is the first, or differs from the row before in some
/// coordinate's bits), else 0.
__global__ void groupHeadsKernel(const float* __restrict__ sorted, std::size_t n, int d,
                                 std::uint32_t* heads) {
  const std::size_t p = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (p >= n) return;
  bool head = p == 0;
  for (int c = 0; c < d && !head; ++c)
    head = __float_as_uint(sorted[p * d + c]) != __float_as_uint(sorted[(p - 1) * d + c]);
  heads[p] = head ? 1u : 0u;
}

/// Each group's first row: `number` holds the inclusive sum of the heads (group g + 1 at its
/// rows); the last entry of `starts` is n.
__global__ void groupStartsKernel(const std::uint32_t* __restrict__ heads,
                                  const std::uint32_t* __restrict__ number, std::size_t n,
                                  std::uint32_t* starts) {
  const std::size_t p = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (p >= n) return;
  if (heads[p]) starts[number[p] - 1] = static_cast<std::uint32_t>(p);
  if (p == n - 1) starts[number[p]] = static_cast<std::uint32_t>(n);
}

/// Each group's row and count.
__global__ void groupRowsKernel(const float* __restrict__ sorted, int d,
                                const std::uint32_t* __restrict__ starts, std::size_t groups,
                                float* values, std::uint32_t* counts) {
  const std::size_t g = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (g >= groups) return;
  const std::uint32_t first = starts[g];
  for (int c = 0; c < d; ++c)
    values[g * d + c] = sorted[static_cast<std::size_t>(first) * d + c];
  counts[g] = starts[g + 1] - first;
}

}  // namespace

std::size_t RepeatGroups::buildBytesFor(std::size_t n, int d) {
  // Heads and their sums (and the scan's scratch, small), then at most n groups.
  return n * 2 * sizeof(std::uint32_t) + (4u << 20) +
         n * (d * sizeof(float) + 2 * sizeof(std::uint32_t));
}

std::size_t RepeatGroups::bytes() const {
  return values_.bytes() + counts_.bytes() + starts_.bytes();
}

void RepeatGroups::release() noexcept {
  groups_ = 0;
  values_.release();
  counts_.release();
  starts_.release();
}

void RepeatGroups::build(const float* sorted, std::size_t n, int d, std::size_t max_groups,
                         cudaStream_t stream) {
  release();
  if (n == 0 || n > 0xffffffffu) return;  // group starts are 32-bit row indices
  DeviceBuffer<std::uint32_t> heads(n), number(n);
  groupHeadsKernel<<<blocksFor(n), kThreads, 0, stream>>>(sorted, n, d, heads.get());
  KMS_CHECK_LAUNCH();
  std::size_t scratch_bytes = 0;
  KMS_CUDA_CHECK(
      cub::DeviceScan::InclusiveSum(nullptr, scratch_bytes, heads.get(), number.get(), n, stream));
  DeviceBuffer<unsigned char> scratch(scratch_bytes);
  KMS_CUDA_CHECK(cub::DeviceScan::InclusiveSum(scratch.get(), scratch_bytes, heads.get(),
                                               number.get(), n, stream));
  std::uint32_t groups = 0;
  KMS_CUDA_CHECK(cudaMemcpyAsync(&groups, number.get() + (n - 1), sizeof(groups),
                                 cudaMemcpyDeviceToHost, stream));
  KMS_CUDA_CHECK(cudaStreamSynchronize(stream));
  if (groups == 0 || groups > max_groups) return;
  starts_.resize(static_cast<std::size_t>(groups) + 1);
  values_.resize(static_cast<std::size_t>(groups) * d);
  counts_.resize(groups);
  groupStartsKernel<<<blocksFor(n), kThreads, 0, stream>>>(heads.get(), number.get(), n,
                                                           starts_.get());
  KMS_CHECK_LAUNCH();
  groupRowsKernel<<<blocksFor(groups), kThreads, 0, stream>>>(sorted, d, starts_.get(), groups,
                                                              values_.get(), counts_.get());
  KMS_CHECK_LAUNCH();
  KMS_CUDA_CHECK(cudaStreamSynchronize(stream));  // the buffers above go out of scope
  groups_ = groups;
}

}  // namespace kms::cuda
