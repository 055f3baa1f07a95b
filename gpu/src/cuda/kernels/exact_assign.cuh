// Labels for given centroids without touching a run (Engine::assign): every row's nearest
// centroid by exact distance, ties to the lower index — the CPU backend's answer, computed with
// the same roundings (exact_math.h). Brute force over all k: it runs once per request (showing
// an earlier iteration again), not once per iteration.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace kms::cuda {

/// labels[i] ← the nearest of the k centroids (k × d, centred like `points`) to row i.
void launchExactAssign(const float* points, std::size_t n, int d, const float* centroids, int k,
                       std::int32_t* labels, cudaStream_t stream);

}  // namespace kms::cuda
