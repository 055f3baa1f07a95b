// kmeans-cli's work: load or generate the data, cluster it, write the requested files.
#pragma once

#include "cli/options.h"

namespace kms::app::cli {

/// Runs one clustering as `options` say, printing progress and a summary to stdout (stderr when an
/// output goes to stdout; nothing with --quiet) and any error to stderr as one line. With several
/// inputs, clusters each in turn; a failure is reported and the next file goes on. Returns an
/// ExitCode (see exit_codes.h): with several inputs, the first failure's, or kSuccess.
int run(const CliOptions& options);

}  // namespace kms::app::cli
