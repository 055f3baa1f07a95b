// Pictures as RGB points: every format QImageReader reads (PNG, JPEG, BMP, GIF, TIFF, WebP, ...).
// Internal to app/io; use loadDataset().
#pragma once

#include <QString>

#include "core/dataset.h"
#include "io/load.h"

namespace kms::app::io {

/// Decodes the image (EXIF orientation applied) into n = width·height points of R, G, B in
/// [0, 1] (16-bit sources keep their precision); alpha goes to Dataset::alpha unless every pixel
/// is opaque. The size is checked against options.maxValues (3 values per pixel) before
/// decoding. Throws LoadError when the file is not a readable image or too large.
DatasetPtr loadImage(const QString& path, const LoadOptions& options);

}  // namespace kms::app::io
