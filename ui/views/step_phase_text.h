// Words for what a frame shows when k-means is taken apart: "Iteration 3 · assign: …".
#pragma once

#include <QString>

#include "session/session_types.h"

namespace kms::ui {

/// A title for the views: "Initial centroids", "Iteration 3", "Iteration 3 · assign: each
/// point to its nearest centroid (12 changed)", "Iteration 3 · update: each centroid to the
/// mean of its points", with "(looking back; the run is at 9)" when it is not the newest.
QString stepPhaseTitle(const session::Frame& frame);

/// The short form for the status bar ("Assign · iteration 3", "Looking back at iteration 2 of
/// 9"); empty for a whole, newest iteration.
QString stepPhaseStatus(const session::Frame& frame);

}  // namespace kms::ui
