// k-means|| seeding's passes over one GPU's rows (common/parallel_seeding.h): each row's squared
// distance to its nearest candidate lowered with a round's candidates, the rows a round samples,
// and the candidates' weights. The same arithmetic as the CPU engine's (exact::squaredDistance,
// seeding::potentialTerm, seeding::sampledInRound), so both pick the same rows.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace kms::cuda {

/// Row i of the n centred `points` (d each; w = weights[i], counts[i] or 1): with candidates
/// [first, first + count) of the run (`candidates`, count × d on the device) d2[i] and nearest[i]
/// take the nearest one's exact squared distance and index where strictly smaller (first == 0:
/// always); Σ over rows of llrint((w·)d2 · scale) is added to *potential (wrapping).
void launchParallelLower(const float* points, const float* weights, const std::uint32_t* counts,
                         std::size_t n, int d, const float* candidates, std::size_t first,
                         std::size_t count, double scale, float* d2, std::uint32_t* nearest,
                         unsigned long long* potential, cudaStream_t stream);

/// The rows seeding::sampledInRound takes in `round` (global index first_global_row + i): their
/// local indices written to taken[0, capacity) in no particular order, all of them counted in
/// *taken_count (which may exceed capacity: the caller makes room and runs it again).
void launchParallelSample(const float* weights, const std::uint32_t* counts, std::size_t n,
                          const float* d2, std::uint64_t seed, int round,
                          std::uint64_t first_global_row, long long potential, double oversampling,
                          double scale, unsigned long long* taken, unsigned long long capacity,
                          unsigned long long* taken_count, cudaStream_t stream);

/// sums[nearest[i]] += llrint(w_i · weight_scale) for every row (count candidates; wrapping).
void launchParallelWeights(const float* weights, const std::uint32_t* counts, std::size_t n,
                           const std::uint32_t* nearest, std::size_t count, double weight_scale,
                           unsigned long long* sums, cudaStream_t stream);

}  // namespace kms::cuda
