// kmeans-cli --animate: the chosen start as a clip (clip/clip_export.h).
#pragma once

#include <QString>

#include <cstdint>

#include "cli/options.h"
#include "core/cluster_input.h"
#include "kmeans/backend.h"

namespace kms::app::cli {

/// The start seeded `seed` replayed on `backend` and drawn frame by frame into options.animate,
/// with a progress line on a terminal (not with --quiet). Returns the line to print ("wrote …").
/// Throws ExportError naming the file.
QString writeClip(const CliOptions& options, const ClusteringInputPtr& input, std::uint64_t seed,
                  BackendKind backend);

}  // namespace kms::app::cli
