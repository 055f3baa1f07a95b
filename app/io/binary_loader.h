// The classic binary point format of the CUDA k-means exercises (.bin, .dat): int32 N, int32 d,
// then N·d float32 values, point after point, all little-endian, nothing after them.
// Internal to app/io; use loadDataset().
#pragma once

#include <QString>

#include <cstdint>
#include <string_view>

#include "core/dataset.h"
#include "io/load.h"

namespace kms::app::io {

/// Whether a file starting with `head` (at least its first 8 bytes) and `fileSize` bytes long is
/// consistent with the format: N > 0, d > 0 and fileSize = 8 + 4·N·d.
bool looksLikeClassicBinary(std::string_view head, std::uint64_t fileSize);

/// Reads the format. Throws LoadError for a short or absurd header, a size that does not match
/// the header, or non-finite values.
DatasetPtr loadClassicBinary(const QString& path, const LoadOptions& options);

}  // namespace kms::app::io
