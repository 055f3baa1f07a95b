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

/// Each group's row, count and number of segments (kGroupSegment rows at most), with a 0 past
/// the last group for the exclusive sum that gives each group's first segment.
__global__ void groupRowsKernel(const float* __restrict__ sorted, int d,
                                const std::uint32_t* __restrict__ starts, std::size_t groups,
                                float* values, std::uint32_t* counts,
                                std::uint32_t* segment_counts) {
  const std::size_t g = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (g > groups) return;
  if (g == groups) {
    segment_counts[g] = 0u;
    return;
  }
  const std::uint32_t first = starts[g];
  for (int c = 0; c < d; ++c)
    values[g * d + c] = sorted[static_cast<std::size_t>(first) * d + c];
  const std::uint32_t count = starts[g + 1] - first;
  counts[g] = count;
  segment_counts[g] = (count + kGroupSegment - 1) / kGroupSegment;
}

/// Names each segment's group.
__global__ void segmentGroupsKernel(const std::uint32_t* __restrict__ segment_first,
                                    std::size_t groups, std::uint32_t* segment_group) {
  const std::size_t g = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (g >= groups) return;
  for (std::uint32_t s = segment_first[g]; s < segment_first[g + 1]; ++s)
    segment_group[s] = static_cast<std::uint32_t>(g);
}

}  // namespace

std::size_t RepeatGroups::buildBytesFor(std::size_t n, int d) {
  // Heads and their sums (and the scans' scratch, small), then at most n groups of a row, a
  // count, a start and a first segment, each with at most one segment and n / kGroupSegment more.
  return n * 2 * sizeof(std::uint32_t) + (4u << 20) +
         n * (d * sizeof(float) + 4 * sizeof(std::uint32_t)) +
         (n + n / kGroupSegment + 1) * sizeof(std::uint32_t);
}

std::size_t RepeatGroups::bytes() const {
  return values_.bytes() + counts_.bytes() + starts_.bytes() + segment_first_.bytes() +
         segment_group_.bytes();
}

void RepeatGroups::release() noexcept {
  groups_ = 0;
  segments_ = 0;
  values_.release();
  counts_.release();
  starts_.release();
  segment_first_.release();
  segment_group_.release();
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
  DeviceBuffer<std::uint32_t> segment_counts(static_cast<std::size_t>(groups) + 1);
  groupRowsKernel<<<blocksFor(groups + 1), kThreads, 0, stream>>>(
      sorted, d, starts_.get(), groups, values_.get(), counts_.get(), segment_counts.get());
  KMS_CHECK_LAUNCH();
  // The segments: an exclusive sum of their numbers (the last entry, past the groups, is the
  // total).
  segment_first_.resize(static_cast<std::size_t>(groups) + 1);
  scratch_bytes = 0;
  KMS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scratch_bytes, segment_counts.get(),
                                               segment_first_.get(), groups + 1, stream));
  DeviceBuffer<unsigned char> segment_scratch(scratch_bytes);
  KMS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(segment_scratch.get(), scratch_bytes,
                                               segment_counts.get(), segment_first_.get(),
                                               groups + 1, stream));
  std::uint32_t segments = 0;
  KMS_CUDA_CHECK(cudaMemcpyAsync(&segments, segment_first_.get() + groups, sizeof(segments),
                                 cudaMemcpyDeviceToHost, stream));
  KMS_CUDA_CHECK(cudaStreamSynchronize(stream));
  segment_group_.resize(segments);
  segmentGroupsKernel<<<blocksFor(groups), kThreads, 0, stream>>>(segment_first_.get(), groups,
                                                                  segment_group_.get());
  KMS_CHECK_LAUNCH();
  KMS_CUDA_CHECK(cudaStreamSynchronize(stream));  // the buffers above go out of scope
  groups_ = groups;
  segments_ = segments;
}

}  // namespace kms::cuda
