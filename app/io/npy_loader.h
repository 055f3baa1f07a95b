// NumPy .npy arrays (format versions 1.0, 2.0 and 3.0). Accepted: dtype float16, float32 or
// float64 in either byte order ('<f2', '<f4', '>f8', '|f4', '=f8', ...; float16 read exactly,
// float64 rounded to float32 once, each said in the data set's notes), C order (fortran_order
// False), shape (n, d) or (n,) — the latter read as d = 1. Internal to app/io; use loadDataset().
#pragma once

#include <QString>

#include "core/dataset.h"
#include "io/load.h"

namespace kms::app::io {

/// Reads a .npy file. Throws LoadError for a bad magic or version, a malformed header, another
/// dtype, Fortran order, another rank, a data size that does not match the shape, or
/// non-finite values.
DatasetPtr loadNpy(const QString& path, const LoadOptions& options);

}  // namespace kms::app::io
