#include "views/voronoi_layer.h"

#include <qcustomplot.h>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>
#include <limits>

namespace kms::ui {
namespace {

constexpr int kCellPixels = 2;
constexpr int kFillAlpha = 46;
constexpr int kEdgeAlpha = 150;

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
  QImage image(size, QImage::Format_ARGB32_Premultiplied);
  if (centres.empty() || size.isEmpty()) {
    image.fill(Qt::transparent);
    return image;
  }
  std::vector<int> owner(std::size_t(size.width()) * std::size_t(size.height()));
  const double dx = range.width() / size.width(), dy = range.height() / size.height();
  for (int row = 0; row < size.height(); ++row) {
    const double y = range.top() + (size.height() - row - 0.5) * dy;  // row 0 at the top
    for (int col = 0; col < size.width(); ++col) {
      const double x = range.left() + (col + 0.5) * dx;
      int best = 0;
      double bestDistance = std::numeric_limits<double>::infinity();
      for (std::size_t c = 0; c < centres.size(); ++c) {
        const double ex = x - centres[c].x(), ey = y - centres[c].y();
        const double distance = ex * ex + ey * ey;
        if (distance < bestDistance) {
          bestDistance = distance;
          best = int(c);
        }
      }
      owner[std::size_t(row) * std::size_t(size.width()) + std::size_t(col)] = best;
    }
  }
  for (int row = 0; row < size.height(); ++row) {
    auto* line = reinterpret_cast<QRgb*>(image.scanLine(row));
    for (int col = 0; col < size.width(); ++col) {
      const int o = owner[std::size_t(row) * std::size_t(size.width()) + std::size_t(col)];
      const bool edge =
          (col + 1 < size.width() &&
           owner[std::size_t(row) * std::size_t(size.width()) + std::size_t(col) + 1] != o) ||
          (row + 1 < size.height() &&
           owner[std::size_t(row + 1) * std::size_t(size.width()) + std::size_t(col)] != o);
      QColor colour = std::size_t(o) < colours.size() ? colours[std::size_t(o)] : Qt::gray;
      if (edge) colour = colour.darker(130);
      colour.setAlpha(edge ? kEdgeAlpha : kFillAlpha);
      line[col] = qPremultiply(colour.rgba());
    }
  }
  return image;
}

}  // namespace kms::ui
