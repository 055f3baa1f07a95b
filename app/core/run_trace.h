// A run recorded as a trace (io/trace.h): what kmeans-cli --trace and the window's
// File ▸ Export ▸ Trace… write for their own runs.
#pragma once

#include <QString>

#include <atomic>

#include "core/cluster_input.h"
#include "io/trace.h"
#include "kmeans/engine.h"

namespace kms::app {

/// Runs `config` (its seed: the start to record) on `engine`, which holds `input`'s data,
/// iteration by iteration, recording every iteration's centroids (the data set's units), labels
/// (one per data set row), inertia and changed count — the same trajectory as any run of that
/// data, configuration and seed. Throws InvalidArgument for a picture (traces are of point
/// sets), as Engine::initialize for a bad configuration, and kms::Interrupted when `cancel` is
/// raised between iterations.
RunTrace recordRunTrace(const ClusteringInput& input, const KMeansConfig& config, Engine& engine,
                        const QString& source, const std::atomic<bool>* cancel = nullptr);

}  // namespace kms::app
