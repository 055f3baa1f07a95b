#include "cuda/kernels/exact_assign.cuh"

#include <algorithm>

#include "common/exact_math.h"
#include "cuda/cuda_check.cuh"

namespace kms::cuda {
namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads)
    exactAssignKernel(const float* __restrict__ points, std::size_t n, int d,
                      const float* __restrict__ centroids, int k, std::int32_t* labels) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; i < n;
       i += stride) {
    const float* x = points + i * static_cast<std::size_t>(d);
    int best = 0;
    float best_dist = exact::squaredDistance(x, centroids, d);
    for (int j = 1; j < k; ++j) {
      const float s = exact::squaredDistance(x, centroids + static_cast<std::size_t>(j) * d, d);
      if (s < best_dist) {  // strict: among equal distances the lower index stays
        best_dist = s;
        best = j;
      }
    }
    labels[i] = best;
  }
}

}  // namespace

void launchExactAssign(const float* points, std::size_t n, int d, const float* centroids, int k,
                       std::int32_t* labels, cudaStream_t stream) {
  if (n == 0) return;
  const std::size_t blocks = std::min<std::size_t>((n + kThreads - 1) / kThreads, 65536);
  exactAssignKernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(points, n, d, centroids,
                                                                            k, labels);
  KMS_CHECK_LAUNCH();
}

}  // namespace kms::cuda
