// Draws a clip's frames: the run as the window shows it — a 2-D scatter with the centroids'
// regions and trails for points, the quantised picture with its palette for pictures — with the
// convergence chart beside it and a caption line (iteration, move, inertia) below. QtGui only.
#pragma once

#include <QImage>
#include <QPointF>
#include <QRectF>
#include <QSize>
#include <QString>

#include <vector>

#include "clip/clip_run.h"
#include "core/principal_components.h"

namespace kms::app::clip {

class ClipPainter {
 public:
  /// Prepares the drawing of `run`'s frames at `size` pixels (at least 240 × 180): the plot's
  /// range covers every point and every centroid of the whole run, so nothing jumps. Points of
  /// more than three dimensions are drawn on their first two principal axes.
  ClipPainter(const ClipRun& run, QSize size);

  /// Frame `frame` of `frameCount`, ARGB32. Thread-safe (const; every call draws on its own
  /// image).
  QImage paint(const ClipFrame& frame, int frameCount) const;

  /// The caption of a frame: "Iteration 3 of 12 · assign: every point to its nearest centroid ·
  /// inertia 1,234.5 · 312 changed".
  QString caption(const ClipFrame& frame) const;

 private:
  QPointF plotted(const float* v) const;  // data → the 2-D plot's coordinates
  void paintPoints(class QPainter& p, const QRectF& area, const ClipFrame& frame) const;
  void paintPicture(QPainter& p, const QRectF& area, const ClipFrame& frame) const;
  void paintChart(QPainter& p, const QRectF& area, const ClipFrame& frame) const;

  const ClipRun& run_;
  QSize size_;
  bool picture_ = false;
  int d_ = 0;
  bool principal_ = false;
  PrincipalComponents pcs_;
  QString xName_, yName_;
  QRectF range_;                             // plot coordinates covered (x, y up)
  std::vector<std::size_t> drawn_;           // rows drawn (a sample of large clouds)
  std::vector<QPointF> drawnAt_;             // their plot coordinates
  std::vector<std::vector<QPointF>> paths_;  // each centroid after iterations 0 … T
  bool regions_ = false;
};

}  // namespace kms::app::clip
