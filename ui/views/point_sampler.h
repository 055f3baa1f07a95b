// Which points a plot draws. Large clouds are thinned for drawing only (the engine always
// clusters every point): a fixed, seeded random subset, so the picture does not flicker from
// frame to frame and is the same each run.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/dataset.h"

namespace kms::ui {

/// `limit` indices out of [0, n) in increasing order (all of them when n ≤ limit).
std::vector<std::uint32_t> samplePoints(std::size_t n, std::size_t limit, std::uint64_t seed = 1);

/// Drawn points come in a few sizes: a row of compact data is drawn bigger the more items
/// (pixels) it stands for, on a log scale.
inline constexpr int kSizeClasses = 3;
inline constexpr double kSizeScale[kSizeClasses] = {0.6, 1.0, 1.8};

struct DrawnRows {
  std::vector<std::uint32_t> rows;   ///< increasing
  std::vector<std::uint8_t> sizes;   ///< each row's size class (1 for plain data)
};

/// The rows a plot of `data` draws. Plain data: samplePoints(). Compact data (a picture's
/// distinct colours): `limit` rows drawn without replacement in proportion to their counts, so
/// the plot shows where the pixels are (most distinct colours of a photo occur once or twice),
/// each sized by its count. Seeded: the same rows every time.
DrawnRows drawnRows(const kms::app::Dataset& data, std::size_t limit, std::uint64_t seed = 1);

}  // namespace kms::ui
