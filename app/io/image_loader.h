// Pictures as RGB points: every format QImageReader reads (PNG, JPEG, BMP, GIF, TIFF, WebP, ...).
// Internal to app/io; use loadDataset().
#pragma once

#include <QString>

#include "core/dataset.h"
#include "io/load.h"

namespace kms::app::io {

/// Decodes the image (EXIF orientation applied; an animation's first frame, said so in
/// Dataset::notes) into the compact form: its distinct colours (R, G, B in [0, 1]) with their
/// pixel counts and each pixel's colour. 8-bit sources (grey, palette, CMYK and RGB alike) are
/// keyed exactly by their 8-bit values; 16-bit sources keep their precision and are compacted
/// when colours repeat, else clustered pixel by pixel (said so). Fully transparent pixels are
/// left out (index kms::kNoRow); when some pixels are partly transparent, alpha in [0, 1] is a
/// fourth value. The size is checked against options.maxValues (3 values per pixel) before
/// decoding. Throws LoadError when the file is not a readable image, is too large, or has no
/// visible pixel.
DatasetPtr loadImage(const QString& path, const LoadOptions& options);

}  // namespace kms::app::io
