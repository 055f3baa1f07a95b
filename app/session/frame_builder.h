// Turns an engine snapshot into an immutable Frame, on the worker thread.
//
// For images the recoloured picture is built here with a colour look-up table (one QRgb per
// cluster, one table read per pixel, rows split across the thread pool) so the GUI thread never
// touches pixels; the per-cluster pixel shares for the palette strip come out of the same pass.
#pragma once

#include <QImage>

#include "core/dataset.h"
#include "kmeans/engine.h"
#include "session/session_types.h"

namespace kms::session {

class LabelPool;

/// Builds the frame of `snapshot`; takes its label buffer, which goes back to `pool` (when
/// given) once the last holder of the frame lets go of it.
FramePtr buildFrame(kms::Snapshot& snapshot, const kms::app::DatasetPtr& dataset,
                    std::uint64_t runId, bool finished, std::shared_ptr<LabelPool> pool = {});

/// The data set's own picture (images only; null otherwise), alpha included.
QImage originalImage(const kms::app::Dataset& dataset);

}  // namespace kms::session
