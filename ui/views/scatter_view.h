// Points coloured by cluster in a QCustomPlot, with every centroid drawn large and its trail
// across the iterations seen so far.
//
// Two projections: Axes shows two chosen dimensions (the 2-D view); Oblique shows three
// dimensions turned in space, dragged to rotate (the 3-D view's fallback where OpenGL is not
// available). Clouds above `kMaxDrawnPoints` are thinned for drawing (PointSampler); each frame
// only re-partitions the drawn points by label, the projection is computed once per dataset /
// dimension choice / rotation.
#pragma once

#include <QColor>
#include <QPointF>
#include <QWidget>

#include <map>
#include <vector>

#include "core/dataset.h"
#include "session/session_types.h"

class QCustomPlot;
class QCPGraph;
class QCPCurve;
class QCPTextElement;
class QCPItemText;
class QCPItemLine;
class QLabel;
class QMouseEvent;

namespace kms::ui {
class VoronoiLayer;
}

namespace kms::ui {

class ScatterView : public QWidget {
  Q_OBJECT

 public:
  enum class Projection { Axes, Oblique };
  static constexpr std::size_t kMaxDrawnPoints = 40000;
  static constexpr std::size_t kMaxTrail = 400;  // centroid positions kept per cluster

  explicit ScatterView(Projection projection, QWidget* parent = nullptr);

  void setDataset(const kms::app::DatasetPtr& dataset);
  /// Dimensions shown: x and y (Axes), or x, y, z (Oblique; z is drawn upwards).
  void setDimensions(int x, int y, int z = -1);
  void showFrame(const session::FramePtr& frame, const std::vector<QColor>& colours);
  /// The frame shown last (null before any).
  const session::FramePtr& frame() const { return frame_; }
  void setTrailsVisible(bool visible);
  /// One data unit is as long across as up (k-means measures plain Euclidean distance, so
  /// this is the geometry it sees). Always on for the oblique projection.
  void setEqualAspect(bool equal);
  bool trailsVisible() const { return trails_; }
  /// The 2-D view's Voronoi regions of the centroids (data of at most two dimensions, where the
  /// plot's plane is the data's space; with more, the nearest centroid depends on hidden ones).
  void setRegionsVisible(bool visible);
  /// For projectors: points, centroids, trails and text drawn larger.
  void setPresentation(bool on);
  double drawingScale() const { return scale_; }
  bool regionsAvailable() const;
  VoronoiLayer* regions() const { return regions_; }
  /// A line above the plot (why this is a projection, what to do).
  void setNote(const QString& note);
  void clear();

  /// Placing centroids by hand (2-D view of point data): the centroids disappear, each click
  /// adds one, right-click removes the nearest; every edit is reported by centroidsEdited.
  /// Outside this mode a centroid can still be dragged.
  void setPlacing(bool placing);
  bool placing() const { return placing_; }
  /// Centroids can be edited here: the 2-D view of a point set (not a picture's colours).
  bool editable() const;

 signals:
  /// The user added, moved or removed a centroid: all of them now, k × d, data units. (The
  /// dimensions not shown keep their values; new centroids take the data's mean there.)
  void centroidsEdited(const std::vector<float>& centroids);

 public:
  std::uint64_t framesShown() const { return framesShown_; }
  std::size_t drawnPoints() const { return sample_.size(); }
  std::size_t trailLength() const;
  /// Points ringed as having changed cluster (assign half-steps), as drawn.
  std::size_t ringedPoints() const;
  /// Arrows from where the centroids were (update half-steps).
  int arrowsShown() const;
  QString title() const;
  QCustomPlot* plot() const { return plot_; }
  /// Rotation of the oblique projection, in degrees.
  void setRotation(double yaw, double pitch);

 private:
  void project();  // recomputes the drawn points' screen positions and order
  QPointF projectPoint(const float* v) const;
  void rebuildGraphs(int k);
  void redrawPoints();
  void redrawCentroids();
  void redrawChanges();  // rings on points that changed cluster, arrows of moved centroids
  void drawCube();
  void resetRanges();
  /// Before each replot: fits the data box to the plot (until the user zooms or pans), or
  /// keeps one unit equally long on both axes.
  void keepAspect();
  void onMousePress(QMouseEvent* event);
  void onMouseMove(QMouseEvent* event);
  // Editing centroids in the Axes projection.
  void onEditPress(QMouseEvent* event);
  void onEditMove(QMouseEvent* event);
  void onEditRelease(QMouseEvent* event);
  /// The centroid drawn within a few pixels of `pixel`, or −1.
  int centroidNear(const QPointF& pixel) const;
  /// Centroids as they would be edited: the placed ones, or the frame's.
  std::vector<float> editableCentroids() const;

  Projection projection_;
  QCustomPlot* plot_;
  QCPTextElement* title_;
  QLabel* note_;
  kms::app::DatasetPtr dataset_;
  int dims_[3] = {0, 1, 2};
  std::vector<float> lo_, hi_;  // bounds of the drawn points, per dimension

  std::vector<std::uint32_t> sample_;   // drawn points, ordered by projected x
  std::vector<std::uint8_t> sizes_;     // their size classes (point_sampler.h), same order
  std::vector<QPointF> projected_;      // their positions, same order
  std::vector<QCPGraph*> pointGraphs_;  // cluster c, size class s at c · kSizeClasses + s
  std::vector<QCPGraph*> centroidGraphs_;
  std::vector<QCPCurve*> trailCurves_;
  std::vector<QCPGraph*> unlabelled_;  // one per size class
  VoronoiLayer* regions_ = nullptr;    // Axes projection only
  QCPGraph* changed_ = nullptr;        // rings around points that changed cluster
  std::vector<QCPItemLine*> arrows_;   // one per centroid, shown in update half-steps
  QCPCurve* cube_ = nullptr;
  std::vector<QCPItemText*> cubeLabels_;

  session::FramePtr frame_;
  std::vector<QColor> colours_;
  /// Centroids (k × d) after each iteration seen this run, by iteration: the trails show those
  /// up to the iteration on screen (looking back shortens them).
  std::map<int, std::vector<float>> history_;
  std::uint64_t historyRun_ = 0;
  int historyIteration_ = -1;  // the iteration whose centroids are drawn
  bool trails_ = true;
  bool equalAspect_ = true;
  bool userMoved_ = false;  // zoomed or panned since the last fit
  QRectF box_;              // what a fit shows, in plot coordinates
  std::uint64_t framesShown_ = 0;

  double scale_ = 1.0;  // presentation mode: 1.8
  bool placing_ = false;
  std::vector<float> placed_;   // placing: the centroids placed so far (k × d)
  int dragging_ = -1;           // the centroid being dragged
  std::vector<float> dragged_;  // all centroids while one is dragged
  QPointF pressPixel_;
  double yaw_ = 35.0, pitch_ = 25.0;
  QPointF dragStart_;
  double yawAtDrag_ = 0.0, pitchAtDrag_ = 0.0;
  bool rotating_ = false;
};

}  // namespace kms::ui
