// Partitioning constants that several backends must agree on.
#pragma once

#include <cstddef>

namespace kms {

/// k-means++ draws are resolved chunk by chunk: the sum of each chunk of this many points is
/// formed first, then the chunk holding the draw is scanned. Backends use the same chunking so
/// that rounding of the running sums differs as little as possible.
inline constexpr std::size_t kSamplingChunk = 4096;

/// Chunks of `chunk` items that cover `n` items.
inline constexpr std::size_t chunkCount(std::size_t n, std::size_t chunk) {
  return (n + chunk - 1) / chunk;
}

/// Relative slack of the Hamerly distance bounds of compact data (rounding of one float
/// distance with d ≤ 16, the compact kernels' largest, is below 2e-6): a row is settled by its
/// bounds only when its centroid is nearer than every other by a margin no rounding can close.
inline constexpr float kBoundSlack = 1e-5f;

/// Absolute slack of the CPU's distance bounds (not squared): a float squared distance of up to
/// 64 terms loses at most half the smallest subnormal (7·10⁻⁴⁶) to each of its 2d roundings, so
/// it is within 10⁻⁴³ of the relatively rounded value, and its root within √10⁻⁴³ ≈ 3.2·10⁻²²:
/// only data near float's smallest values notice.
inline constexpr float kUnderflowDistance = 4e-22f;

}  // namespace kms
