// PLY point clouds (ascii, binary_little_endian, binary_big_endian 1.0): the vertex element's
// x, y (and z when present) become the coordinates, its red/green/blue (or diffuse_red/...)
// the point colours. Other vertex properties and other elements (faces, edges) are ignored, so a
// mesh loads as the cloud of its vertices. Internal to app/io; use loadDataset().
//
// Why not Assimp: Assimp 5.2's PLY importer loads point-only files, but it accepts truncated
// vertex lists (it repeats the last vertex), fills a missing z with 0, and sizes its buffers from
// the header's vertex count before looking at the file size (an absurd count ends in bad_alloc
// or the OOM killer). This reader checks all of that and names the vertex and property at fault.
#pragma once

#include <QString>

#include "core/dataset.h"
#include "io/load.h"

namespace kms::app::io {

/// Reads a PLY file. Throws LoadError for a malformed header, a missing vertex element or x/y
/// property, data that ends early, text in numeric fields, or non-finite coordinates.
DatasetPtr loadPly(const QString& path, const LoadOptions& options);

}  // namespace kms::app::io
