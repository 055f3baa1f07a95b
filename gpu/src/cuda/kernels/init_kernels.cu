#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>

#include <algorithm>

#include "common/constants.h"
#include "common/exact_math.h"
#include "cuda/cuda_check.cuh"
#include "cuda/kernels/init_kernels.cuh"
#include "cuda/kernels/seeding_terms.cuh"

namespace kms::cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kPerThread = static_cast<int>(kSamplingChunk) / kThreads;  // 16
constexpr int kPickThreads = 1024;
constexpr int kPickPerThread = static_cast<int>(kSamplingChunk) / kPickThreads;  // 4
static_assert(kSamplingChunk % kThreads == 0 && kSamplingChunk % kPickThreads == 0);

__global__ void centreKernel(float* points, std::size_t total, int d, const float* mid) {
  for (std::size_t v = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; v < total;
       v += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    points[v] = exact::sub(points[v], mid[v % d]);
}

__global__ void gatherKernel(const float* points, int d, const unsigned long long* indices, int k,
                             float* centroids) {
  const std::size_t total = static_cast<std::size_t>(k) * d;
  for (std::size_t v = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; v < total;
       v += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const std::size_t j = v / d, c = v % d;
    centroids[v] = points[indices[j] * d + c];
  }
}

/// Sampling mass of point i at step j, after its nearest centroid was updated.
template <typename LabelT>
__device__ float plusPlusMass(const float* points, const float* weights,
                              const std::uint32_t* counts, int d, const float* centroids, int j,
                              const LabelT* nearest, std::size_t i) {
  const float w = samplingWeight(weights, counts, i);
  if (j == 0) return w;
  const float d2 = exact::squaredDistance(points + i * d,
                                          centroids + static_cast<std::size_t>(nearest[i]) * d, d);
  return (weights || counts) ? exact::mul(w, d2) : d2;
}

/// Block b owns chunk b. Updates nearest[] with centroid j − 1 and sums the chunk's mass.
template <typename LabelT>
__global__ void __launch_bounds__(kThreads)
    plusPlusMassKernel(const float* __restrict__ points, const float* __restrict__ weights,
                       const std::uint32_t* __restrict__ counts, std::size_t n, int d,
                       const float* __restrict__ centroids, int j, LabelT* nearest,
                       double* chunk_sums) {
  const std::size_t begin = blockIdx.x * kSamplingChunk;
  double sum = 0.0;
  for (int r = 0; r < kPerThread; ++r) {
    const std::size_t i = begin + r * kThreads + threadIdx.x;
    if (i >= n) break;
    const float w = samplingWeight(weights, counts, i);
    float mass = w;
    if (j >= 1) {
      // D² = distance to the nearest chosen centroid; the same value plusPlusMass recomputes.
      const float* x = points + i * d;
      float d2 = exact::squaredDistance(x, centroids + static_cast<std::size_t>(j - 1) * d, d);
      if (j == 1) {
        nearest[i] = 0;
      } else {
        const float dc =
            exact::squaredDistance(x, centroids + static_cast<std::size_t>(nearest[i]) * d, d);
        if (d2 < dc)
          nearest[i] = static_cast<LabelT>(j - 1);
        else
          d2 = dc;
      }
      mass = (weights || counts) ? exact::mul(w, d2) : d2;
    }
    sum += mass;
  }
  using Reduce = cub::BlockReduce<double, kThreads>;
  __shared__ typename Reduce::TempStorage temp;
  const double total = Reduce(temp).Sum(sum);
  if (threadIdx.x == 0) chunk_sums[blockIdx.x] = total;
}

/// One block: find the chunk holding the draw (sequentially, as seeding::pickChunk does; or
/// `given`, when chunk_sums is null), then the first point whose running mass exceeds the
/// remaining target, and copy it to `out` (the row of centroid j, or a greedy candidate's).
template <typename LabelT>
__global__ void __launch_bounds__(kPickThreads)
    plusPlusPickKernel(const float* __restrict__ points, const float* __restrict__ weights,
                       const std::uint32_t* __restrict__ counts, std::size_t n, int d,
                       const float* centroids, int j, double u, const LabelT* __restrict__ nearest,
                       const double* __restrict__ chunk_sums, int chunks, ChunkDraw given,
                       float* out) {
  __shared__ long long chunk;
  __shared__ double target;
  __shared__ unsigned long long first_hit;
  __shared__ unsigned long long last_positive;
  if (threadIdx.x == 0 && chunk_sums == nullptr) {  // the draw was placed by the caller
    chunk = given.chunk;
    target = given.target;
    first_hit = ~0ull;
    last_positive = 0;
  } else if (threadIdx.x == 0) {
    double total = 0.0;
    for (int c = 0; c < chunks; ++c)
      total += chunk_sums[c];
    chunk = -1;
    if (total > 0.0) {
      double t = u * total;
      long long last_nonzero = -1;
      for (int c = 0; c < chunks; ++c) {
        if (chunk_sums[c] > 0.0) last_nonzero = c;
        if (t < chunk_sums[c]) {
          chunk = c;
          break;
        }
        t -= chunk_sums[c];
      }
      if (chunk < 0) {
        chunk = last_nonzero;
        t = chunk_sums[last_nonzero];
      }
      target = t;
    }
    first_hit = ~0ull;
    last_positive = 0;
  }
  __syncthreads();
  std::size_t chosen;
  if (chunk < 0) {
    chosen = min(n - 1, static_cast<std::size_t>(u * static_cast<double>(n)));
  } else {
    const std::size_t base = static_cast<std::size_t>(chunk) * kSamplingChunk;
    const std::size_t i0 = base + static_cast<std::size_t>(threadIdx.x) * kPickPerThread;
    float mass[kPickPerThread];
    double own = 0.0;
    for (int r = 0; r < kPickPerThread; ++r) {
      const std::size_t i = i0 + r;
      mass[r] = i < n ? plusPlusMass(points, weights, counts, d, centroids, j, nearest, i) : 0.0f;
      own += mass[r];
    }
    using Scan = cub::BlockScan<double, kPickThreads>;
    __shared__ typename Scan::TempStorage temp;
    double running = 0.0;
    Scan(temp).ExclusiveSum(own, running);
    for (int r = 0; r < kPickPerThread; ++r) {
      const std::size_t i = i0 + r;
      if (i >= n) break;
      if (mass[r] > 0.0f) atomicMax(&last_positive, static_cast<unsigned long long>(i));
      running += mass[r];
      if (running > target) {
        atomicMin(&first_hit, static_cast<unsigned long long>(i));
        break;
      }
    }
    __syncthreads();
    chosen = first_hit != ~0ull ? first_hit : last_positive;
  }
  for (int c = threadIdx.x; c < d; c += kPickThreads)
    out[c] = points[chosen * d + c];
}

/// Greedy k-means++: each candidate's potential Σ w·min(D², ‖x − c_l‖²), with every term rounded
/// to the fixed-point grid of `scale` and summed in 64-bit integers (the CPU's sums exactly).
/// D² is the distance to the nearest chosen centroid (nearest[] after this step's mass pass).
template <typename LabelT>
__global__ void __launch_bounds__(kThreads)
    greedyPotentialKernel(const float* __restrict__ points, const float* __restrict__ weights,
                          const std::uint32_t* __restrict__ counts, std::size_t n, int d,
                          const float* __restrict__ centroids, const LabelT* __restrict__ nearest,
                          const float* __restrict__ candidates, int count, double scale,
                          long long* potentials) {
  long long sum[kMaxGreedyCandidates];
  for (int l = 0; l < kMaxGreedyCandidates; ++l)
    sum[l] = 0;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(kThreads) + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * kThreads) {
    const float* x = points + i * d;
    const float d2 =
        exact::squaredDistance(x, centroids + static_cast<std::size_t>(nearest[i]) * d, d);
    const float w = samplingWeight(weights, counts, i);
    const bool scaled = weights || counts;
#pragma unroll
    for (int l = 0; l < kMaxGreedyCandidates; ++l) {
      if (l >= count) break;
      const float dc = exact::squaredDistance(x, candidates + static_cast<std::size_t>(l) * d, d);
      sum[l] += potentialTerm(fminf(d2, dc), w, scaled, scale);
    }
  }
  using Reduce = cub::BlockReduce<long long, kThreads>;
  __shared__ typename Reduce::TempStorage temp;
  for (int l = 0; l < count; ++l) {
    const long long total = Reduce(temp).Sum(sum[l]);
    if (threadIdx.x == 0 && total != 0)
      atomicAdd(reinterpret_cast<unsigned long long*>(potentials + l),
                static_cast<unsigned long long>(total));
    __syncthreads();
  }
}

