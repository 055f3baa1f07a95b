// Which points a plot draws. Large clouds are thinned for drawing only (the engine always
// clusters every point): a fixed, seeded random subset, so the picture does not flicker from
// frame to frame and is the same each run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kms::ui {

/// `limit` indices out of [0, n) in increasing order (all of them when n ≤ limit).
std::vector<std::uint32_t> samplePoints(std::size_t n, std::size_t limit, std::uint64_t seed = 1);

}  // namespace kms::ui
