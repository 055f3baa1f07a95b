// Dithering a quantised picture: every pixel takes a palette colour chosen in the colour space
// the picture was clustered in, so that areas average to the original colours instead of
// showing flat bands.
#pragma once

#include <QImage>

#include <atomic>
#include <optional>
#include <string_view>
#include <vector>

#include "core/cluster_input.h"

namespace kms::app {

enum class DitherMode {
  None,            ///< each pixel its cluster's colour (the plain quantised picture)
  FloydSteinberg,  ///< error diffusion, serpentine rows
  Ordered,         ///< 8 × 8 Bayer thresholds between each pixel's two nearest palette colours
};

std::string_view toString(DitherMode mode);
/// Accepts "none", "fs" (also "floyd-steinberg") and "ordered" (also "bayer").
std::optional<DitherMode> parseDitherMode(std::string_view text);

/// Rows of a band that Floyd–Steinberg diffuses on its own; each band starts kDitherWarmupRows
/// above itself (those rows are diffused but not kept), so the seams are invisible and the
/// result is the same for any number of threads.
inline constexpr int kDitherBandRows = 128;
inline constexpr int kDitherWarmupRows = 16;

/// The picture of `input`'s data set dithered to the k colours of `centroids` (k × d, in the
/// input's colour space; `palette` their 8-bit colours). Pixels left out of clustering stay
/// transparent. Returns the same kind of image as quantizedImage() (Indexed8 up to 256 colours).
/// With DitherMode::None, each pixel takes its nearest colour. Multi-threaded, deterministic.
/// Returns a null image when `cancel` is raised.
QImage ditheredImage(const ClusteringInput& input, const std::vector<float>& centroids,
                     const std::vector<QRgb>& palette, DitherMode mode,
                     const std::atomic<bool>* cancel = nullptr);

}  // namespace kms::app
