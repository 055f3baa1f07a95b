// Deterministic random choices made on the host for every backend: which points a random
// initialisation takes, and the uniform numbers that drive k-means++ sampling. Backends that
// share these draw identical initial centroids from identical data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>
#if defined(__x86_64__) && defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "kmeans/data.h"

namespace kms::seeding {

/// Counter-based hash (splitmix64 finaliser): the n-th number of a stream depends only on
/// (seed, stream, counter), never on how many numbers were drawn before.
std::uint64_t hash(std::uint64_t seed, std::uint64_t stream, std::uint64_t counter);

/// Uniform double in [0, 1) with 53 random bits.
double uniform(std::uint64_t seed, std::uint64_t stream, std::uint64_t counter);

/// k distinct indices in [0, n), uniformly chosen (Floyd's algorithm), in the order drawn.
std::vector<std::size_t> distinctIndices(std::size_t n, int k, std::uint64_t seed);

/// k distinct indices in [0, n) drawn one after another without replacement, each with
/// probability proportional to its count among the indices not drawn yet (counts[i] ≥ 1), in
/// the order drawn: a random initialisation of compact data picks distinct values in proportion
/// to how often they occur. Exact integer arithmetic (a Fenwick tree of the counts), so every
/// backend draws the same indices.
std::vector<std::size_t> weightedDistinctIndices(const std::uint32_t* counts, std::size_t n, int k,
                                                 std::uint64_t seed);

/// The uniform number of k-means++ step j (the j-th centroid, 0-based).
double plusPlusUniform(std::uint64_t seed, int j);

/// Greedy k-means++: candidates drawn per step for k centroids (2 + ⌊ln k⌋, at most 16).
int greedyCandidates(int k);
/// The uniform number of greedy k-means++ step j's candidate l (step 0 uses plusPlusUniform).
double greedyUniform(std::uint64_t seed, int j, int l);

/// Fixed-point scale for summing candidate potentials exactly: terms w·D² are summed as
/// llrint(term · scale) in 64 bits; scale is the power of two that keeps `bound` (an upper bound
/// of the potential) below 2^62.
double potentialScale(double bound);
/// potentialScale for any k-means++ potential of the data: each term w·min(D², ·) is at most
/// w·squaredDiameter (plus rounding), so the bound is the total weight times that, with room.
/// Every backend's greedy seeding sums its candidates' potentials on this scale.
double potentialScale(const DataSummary& summary);
/// One term as the integer it is summed as (identical on every backend).
inline std::int64_t potentialTerm(float term, double scale) {
#if defined(__x86_64__) && defined(__SSE2__)
  // llrint itself: the conversion in the current rounding mode (to nearest, ties to even), one
  // instruction instead of a library call.
  return _mm_cvtsd_si64(_mm_set_sd(static_cast<double>(term) * scale));
#else
  return static_cast<std::int64_t>(__builtin_llrint(static_cast<double>(term) * scale));
#endif
}

/// Index picked by D² sampling given chunk sums of p (chunk c covers points
/// [c·chunk, (c+1)·chunk)). Returns the chunk holding the draw and the remaining target inside
/// it, or chunk = -1 when the total is zero (all remaining mass is zero).
struct ChunkPick {
  long long chunk = -1;
  double target = 0.0;  ///< draw minus the sum of all earlier chunks
};
ChunkPick pickChunk(const std::vector<double>& chunk_sums, double u);

}  // namespace kms::seeding