int gridFor(std::size_t work, int threads) {
  return static_cast<int>(std::min<std::size_t>((work + threads - 1) / threads, 65535 * 4));
}

}  // namespace

void launchCentre(float* points, std::size_t n, int d, const float* mid, cudaStream_t stream) {
  const std::size_t total = n * static_cast<std::size_t>(d);
  centreKernel<<<gridFor(total, kThreads), kThreads, 0, stream>>>(points, total, d, mid);
  KMS_CHECK_LAUNCH();
}

void launchGather(const float* points, int d, const unsigned long long* indices, int k,
                  float* centroids, cudaStream_t stream) {
  const std::size_t total = static_cast<std::size_t>(k) * d;
  gatherKernel<<<gridFor(total, kThreads), kThreads, 0, stream>>>(points, d, indices, k, centroids);
  KMS_CHECK_LAUNCH();
}

std::size_t plusPlusChunks(std::size_t n) {
  return (n + kSamplingChunk - 1) / kSamplingChunk;
}

template <typename LabelT>
void launchPlusPlusMass(const float* points, const float* weights, const std::uint32_t* counts,
                        std::size_t n, int d, const float* centroids, int j, LabelT* nearest,
                        double* chunk_sums, cudaStream_t stream) {
  const int chunks = static_cast<int>(plusPlusChunks(n));
  if (chunks == 0) return;
  plusPlusMassKernel<LabelT><<<chunks, kThreads, 0, stream>>>(points, weights, counts, n, d,
                                                              centroids, j, nearest, chunk_sums);
  KMS_CHECK_LAUNCH();
}

