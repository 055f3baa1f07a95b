// Data preparation and initial centroids on the device: centring, gathering chosen points, and
// k-means++ D² sampling (one pass over the points per centroid, no N-sized scratch: the label
// buffer holds each point's nearest chosen centroid and D² is recomputed from it).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace kms::cuda {

/// x ← x − mid per coordinate, in place (exactly as the CPU backend computes it).
void launchCentre(float* points, std::size_t n, int d, const float* mid, cudaStream_t stream);

/// centroids[j] ← points[indices[j]] for j < k.
void launchGather(const float* points, int d, const unsigned long long* indices, int k,
                  float* centroids, cudaStream_t stream);

/// Number of sampling chunks (kSamplingChunk points each) for n points.
std::size_t plusPlusChunks(std::size_t n);

/// One k-means++ step j: update each point's nearest chosen centroid with centroid j − 1 (j ≥ 1),
/// sum the sampling mass p = w·D² (p = w at j = 0) per chunk into chunk_sums, then draw
/// centroid j with the uniform number u and write it into centroids[j]. w is the weight, the
/// count (as a float) or 1; at most one of weights and counts is set.
template <typename LabelT>
void launchPlusPlusStep(const float* points, const float* weights, const std::uint32_t* counts,
                        std::size_t n, int d, float* centroids, int j, double u, LabelT* nearest,
                        double* chunk_sums, cudaStream_t stream);

/// Where a D² draw landed: chunk (−1: all mass zero) and the draw's remaining target inside it
/// (seeding::pickChunk over the chunk sums of every point).
struct ChunkDraw {
  long long chunk = -1;
  double target = 0.0;
};

/// The mass pass of launchPlusPlusStep alone: nearest[] updated with centroid j − 1 (j ≥ 1) and
/// each chunk's sampling mass in chunk_sums. The sharded engine gathers every GPU's chunk sums
/// and places the draw itself (its shards start at multiples of kSamplingChunk, so the chunks
/// are the single GPU's).
template <typename LabelT>
void launchPlusPlusMass(const float* points, const float* weights, const std::uint32_t* counts,
                        std::size_t n, int d, const float* centroids, int j, LabelT* nearest,
                        double* chunk_sums, cudaStream_t stream);

/// The pick of launchPlusPlusStep with the draw already placed: the point of chunk draw.chunk
/// (≥ 0, local to these n points) whose running mass first exceeds draw.target, copied to `out`
/// (d floats).
template <typename LabelT>
void launchPlusPlusPickIn(const float* points, const float* weights, const std::uint32_t* counts,
                          std::size_t n, int d, const float* centroids, int j, ChunkDraw draw,
                          const LabelT* nearest, float* out, cudaStream_t stream);

/// Most candidates a greedy k-means++ step draws (seeding::greedyCandidates).
inline constexpr int kMaxGreedyCandidates = 16;

/// One greedy k-means++ step j ≥ 1: the mass pass of launchPlusPlusStep, then `count` candidates
/// drawn with the uniform numbers u[0..count) into `candidates` (count × d), then each one's
/// potential summed exactly into `potentials` (count int64, fixed point of `scale`). The host
/// reads the potentials and copies the best candidate into centroids[j].
template <typename LabelT>
void launchGreedyStep(const float* points, const float* weights, const std::uint32_t* counts,
                      std::size_t n, int d, float* centroids, int j, const double* u, int count,
                      double scale, LabelT* nearest, double* chunk_sums, float* candidates,
                      long long* potentials, cudaStream_t stream);

/// The potential pass of launchGreedyStep alone: `potentials` zeroed, then each of `count`
/// candidates' potential over these n points added (exact integers: shards' potentials add up to
/// the single GPU's).
template <typename LabelT>
void launchGreedyPotentials(const float* points, const float* weights, const std::uint32_t* counts,
                            std::size_t n, int d, const float* centroids, const LabelT* nearest,
                            const float* candidates, int count, double scale, long long* potentials,
                            cudaStream_t stream);

}  // namespace kms::cuda
