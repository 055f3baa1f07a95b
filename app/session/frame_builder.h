// Turns an engine snapshot into an immutable Frame, on the worker thread (or its thread pool).
//
// Labels go from the engine's rows to the data set's rows (the same buffer when they are the
// same rows), centroids from the clustering space to the data set's units; for pictures the
// quantised picture is built from the compact form (palette[label[index[pixel]]], rows split
// across threads) and its quality measured, so the GUI thread never touches pixels.
#pragma once

#include <QImage>

#include "core/cluster_input.h"
#include "core/quality.h"
#include "kmeans/engine.h"
#include "session/session_types.h"

namespace kms::session {

class LabelPool;

/// What frames of one run are built against.
struct FrameContext {
  kms::app::ClusteringInputPtr input;
  std::shared_ptr<const kms::app::QualityContext> quality;  ///< null for point sets
};

/// Best of N: which start a frame shows, and how all of them ended.
struct StartInfo {
  int start = 0;
  int starts = 1;
  int best = -1;
  std::vector<kms::app::StartSummary> summaries;
};

/// Half-steps and history: which part of the iteration to show and the iteration before it.
struct PhaseInfo {
  StepPhase phase = StepPhase::Whole;
  /// The snapshot of the iteration before (its centroids and labels); null at iteration 0.
  const kms::Snapshot* previous = nullptr;
  int latestIteration = 0;
};

/// Builds the frame of `snapshot`; takes its label buffer, which goes back to `pool` (when
/// given) once the last holder of the frame lets go of it. A finished run's frame measures ΔE
/// exactly; others estimate it.
FramePtr buildFrame(kms::Snapshot& snapshot, const FrameContext& context, std::uint64_t runId,
                    bool finished, std::shared_ptr<LabelPool> pool = {},
                    const StartInfo* starts = nullptr, const PhaseInfo* phase = nullptr);

/// The data set's own picture (images only; null otherwise), alpha included.
QImage originalImage(const kms::app::Dataset& dataset);

}  // namespace kms::session
