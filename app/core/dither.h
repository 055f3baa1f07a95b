// A clustered picture as a QImage with dithering (core/dither_pixels.h chooses the pixels).
#pragma once

#include <QImage>

#include <atomic>
#include <vector>

#include "core/cluster_input.h"
#include "core/dither_pixels.h"

namespace kms::app {

/// The picture of `input`'s data set dithered to the k colours of `centroids` (k × d, in the
/// input's colour space; `palette` their 8-bit colours). Pixels left out of clustering stay
/// transparent. Returns the same kind of image as quantizedImage() (Indexed8 up to 256 colours).
/// With DitherMode::None, each pixel takes its nearest colour. Multi-threaded, deterministic.
/// Returns a null image when `cancel` is raised.
QImage ditheredImage(const ClusteringInput& input, const std::vector<float>& centroids,
                     const std::vector<QRgb>& palette, DitherMode mode,
                     const std::atomic<bool>* cancel = nullptr);

}  // namespace kms::app
