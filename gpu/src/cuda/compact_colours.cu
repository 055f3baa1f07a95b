// distinctColoursOnDevice: the CPU's algorithm (gpu/src/compact/distinct_colours.cpp) on the
// GPU — a bitmap of the 2^24 colour cube, an exclusive scan of its words' popcounts as ranks,
// then every pixel's row = rank of its word + popcount of the bits below it. Rows come out in
// ascending key order, so the result is the CPU's, bit for bit.
#include <cub/device/device_scan.cuh>

#include <cstdint>

#include "cuda/cuda_check.cuh"
#include "cuda/device_memory.cuh"
#include "kmeans/compact.h"
#include "kmeans/errors.h"

namespace kms {
namespace cuda {
namespace {

constexpr int kThreads = 256;
constexpr std::size_t kCubeWords = std::size_t(1) << 19;  // 2^24 bits in 32-bit words
constexpr unsigned kFullWarp = 0xffffffffu;

int gridFor(std::size_t work) {
  return static_cast<int>(std::min<std::size_t>((work + kThreads - 1) / kThreads, 1u << 20));
}

/// Sets each pixel's bit; a bit already set costs a read instead of an atomic (photos repeat
/// colours in runs).
__global__ void markKernel(const std::uint32_t* __restrict__ pixels, std::size_t n,
                           unsigned* cube) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(kThreads) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * kThreads) {
    const std::uint32_t key = __ldg(pixels + i) & 0xffffffu;
    const unsigned bit = 1u << (key & 31);
    if ((cube[key >> 5] & bit) == 0) atomicOr(cube + (key >> 5), bit);
  }
}

__global__ void popcountKernel(const unsigned* __restrict__ cube, unsigned* counts) {
  const std::size_t w = blockIdx.x * static_cast<std::size_t>(kThreads) + threadIdx.x;
  if (w < kCubeWords) counts[w] = __popc(cube[w]);
}

/// Row of every pixel, and the counts: lanes of a warp with the same row add once.
__global__ void indexKernel(const std::uint32_t* __restrict__ pixels, std::size_t n,
                            const unsigned* __restrict__ cube, const unsigned* __restrict__ ranks,
                            std::uint32_t* index, std::uint32_t* counts) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * kThreads;
  const std::size_t rounds = (n + stride - 1) / stride;  // whole warps stay together
  for (std::size_t r = 0; r < rounds; ++r) {
    const std::size_t i =
        r * stride + blockIdx.x * static_cast<std::size_t>(kThreads) + threadIdx.x;
    const bool valid = i < n;
    std::uint32_t row = 0xffffffffu;
    if (valid) {
      const std::uint32_t key = __ldg(pixels + i) & 0xffffffu;
      const unsigned below = __ldg(cube + (key >> 5)) & ((1u << (key & 31)) - 1u);
      row = __ldg(ranks + (key >> 5)) + __popc(below);
      index[i] = row;
    }
    const unsigned peers = __match_any_sync(kFullWarp, row);
    const int lane = threadIdx.x & 31;
    if (valid && lane == __ffs(peers) - 1) atomicAdd(counts + row, __popc(peers));
  }
}

__global__ void keysKernel(const unsigned* __restrict__ cube, const unsigned* __restrict__ ranks,
                           std::uint32_t* keys) {
  const std::size_t w = blockIdx.x * static_cast<std::size_t>(kThreads) + threadIdx.x;
  if (w >= kCubeWords) return;
  std::uint32_t row = ranks[w];
  for (unsigned bits = cube[w]; bits != 0; bits &= bits - 1)
    keys[row++] = static_cast<std::uint32_t>(w << 5) + (__ffs(bits) - 1);
}

}  // namespace
}  // namespace cuda

DistinctColours distinctColoursOnDevice(const std::uint32_t* pixels, std::size_t n, int device,
                                        double* device_ms) {
  using namespace cuda;
  if (n >= 0xffffffffu)
    throw InvalidArgument("A picture for the GPU's compaction has at most 2^32 − 2 pixels.");
  KMS_CUDA_CHECK(cudaSetDevice(device));
  Stream stream;
  const cudaStream_t s = stream.get();
  DeviceBuffer<std::uint32_t> d_pixels(n), d_index(n);
  DeviceBuffer<unsigned> cube(kCubeWords), word_counts(kCubeWords), ranks(kCubeWords);
  DeviceBuffer<std::uint32_t> counts(std::size_t(1) << 24), keys(std::size_t(1) << 24);
  std::size_t scan_bytes = 0;
  KMS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, scan_bytes, word_counts.get(), ranks.get(),
                                               static_cast<int>(kCubeWords), s));
  DeviceBuffer<unsigned char> scan_temp(scan_bytes);
  KMS_CUDA_CHECK(cudaMemcpyAsync(d_pixels.get(), pixels, n * sizeof(std::uint32_t),
                                 cudaMemcpyHostToDevice, s));
  Event start, stop;
  start.record(s);
  KMS_CUDA_CHECK(cudaMemsetAsync(cube.get(), 0, cube.bytes(), s));
  KMS_CUDA_CHECK(cudaMemsetAsync(counts.get(), 0, counts.bytes(), s));
  if (n > 0) markKernel<<<gridFor(n), kThreads, 0, s>>>(d_pixels.get(), n, cube.get());
  KMS_CHECK_LAUNCH();
  popcountKernel<<<gridFor(kCubeWords), kThreads, 0, s>>>(cube.get(), word_counts.get());
  KMS_CHECK_LAUNCH();
  KMS_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(scan_temp.get(), scan_bytes, word_counts.get(),
                                               ranks.get(), static_cast<int>(kCubeWords), s));
  if (n > 0)
    indexKernel<<<gridFor(n), kThreads, 0, s>>>(d_pixels.get(), n, cube.get(), ranks.get(),
                                                d_index.get(), counts.get());
  KMS_CHECK_LAUNCH();
  keysKernel<<<gridFor(kCubeWords), kThreads, 0, s>>>(cube.get(), ranks.get(), keys.get());
  KMS_CHECK_LAUNCH();
  stop.record(s);

  unsigned last_rank = 0, last_count = 0;
  KMS_CUDA_CHECK(cudaMemcpyAsync(&last_rank, ranks.get() + kCubeWords - 1, sizeof(unsigned),
                                 cudaMemcpyDeviceToHost, s));
  KMS_CUDA_CHECK(cudaMemcpyAsync(&last_count, word_counts.get() + kCubeWords - 1, sizeof(unsigned),
                                 cudaMemcpyDeviceToHost, s));
  stream.synchronize();
  const std::size_t rows = std::size_t(last_rank) + last_count;
  DistinctColours out;
  out.keys.resize(rows);
  out.counts.resize(rows);
  out.index.resize(n);
  KMS_CUDA_CHECK(cudaMemcpyAsync(out.keys.data(), keys.get(), rows * sizeof(std::uint32_t),
                                 cudaMemcpyDeviceToHost, s));
  KMS_CUDA_CHECK(cudaMemcpyAsync(out.counts.data(), counts.get(), rows * sizeof(std::uint32_t),
                                 cudaMemcpyDeviceToHost, s));
  KMS_CUDA_CHECK(cudaMemcpyAsync(out.index.data(), d_index.get(), n * sizeof(std::uint32_t),
                                 cudaMemcpyDeviceToHost, s));
  stream.synchronize();
  if (device_ms) *device_ms = stop.msSince(start);
  return out;
}

}  // namespace kms
