// One colour per cluster, identical in every view (image palette, scatter plots, 3-D, strip).
//
// Images are clustered in RGB, so a cluster's natural colour is its centroid's colour; point
// clouds get a categorical palette chosen so neighbouring cluster numbers contrast.
#pragma once

#include <QColor>

#include <vector>

#include "render/cluster_style.h"
#include "session/session_types.h"

namespace kms::ui {

using kms::app::categoricalColour;  // render/cluster_style.h, shared with exported clips
using kms::app::contrastingText;

/// The colour of every cluster of `frame`: centroid colours when `image`, else categorical.
std::vector<QColor> clusterColours(const session::Frame& frame, bool image);

}  // namespace kms::ui
