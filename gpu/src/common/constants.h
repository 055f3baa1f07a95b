// Partitioning constants that several backends must agree on.
#pragma once

#include <cstddef>

namespace kms {

/// k-means++ draws are resolved chunk by chunk: the sum of each chunk of this many points is
/// formed first, then the chunk holding the draw is scanned. Backends use the same chunking so
/// that rounding of the running sums differs as little as possible.
inline constexpr std::size_t kSamplingChunk = 4096;

}  // namespace kms