template <typename LabelT>
void launchPlusPlusPickIn(const float* points, const float* weights, const std::uint32_t* counts,
                          std::size_t n, int d, const float* centroids, int j, ChunkDraw draw,
                          const LabelT* nearest, float* out, cudaStream_t stream) {
  plusPlusPickKernel<LabelT><<<1, kPickThreads, 0, stream>>>(
      points, weights, counts, n, d, centroids, j, 0.0, nearest, nullptr, 0, draw, out);
  KMS_CHECK_LAUNCH();
}

template <typename LabelT>
void launchPlusPlusStep(const float* points, const float* weights, const std::uint32_t* counts,
                        std::size_t n, int d, float* centroids, int j, double u, LabelT* nearest,
                        double* chunk_sums, cudaStream_t stream) {
  const int chunks = static_cast<int>(plusPlusChunks(n));
  launchPlusPlusMass<LabelT>(points, weights, counts, n, d, centroids, j, nearest, chunk_sums,
                             stream);
  plusPlusPickKernel<LabelT><<<1, kPickThreads, 0, stream>>>(
      points, weights, counts, n, d, centroids, j, u, nearest, chunk_sums, chunks, ChunkDraw{},
      centroids + static_cast<std::size_t>(j) * d);
  KMS_CHECK_LAUNCH();
}

template <typename LabelT>
void launchGreedyPotentials(const float* points, const float* weights, const std::uint32_t* counts,
                            std::size_t n, int d, const float* centroids, const LabelT* nearest,
                            const float* candidates, int count, double scale, long long* potentials,
                            cudaStream_t stream) {
  KMS_CUDA_CHECK(cudaMemsetAsync(potentials, 0, sizeof(long long) * count, stream));
  if (n == 0) return;
  greedyPotentialKernel<LabelT><<<gridFor(n, kThreads), kThreads, 0, stream>>>(
      points, weights, counts, n, d, centroids, nearest, candidates, count, scale, potentials);
  KMS_CHECK_LAUNCH();
}

template <typename LabelT>
void launchGreedyStep(const float* points, const float* weights, const std::uint32_t* counts,
                      std::size_t n, int d, float* centroids, int j, const double* u, int count,
                      double scale, LabelT* nearest, double* chunk_sums, float* candidates,
                      long long* potentials, cudaStream_t stream) {
  const int chunks = static_cast<int>(plusPlusChunks(n));
  launchPlusPlusMass<LabelT>(points, weights, counts, n, d, centroids, j, nearest, chunk_sums,
                             stream);
  for (int l = 0; l < count; ++l) {
    plusPlusPickKernel<LabelT><<<1, kPickThreads, 0, stream>>>(
        points, weights, counts, n, d, centroids, j, u[l], nearest, chunk_sums, chunks, ChunkDraw{},
        candidates + static_cast<std::size_t>(l) * d);
    KMS_CHECK_LAUNCH();
  }
  launchGreedyPotentials<LabelT>(points, weights, counts, n, d, centroids, nearest, candidates,
                                 count, scale, potentials, stream);
}

template void launchGreedyStep<std::uint8_t>(const float*, const float*, const std::uint32_t*,
                                             std::size_t, int, float*, int, const double*, int,
                                             double, std::uint8_t*, double*, float*, long long*,
                                             cudaStream_t);
template void launchGreedyStep<std::uint16_t>(const float*, const float*, const std::uint32_t*,
                                              std::size_t, int, float*, int, const double*, int,
                                              double, std::uint16_t*, double*, float*, long long*,
                                              cudaStream_t);

template void launchPlusPlusStep<std::uint8_t>(const float*, const float*, const std::uint32_t*,
                                               std::size_t, int, float*, int, double, std::uint8_t*,
                                               double*, cudaStream_t);
template void launchPlusPlusStep<std::uint16_t>(const float*, const float*, const std::uint32_t*,
                                                std::size_t, int, float*, int, double,
                                                std::uint16_t*, double*, cudaStream_t);

#define KMS_INSTANTIATE_SEEDING(L)                                                                \
  template void launchPlusPlusMass<L>(const float*, const float*, const std::uint32_t*,           \
                                      std::size_t, int, const float*, int, L*, double*,           \
                                      cudaStream_t);                                              \
  template void launchPlusPlusPickIn<L>(const float*, const float*, const std::uint32_t*,         \
                                        std::size_t, int, const float*, int, ChunkDraw, const L*, \
                                        float*, cudaStream_t);                                    \
  template void launchGreedyPotentials<L>(const float*, const float*, const std::uint32_t*,       \
                                          std::size_t, int, const float*, const L*, const float*, \
                                          int, double, long long*, cudaStream_t);
KMS_INSTANTIATE_SEEDING(std::uint8_t)
KMS_INSTANTIATE_SEEDING(std::uint16_t)
#undef KMS_INSTANTIATE_SEEDING

}  // namespace kms::cuda
