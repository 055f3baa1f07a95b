// How clusters look, the same in the window's views and in exported clips: one colour per
// cluster, text that reads on it, and the centroids' Voronoi regions behind a 2-D plot.
// QtGui only (no widgets), so headless programs draw exactly what the window draws.
#pragma once

#include <QColor>
#include <QImage>
#include <QPointF>
#include <QRectF>
#include <QSize>

#include <vector>

namespace kms::app {

/// The categorical colour of cluster `index` (Tableau 20 order, then golden-angle hues); grey
/// for a negative index (no cluster).
QColor categoricalColour(int index);

/// Black or white, whichever reads better on `background`.
QColor contrastingText(const QColor& background);

/// The Voronoi regions of `centres` over `range` (plot coordinates; x left to right, y bottom to
/// top) at `size` cells: every cell shaded lightly in its nearest centre's colour (Euclidean
/// distance, ties to the lower index), cells on a boundary a little darker. Premultiplied ARGB,
/// transparent without centres.
QImage voronoiRegions(const std::vector<QPointF>& centres, const std::vector<QColor>& colours,
                      const QRectF& range, QSize size);

}  // namespace kms::app
