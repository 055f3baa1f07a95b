// The compact form of data with repeated values: the distinct values, how many items have each
// (counts), and which value every item has (index). Engines cluster the distinct values with
// their counts exactly as they would cluster every item (see DataView::counts); the index turns
// a label per value back into a label per item.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace kms {

/// Index entry of an item that is left out of clustering (a fully transparent pixel).
inline constexpr std::uint32_t kNoRow = 0xffffffffu;

/// Distinct packed 8-bit colours of a picture.
struct DistinctColours {
  /// Distinct keys in ascending order: 0x00RRGGBB, or 0xAARRGGBB when alpha is kept.
  std::vector<std::uint32_t> keys;
  std::vector<std::uint32_t> counts;  ///< pixels per key (≥ 1)
  std::vector<std::uint32_t> index;   ///< per pixel: its key's position, or kNoRow when skipped
  std::size_t rows() const { return keys.size(); }
};

/// How colours are keyed.
struct ColourKeying {
  /// Pixels with alpha 0 are left out (index kNoRow). Otherwise alpha is ignored.
  bool skip_transparent = false;
  /// Alpha is part of the key (0xAARRGGBB), for pictures with partly transparent pixels;
  /// otherwise keys are 0x00RRGGBB.
  bool keep_alpha = false;
};

/// The distinct colours of n pixels packed as 0xAARRGGBB (QImage::Format_ARGB32 / RGB32), on
/// `threads` CPU threads (≤ 0: all). Exact; the same result for any thread count. Opaque keys
/// go through a bitmap of the 2^24 colour cube and its ranks (3 MiB per thread, cache-resident),
/// so the cost is two streaming passes over the pixels whatever the number of colours.
DistinctColours distinctColours(const std::uint32_t* pixels, std::size_t n,
                                const ColourKeying& keying = {}, int threads = 0);

/// The same on CUDA device `device` (pixels are copied there and the index back): the identical
/// result. Alpha is not supported there (keying must be default). Throws DeviceError without a
/// usable device or in builds without the CUDA backend. `device_ms`, when given, receives the
/// time of the device work alone (CUDA events), transfers excluded.
DistinctColours distinctColoursOnDevice(const std::uint32_t* pixels, std::size_t n, int device = 0,
                                        double* device_ms = nullptr);

/// Distinct rows of general data (d floats per item; −0 and +0 are the same value).
struct DistinctRows {
  int d = 0;
  std::vector<float> values;          ///< rows × d, in order of first occurrence
  std::vector<std::uint32_t> counts;  ///< items per row
  std::vector<std::uint32_t> index;   ///< per item: its row
  std::size_t rows() const { return counts.size(); }
};

/// Compacts n items of d floats, or returns nothing when it would not pay: as soon as more than
/// `max_distinct_fraction` of the items seen so far (checked after every 2^18 items, and at the
/// end) are distinct — so almost-distinct data (float photos, measurements) give up after a
/// quarter million items instead of hashing them all. At most 2^32 − 1 items.
std::optional<DistinctRows> distinctRows(const float* values, std::size_t n, int d,
                                         double max_distinct_fraction = 0.9);

}  // namespace kms
