// The centroids' Voronoi regions behind a 2-D scatter plot: every screen cell shaded lightly in
// the colour of its nearest centroid, boundaries a little darker. Computed on the thread pool on
// a grid of 2 × 2-pixel cells whenever the centroids, the zoom or the pan change (the newest
// request wins), so the GUI thread only draws the finished picture.
#pragma once

#include <QColor>
#include <QFutureWatcher>
#include <QImage>
#include <QObject>
#include <QPointF>
#include <QTimer>

#include <vector>

class QCustomPlot;
class QCPItemPixmap;

namespace kms::ui {

class VoronoiLayer : public QObject {
  Q_OBJECT

 public:
  explicit VoronoiLayer(QCustomPlot* plot);

  void setVisible(bool visible);
  bool isVisible() const { return visible_; }
  /// Centroids in plot coordinates (the data's two dimensions) and their colours.
  void setCentroids(std::vector<QPointF> centres, std::vector<QColor> colours);
  void clear();

  /// The newest finished picture (one pixel per cell) and the plot range it covers.
  const QImage& image() const { return image_; }
  QRectF imageRange() const { return imageRange_; }
  /// Pictures finished so far (tests wait on this).
  int computed() const { return computed_; }

  /// The region picture of `centres` over `range` (x: left to right, y: bottom to top) at
  /// `size` cells: nearest centroid by Euclidean distance, ties to the lower index.
  static QImage render(const std::vector<QPointF>& centres, const std::vector<QColor>& colours,
                       const QRectF& range, QSize size);

 signals:
  void updated();

 private:
  void schedule();
  void start();

  QCustomPlot* plot_;
  QCPItemPixmap* pixmap_;
  bool visible_ = false;
  std::vector<QPointF> centres_;
  std::vector<QColor> colours_;
  QTimer debounce_;
  struct Result {
    QImage image;
    QRectF range;
  };
  QFutureWatcher<Result> watcher_;
  bool again_ = false;  // a request came while one was running
  QImage image_;
  QRectF imageRange_;
  int computed_ = 0;
};

}  // namespace kms::ui
