// Points and centroids in an OpenGL 3-D scatter (Qt Data Visualization) with orbit and zoom.
// Created only when threeDSupport() says OpenGL works (Q3DScatter aborts without it). One series
// per cluster, because a series has one colour; centroids are larger spheres in their cluster's
// colour.
#pragma once

#include <QColor>
#include <QImage>
#include <QWidget>

#include <vector>

#include "core/dataset.h"
#include "session/session_types.h"

class Q3DScatter;
class QScatter3DSeries;

namespace kms::ui {

class Scatter3DView : public QWidget {
  Q_OBJECT

 public:
  static constexpr std::size_t kMaxDrawnPoints = 15000;
  static constexpr int kMaxClusterSeries = 64;

  explicit Scatter3DView(QWidget* parent = nullptr);
  ~Scatter3DView() override;

  void setDataset(const kms::app::DatasetPtr& dataset);
  /// x and y lie in the floor plane, z points up.
  void setDimensions(int x, int y, int z);
  void showFrame(const session::FramePtr& frame, const std::vector<QColor>& colours);
  void clear();

  std::uint64_t framesShown() const { return framesShown_; }
  /// The 3-D scene as a picture (a window container cannot be grabbed with QWidget::grab).
  QImage renderImage(const QSize& size);
  QWidget* container() const { return container_; }

 private:
  void rebuildSeries(int requested);
  QVector3D position(const float* v) const;
  void redraw();

  Q3DScatter* graph_;
  QWidget* container_;
  kms::app::DatasetPtr dataset_;
  int dims_[3] = {0, 1, 2};
  std::vector<std::uint32_t> sample_;
  std::vector<std::uint8_t> sizes_;  // size class of each drawn row (point_sampler.h)
  std::vector<QScatter3DSeries*> unlabelled_;   // one per size class
  std::vector<QScatter3DSeries*> pointSeries_;  // cluster c, size class s at c · classes + s
  std::vector<QScatter3DSeries*> centroidSeries_;
  QScatter3DSeries* allCentroids_ = nullptr;  // k > kMaxClusterSeries: every centroid, one colour
  bool manyClusters_ = false;
  session::FramePtr frame_;
  std::vector<QColor> colours_;
  std::uint64_t framesShown_ = 0;
};

}  // namespace kms::ui
