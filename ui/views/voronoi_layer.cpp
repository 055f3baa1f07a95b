#include "views/voronoi_layer.h"

#include "render/cluster_style.h"

#include <qcustomplot.h>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>
#include <limits>

namespace kms::ui {
namespace {

constexpr int kCellPixels = 2;

}  // namespace

VoronoiLayer::VoronoiLayer(QCustomPlot* plot) : QObject(plot), plot_(plot) {
  // Its own layer under the grid and the points.
  if (!plot_->layer(QStringLiteral("regions")))
    plot_->addLayer(QStringLiteral("regions"), plot_->layer(QStringLiteral("background")),
                    QCustomPlot::limAbove);
  pixmap_ = new QCPItemPixmap(plot_);
  pixmap_->setLayer(QStringLiteral("regions"));
  pixmap_->setScaled(true, Qt::IgnoreAspectRatio, Qt::FastTransformation);
  pixmap_->setVisible(false);
  pixmap_->setSelectable(false);
  debounce_.setSingleShot(true);
  debounce_.setInterval(15);
  connect(&debounce_, &QTimer::timeout, this, &VoronoiLayer::start);
  connect(plot_->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
          &VoronoiLayer::schedule);
  connect(plot_->yAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this,
          &VoronoiLayer::schedule);
  connect(&watcher_, &QFutureWatcher<Result>::finished, this, [this] {
    const Result r = watcher_.result();
    image_ = r.image;
    imageRange_ = r.range;
    ++computed_;
    if (visible_ && !image_.isNull()) {
      pixmap_->topLeft->setCoords(r.range.left(), r.range.bottom());
      pixmap_->bottomRight->setCoords(r.range.right(), r.range.top());
      pixmap_->setPixmap(QPixmap::fromImage(image_));
      pixmap_->setVisible(true);
      plot_->replot(QCustomPlot::rpQueuedReplot);
    }
    emit updated();
    if (again_) {
      again_ = false;
      start();
    }
  });
}

void VoronoiLayer::setVisible(bool visible) {
  visible_ = visible;
  if (!visible) {
    pixmap_->setVisible(false);
    plot_->replot(QCustomPlot::rpQueuedReplot);
  }
  schedule();
}

void VoronoiLayer::setCentroids(std::vector<QPointF> centres, std::vector<QColor> colours) {
  centres_ = std::move(centres);
  colours_ = std::move(colours);
  schedule();
}

void VoronoiLayer::clear() {
  centres_.clear();
  pixmap_->setVisible(false);
}

void VoronoiLayer::schedule() {
  if (visible_ && !centres_.empty()) debounce_.start();
}

void VoronoiLayer::start() {
  if (!visible_ || centres_.empty()) return;
  if (watcher_.isRunning()) {
    again_ = true;
    return;
  }
  const QCPRange x = plot_->xAxis->range(), y = plot_->yAxis->range();
  const QRectF range(x.lower, y.lower, x.size(), y.size());
  const QRect pixels = plot_->axisRect()->rect();
  const QSize cells(std::max(1, pixels.width() / kCellPixels),
                    std::max(1, pixels.height() / kCellPixels));
  watcher_.setFuture(QtConcurrent::run([centres = centres_, colours = colours_, range, cells] {
    return Result{render(centres, colours, range, cells), range};
  }));
}

QImage VoronoiLayer::render(const std::vector<QPointF>& centres, const std::vector<QColor>& colours,
                            const QRectF& range, QSize size) {
  return kms::app::voronoiRegions(centres, colours, range, size);
}

}  // namespace kms::ui
