// ScatterView: editing centroids by hand in the 2-D view — placing (click adds, right-click
// removes) and dragging any centroid; every edit is reported with centroidsEdited().
#include <qcustomplot.h>

#include <QLineF>
#include <QMouseEvent>

#include "views/scatter_view.h"

namespace kms::ui {

bool ScatterView::editable() const {
  return projection_ == Projection::Axes && dataset_ && !dataset_->isImage() &&
         !dataset_->displayOnly && frame_ && frame_->d == dataset_->d;
}

void ScatterView::setPlacing(bool placing) {
  placing_ = placing && projection_ == Projection::Axes;
  placed_.clear();
  dragging_ = -1;
  if (frame_) redrawCentroids();
  plot_->setCursor(placing_ ? Qt::CrossCursor : Qt::ArrowCursor);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

std::vector<float> ScatterView::editableCentroids() const {
  // Placing, before stepping on: exactly the positions placed (the engine's copy at iteration 0
  // may differ in the last bit); otherwise where the centroids are now.
  if (placing_ && (!frame_ || frame_->iteration == 0 || placed_.empty())) return placed_;
  return frame_ ? frame_->centroids : std::vector<float>{};
}

int ScatterView::centroidNear(const QPointF& pixel) const {
  if (!editable()) return -1;
  const std::vector<float> centroids = editableCentroids();
  const auto d = std::size_t(dataset_->d);
  int best = -1;
  double bestDistance = 12.0 * 12.0;  // pixels²
  for (std::size_t c = 0; c * d < centroids.size(); ++c) {
    const QPointF at = projectPoint(&centroids[c * d]);
    const double px = plot_->xAxis->coordToPixel(at.x()) - pixel.x();
    const double py = plot_->yAxis->coordToPixel(at.y()) - pixel.y();
    if (px * px + py * py < bestDistance) {
      bestDistance = px * px + py * py;
      best = int(c);
    }
  }
  return best;
}

void ScatterView::onEditPress(QMouseEvent* event) {
  userMoved_ = true;
  pressPixel_ = event->position();
  dragging_ = event->button() == Qt::LeftButton ? centroidNear(event->position()) : -1;
  if (dragging_ < 0) return;
  // Grabbing a centroid: the drag moves it, not the plot.
  plot_->setInteraction(QCP::iRangeDrag, false);
  dragged_ = editableCentroids();
}

void ScatterView::onEditMove(QMouseEvent* event) {
  if (dragging_ < 0) return;
  const auto d = std::size_t(dataset_->d);
  float* c = &dragged_[std::size_t(dragging_) * d];
  c[dims_[0]] = float(plot_->xAxis->pixelToCoord(event->position().x()));
  if (d >= 2) c[dims_[1]] = float(plot_->yAxis->pixelToCoord(event->position().y()));
  const QPointF at = projectPoint(c);
  centroidGraphs_[std::size_t(dragging_)]->data()->set({QCPGraphData(at.x(), at.y())}, true);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void ScatterView::onEditRelease(QMouseEvent* event) {
  const bool click = QLineF(pressPixel_, event->position()).length() < 4.0;
  if (dragging_ >= 0) {
    plot_->setInteraction(QCP::iRangeDrag, true);
    dragging_ = -1;
    if (click) return;  // a click on a centroid moves nothing
    if (placing_) placed_ = dragged_;
    const std::vector<float> edited = dragged_;
    emit centroidsEdited(edited);
    return;
  }
  if (!placing_ || !click || !editable()) return;
  const auto d = std::size_t(dataset_->d);
  if (event->button() == Qt::RightButton) {
    const int near = centroidNear(event->position());
    if (near < 0 || placed_.size() <= d) return;  // k stays at least 1
    placed_.erase(placed_.begin() + long(std::size_t(near) * d),
                  placed_.begin() + long((std::size_t(near) + 1) * d));
  } else if (event->button() == Qt::LeftButton) {
    if (placed_.size() / d >= dataset_->n) return;  // k ≤ n
    // The shown dimensions from the click, the others from the data's mean.
    std::vector<float> c(d, 0.0f);
    for (std::size_t j = 0; j < d; ++j) {
      double sum = 0.0;
      for (std::size_t i = 0; i < dataset_->n; ++i)
        sum += dataset_->values[i * d + j];
      c[j] = float(sum / double(dataset_->n));
    }
    c[std::size_t(dims_[0])] = float(plot_->xAxis->pixelToCoord(event->position().x()));
    if (d >= 2) c[std::size_t(dims_[1])] = float(plot_->yAxis->pixelToCoord(event->position().y()));
    placed_.insert(placed_.end(), c.begin(), c.end());
  } else {
    return;
  }
  emit centroidsEdited(placed_);
}

}  // namespace kms::ui
