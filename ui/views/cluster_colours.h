// One colour per cluster, identical in every view (image palette, scatter plots, 3-D, strip).
//
// Images are clustered in RGB, so a cluster's natural colour is its centroid's colour; point
// clouds get a categorical palette chosen so neighbouring cluster numbers contrast.
#pragma once

#include <QColor>

#include <vector>

#include "session/session_types.h"

namespace kms::ui {

/// The categorical colour of cluster `index` (Tableau 20 order, then golden-angle hues).
QColor categoricalColour(int index);

/// The colour of every cluster of `frame`: centroid colours when `image`, else categorical.
std::vector<QColor> clusterColours(const session::Frame& frame, bool image);

/// Black or white, whichever reads better on `background`.
QColor contrastingText(const QColor& background);

}  // namespace kms::ui
