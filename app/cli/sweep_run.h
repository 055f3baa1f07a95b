// kmeans-cli --sweep: every k of a range on the same data, a table of the measures and, with
// --report, the same as JSON.
#pragma once

#include "cli/options.h"
#include "core/cluster_input.h"

namespace kms::app::cli {

/// Runs the sweep of `options` on `input` (already built from the data), prints the table to
/// stdout (nothing with --quiet but the elbow line) and writes --report. Returns an ExitCode.
int runSweepCommand(const CliOptions& options, const ClusteringInput& input);

}  // namespace kms::app::cli
