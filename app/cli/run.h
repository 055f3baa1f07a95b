// kmeans-cli's work: load or generate the data, cluster it, write the requested files.
#pragma once

#include "cli/options.h"

namespace kms::app::cli {

/// Runs one clustering as `options` say, printing progress and a summary to stdout (nothing with
/// --quiet) and any error to stderr as one line. Returns an ExitCode (see exit_codes.h).
int run(const CliOptions& options);

}  // namespace kms::app::cli
