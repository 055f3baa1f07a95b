#include <cub/block/block_reduce.cuh>

#include <algorithm>

#include "common/exact_math.h"
#include "common/parallel_sampling.h"
#include "cuda/cuda_check.cuh"
#include "cuda/kernels/parallel_seeding_kernels.cuh"
#include "cuda/kernels/seeding_terms.cuh"

namespace kms::cuda {
namespace {

constexpr int kThreads = 256;
/// Shared memory for a tile of candidates (floats).
constexpr int kTileFloats = 11 * 1024;  // 44 KiB, beside the reduction's own
/// Rows of up to this many dimensions are held in registers while the candidates stream past.
constexpr int kRegisterDims = 32;

/// exact::squaredDistance of a row held in registers (coordinates past d unused).
template <int kDims>
__device__ __forceinline__ float distanceFromRegisters(const float (&x)[kDims], const float* c,
                                                       int d) {
  float s = 0.0f;
#pragma unroll
  for (int k = 0; k < kDims; ++k)
    if (k < d) {
      const float t = exact::sub(x[k], c[k]);
      s = exact::add(s, exact::mul(t, t));
    }
  return s;
}

/// A row's nearest candidate so far: none before the first pass (first == 0: a row whose
/// distances are all +∞ keeps candidate 0).
struct RowBest {
  float dist = INFINITY;
  std::uint32_t index = 0;
};

__device__ __forceinline__ RowBest bestSoFar(bool live, std::size_t i, std::size_t first,
                                             const float* d2, const std::uint32_t* nearest) {
  RowBest best;
  best.index = static_cast<std::uint32_t>(first);
  if (live && first > 0) {
    best.dist = d2[i];
    best.index = nearest[i];
  }
  return best;
}

/// Writes the row's D² and nearest candidate and adds the block's potential terms (every thread
/// of the block calls it).
__device__ __forceinline__ void finishLowering(bool live, std::size_t i, RowBest best,
                                               const float* weights, const std::uint32_t* counts,
                                               double scale, float* d2, std::uint32_t* nearest,
                                               unsigned long long* potential) {
  long long term = 0;
  if (live) {
    d2[i] = best.dist;
    nearest[i] = best.index;
    term = potentialTerm(best.dist, samplingWeight(weights, counts, i), weights || counts, scale);
  }
  using Reduce = cub::BlockReduce<long long, kThreads>;
  __shared__ typename Reduce::TempStorage temp;
  const long long sum = Reduce(temp).Sum(term);  // wraps as unsigned
  if (threadIdx.x == 0) atomicAdd(potential, static_cast<unsigned long long>(sum));
}

/// Rows of up to kRegisterDims dimensions, held in registers while the candidates stream past.
__global__ void __launch_bounds__(kThreads)
    parallelLowerKernel(const float* __restrict__ points, const float* __restrict__ weights,
                        const std::uint32_t* __restrict__ counts, std::size_t n, int d,
                        const float* __restrict__ candidates, std::size_t first, std::size_t count,
                        double scale, float* d2, std::uint32_t* nearest,
                        unsigned long long* potential) {
  extern __shared__ float tile[];
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(kThreads) + threadIdx.x;
  const bool live = i < n;
  const float* x = points + (live ? i : 0) * static_cast<std::size_t>(d);
  float xr[kRegisterDims];
  if (live)
#pragma unroll
    for (int k = 0; k < kRegisterDims; ++k)
      xr[k] = k < d ? x[k] : 0.0f;
  RowBest best = bestSoFar(live, i, first, d2, nearest);
  const std::size_t per_tile = std::max<std::size_t>(1, kTileFloats / d);
  for (std::size_t t0 = 0; t0 < count; t0 += per_tile) {
    const std::size_t in_tile = min(per_tile, count - t0);
    __syncthreads();
    for (std::size_t v = threadIdx.x; v < in_tile * d; v += kThreads)
      tile[v] = candidates[t0 * d + v];
    __syncthreads();
    if (!live) continue;
    for (std::size_t j = 0; j < in_tile; ++j) {
      const float dist = distanceFromRegisters(xr, tile + j * d, d);
      if (dist < best.dist) best = {dist, static_cast<std::uint32_t>(first + t0 + j)};
    }
  }
  finishLowering(live, i, best, weights, counts, scale, d2, nearest, potential);
}

/// Rows of more than kRegisterDims dimensions: a tile of up to kChunkedTile candidates is scored
/// at once, the row read kRegisterDims coordinates at a time into registers and each candidate's
/// running sum kept in a register — every sum still adds its terms in coordinate order
/// (exact::squaredDistance's bits), but each coordinate of the row is loaded once a tile instead
/// of once a candidate.
constexpr int kChunkedTile = 32;

__global__ void __launch_bounds__(kThreads)
    parallelLowerChunkedKernel(const float* __restrict__ points, const float* __restrict__ weights,
                               const std::uint32_t* __restrict__ counts, std::size_t n, int d,
                               const float* __restrict__ candidates, std::size_t first,
                               std::size_t count, double scale, float* d2, std::uint32_t* nearest,
                               unsigned long long* potential) {
  extern __shared__ float tile[];
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(kThreads) + threadIdx.x;
  const bool live = i < n;
  const float* x = points + (live ? i : 0) * static_cast<std::size_t>(d);
  RowBest best = bestSoFar(live, i, first, d2, nearest);
  const int per_tile = max(1, min(kChunkedTile, kTileFloats / d));
  for (std::size_t t0 = 0; t0 < count; t0 += per_tile) {
    const int in_tile = static_cast<int>(min(static_cast<std::size_t>(per_tile), count - t0));
    __syncthreads();
    for (std::size_t v = threadIdx.x; v < static_cast<std::size_t>(in_tile) * d; v += kThreads)
      tile[v] = candidates[t0 * d + v];
    __syncthreads();
    if (!live) continue;
    float sum[kChunkedTile];
#pragma unroll
    for (int j = 0; j < kChunkedTile; ++j)
      sum[j] = 0.0f;
    for (int c0 = 0; c0 < d; c0 += kRegisterDims) {
      float xr[kRegisterDims];
#pragma unroll
      for (int k = 0; k < kRegisterDims; ++k)
        xr[k] = c0 + k < d ? x[c0 + k] : 0.0f;
#pragma unroll
      for (int j = 0; j < kChunkedTile; ++j) {
        if (j >= in_tile) break;
        const float* c = tile + j * d + c0;
        float s = sum[j];
#pragma unroll
        for (int k = 0; k < kRegisterDims; ++k)
          if (c0 + k < d) {
            const float t = exact::sub(xr[k], c[k]);
            s = exact::add(s, exact::mul(t, t));
          }
        sum[j] = s;
      }
    }
#pragma unroll
    for (int j = 0; j < kChunkedTile; ++j)
      if (j < in_tile && sum[j] < best.dist)
        best = {sum[j], static_cast<std::uint32_t>(first + t0 + j)};
  }
  finishLowering(live, i, best, weights, counts, scale, d2, nearest, potential);
}

__global__ void parallelSampleKernel(const float* __restrict__ weights,
                                     const std::uint32_t* __restrict__ counts, std::size_t n,
                                     const float* __restrict__ d2, std::uint64_t seed, int round,
                                     std::uint64_t first_global_row, long long potential,
                                     double oversampling, double scale, unsigned long long* taken,
                                     unsigned long long capacity, unsigned long long* taken_count) {
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const long long term =
        potentialTerm(d2[i], samplingWeight(weights, counts, i), weights || counts, scale);
    if (!seeding::sampledInRound(seed, round, first_global_row + i, term, potential, oversampling))
      continue;
    const unsigned long long at = atomicAdd(taken_count, 1ull);
    if (at < capacity) taken[at] = i;
  }
}

/// Few candidates: each block sums its rows' weights in shared memory first.
constexpr int kSharedCandidates = 4096;

__global__ void __launch_bounds__(kThreads)
    parallelWeightsKernel(const float* __restrict__ weights,
                          const std::uint32_t* __restrict__ counts, std::size_t n,
                          const std::uint32_t* __restrict__ nearest, std::size_t count,
                          double weight_scale, unsigned long long* sums) {
  __shared__ unsigned long long local[kSharedCandidates];
  const bool shared = count <= kSharedCandidates;
  if (shared)
    for (std::size_t j = threadIdx.x; j < count; j += kThreads)
      local[j] = 0;
  __syncthreads();
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(kThreads) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * kThreads) {
    // llrint(w · weight_scale): the weight itself as the term.
    const unsigned long long term = static_cast<unsigned long long>(
        potentialTerm(samplingWeight(weights, counts, i), 1.0f, false, weight_scale));
    atomicAdd(shared ? &local[nearest[i]] : &sums[nearest[i]], term);
  }
  if (!shared) return;
  __syncthreads();
  for (std::size_t j = threadIdx.x; j < count; j += kThreads)
    if (local[j]) atomicAdd(&sums[j], local[j]);
}

