// kmeans-cli's traces: --trace DIR writes the run's (io/trace.h), --compare-trace DIR compares a
// trace with exact Lloyd on the input (core/trace_compare.h).
#pragma once

#include <cstdint>

#include "cli/options.h"
#include "core/cluster_input.h"
#include "core/dataset.h"
#include "kmeans/engine.h"

namespace kms::app::cli {

/// --trace: the chosen start (`seed`) run again on `engine` (its data already set), every
/// iteration's centroids, labels and stats recorded — the same trajectory: same data,
/// configuration and seed — into the folder options.trace. Returns the iterations written.
/// Throws UsageError for a picture, ExportError when the folder cannot be written.
int writeRunTrace(const CliOptions& options, const Dataset& data, const ClusteringInput& input,
                  Engine& engine, std::uint64_t seed);

/// --compare-trace: the trace in options.compareTrace against exact Lloyd on `data`, printed
/// on standard output (unless --quiet with --report) and, with --report, written as JSON.
/// Throws LoadError naming the trace's file for a bad or mismatched trace.
void compareTraceCommand(const CliOptions& options, const Dataset& data);

}  // namespace kms::app::cli
