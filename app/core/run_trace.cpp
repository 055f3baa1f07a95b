#include "core/run_trace.h"

#include "kmeans/errors.h"

namespace kms::app {

RunTrace recordRunTrace(const ClusteringInput& input, const KMeansConfig& config, Engine& engine,
                        const QString& source, const std::atomic<bool>* cancel) {
  const Dataset& data = *input.dataset();
  if (data.isImage()) throw InvalidArgument("traces are written for point sets, not pictures");
  engine.initialize(config);
  RunTrace trace;
  trace.k = config.k;
  trace.d = data.d;
  trace.n = data.n;
  trace.source = source;
  Snapshot snapshot;
  engine.snapshot(snapshot);
  trace.centroids.push_back(input.toDatasetSpace(snapshot.centroids));
  while (!engine.finished()) {
    if (cancel && cancel->load(std::memory_order_relaxed))
      throw Interrupted("recording the trace was cancelled");
    const IterationStats stats = engine.step();
    engine.snapshot(snapshot);
    trace.centroids.push_back(input.toDatasetSpace(snapshot.centroids));
    std::vector<std::int32_t> labels;
    input.toDatasetRows(snapshot.labels, labels);
    trace.labels.push_back(std::move(labels));
    trace.inertia.push_back(stats.inertia);
    trace.changed.push_back(std::int64_t(stats.changed));
  }
  return trace;
}

}  // namespace kms::app