unsigned gridFor(std::size_t n, int threads) {
  return static_cast<unsigned>(std::min<std::size_t>((n + threads - 1) / threads, 65535 * 16));
}

}  // namespace

void launchParallelLower(const float* points, const float* weights, const std::uint32_t* counts,
                         std::size_t n, int d, const float* candidates, std::size_t first,
                         std::size_t count, double scale, float* d2, std::uint32_t* nearest,
                         unsigned long long* potential, cudaStream_t stream) {
  if (n == 0) return;
  const bool chunked = d > kRegisterDims;
  std::size_t per_tile = std::max<std::size_t>(1, kTileFloats / d);
  if (chunked) per_tile = std::min<std::size_t>(per_tile, kChunkedTile);
  const std::size_t shared = std::min(per_tile, count) * d * sizeof(float);
  const auto kernel = chunked ? parallelLowerChunkedKernel : parallelLowerKernel;
  if (shared > 44 * 1024)  // one candidate of more than 11,264 dimensions
    KMS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        static_cast<int>(shared)));
  const unsigned blocks = static_cast<unsigned>((n + kThreads - 1) / kThreads);
  kernel<<<blocks, kThreads, shared, stream>>>(points, weights, counts, n, d, candidates, first,
                                               count, scale, d2, nearest, potential);
  KMS_CUDA_CHECK(cudaGetLastError());
}

void launchParallelSample(const float* weights, const std::uint32_t* counts, std::size_t n,
                          const float* d2, std::uint64_t seed, int round,
                          std::uint64_t first_global_row, long long potential, double oversampling,
                          double scale, unsigned long long* taken, unsigned long long capacity,
                          unsigned long long* taken_count, cudaStream_t stream) {
  if (n == 0) return;
  parallelSampleKernel<<<gridFor(n, kThreads), kThreads, 0, stream>>>(
      weights, counts, n, d2, seed, round, first_global_row, potential, oversampling, scale, taken,
      capacity, taken_count);
  KMS_CUDA_CHECK(cudaGetLastError());
}

void launchParallelWeights(const float* weights, const std::uint32_t* counts, std::size_t n,
                           const std::uint32_t* nearest, std::size_t count, double weight_scale,
                           unsigned long long* sums, cudaStream_t stream) {
  if (n == 0) return;
  parallelWeightsKernel<<<gridFor(n, kThreads), kThreads, 0, stream>>>(weights, counts, n, nearest,
                                                                       count, weight_scale, sums);
  KMS_CUDA_CHECK(cudaGetLastError());
}

}  // namespace kms::cuda
