#include "views/scatter_3d_view.h"

#include <QVBoxLayout>
#include <QtDataVisualization/Q3DCamera>
#include <QtDataVisualization/Q3DScatter>
#include <QtDataVisualization/Q3DTheme>
#include <QtDataVisualization/QScatter3DSeries>
#include <QtDataVisualization/QScatterDataProxy>
#include <QtDataVisualization/QValue3DAxis>

#include <algorithm>
#include <cmath>
#include <limits>

#include "views/point_sampler.h"

namespace kms::ui {
namespace {

QScatter3DSeries* makeSeries(const QColor& colour, QAbstract3DSeries::Mesh mesh, float size) {
  auto* series = new QScatter3DSeries;
  series->setMesh(mesh);
  series->setMeshSmooth(mesh == QAbstract3DSeries::MeshSphere);
  series->setItemSize(size);
  series->setBaseColor(colour);
  series->setColorStyle(Q3DTheme::ColorStyleUniform);
  return series;
}

}  // namespace

Scatter3DView::Scatter3DView(QWidget* parent) : QWidget(parent), graph_(new Q3DScatter) {
  graph_->setShadowQuality(QAbstract3DGraph::ShadowQualityNone);
  graph_->setSelectionMode(QAbstract3DGraph::SelectionNone);
  graph_->setOptimizationHints(QAbstract3DGraph::OptimizationStatic);
  Q3DTheme* theme = graph_->activeTheme();
  theme->setType(Q3DTheme::ThemeQt);
  theme->setBackgroundColor(QColor(0xf7, 0xf8, 0xfa));
  theme->setWindowColor(QColor(0xff, 0xff, 0xff));
  theme->setLabelTextColor(QColor(0x37, 0x41, 0x51));
  theme->setLabelBackgroundEnabled(false);
  theme->setGridLineColor(QColor(0xd5, 0xd9, 0xde));
  theme->setLightStrength(4.0f);
  graph_->scene()->activeCamera()->setCameraPreset(Q3DCamera::CameraPresetIsometricRightHigh);
  graph_->scene()->activeCamera()->setZoomLevel(130.0f);
  for (QValue3DAxis* axis : {graph_->axisX(), graph_->axisY(), graph_->axisZ()}) {
    axis->setTitleVisible(true);
    axis->setLabelFormat(QStringLiteral("%.2g"));
    axis->setSegmentCount(4);
  }
  container_ = QWidget::createWindowContainer(graph_, this);
  container_->setObjectName(QStringLiteral("scatter3d"));
  container_->setMinimumSize(200, 200);
  container_->setFocusPolicy(Qt::StrongFocus);
  container_->setToolTip(tr("Drag with the right mouse button to orbit, wheel to zoom"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(container_);
}

Scatter3DView::~Scatter3DView() = default;  // the container owns the graph window

void Scatter3DView::clear() {
  dataset_.reset();
  frame_.reset();
  rebuildSeries(0);
}

void Scatter3DView::setDataset(const kms::app::DatasetPtr& dataset) {
  dataset_ = dataset;
  frame_.reset();
  if (!dataset_ || dataset_->d < 1) return clear();
  DrawnRows drawn = drawnRows(*dataset_, kMaxDrawnPoints, 2);
  sample_ = std::move(drawn.rows);
  sizes_ = std::move(drawn.sizes);
  setDimensions(0, std::min(1, dataset_->d - 1), std::min(2, dataset_->d - 1));
}

void Scatter3DView::setDimensions(int x, int y, int z) {
  if (!dataset_) return;
  const int d = dataset_->d;
  dims_[0] = std::clamp(x, 0, d - 1);
  dims_[1] = std::clamp(y, 0, d - 1);
  dims_[2] = std::clamp(z, 0, d - 1);
  const auto name = [this](int dim) {
    return dim < dataset_->dimensionNames.size() ? dataset_->dimensionNames[dim]
                                                 : QStringLiteral("x%1").arg(dim + 1);
  };
  // Data x, y lie in the floor (graph X and Z); data z is the graph's vertical Y.
  QValue3DAxis* axes[3] = {graph_->axisX(), graph_->axisZ(), graph_->axisY()};
  for (int a = 0; a < 3; ++a) {
    float lo = std::numeric_limits<float>::max(), hi = std::numeric_limits<float>::lowest();
    for (const std::uint32_t i : sample_) {
      const float v = dataset_->values[std::size_t(i) * std::size_t(d) + std::size_t(dims_[a])];
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    if (!(hi > lo)) hi = lo + 1.0f;
    // Round outwards to a "nice" step so the axis labels read 0, 0.5, 1 instead of 0.16, 0.82.
    const double raw = (double(hi) - double(lo)) / 5.0;
    const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
    double step = 10.0 * magnitude;
    for (const double m : {1.0, 2.0, 2.5, 5.0})
      if (m * magnitude >= raw) {
        step = m * magnitude;
        break;
      }
    const double from = std::floor(lo / step) * step, to = std::ceil(hi / step) * step;
    axes[a]->setRange(float(from), float(to));
    axes[a]->setSegmentCount(std::max(1, int(std::lround((to - from) / step))));
    axes[a]->setTitle(name(dims_[a]));
  }
  rebuildSeries(frame_ ? frame_->k : 0);
  redraw();
}

QVector3D Scatter3DView::position(const float* v) const {
  return {v[dims_[0]], v[dims_[2]], v[dims_[1]]};
}

void Scatter3DView::rebuildSeries(int requested) {
  // A series has one colour, so each cluster needs two; beyond kMaxClusterSeries clusters the
  // scene would crawl, so the points stay grey and only the centroids are drawn (one series).
  const int k = requested <= kMaxClusterSeries ? requested : 0;
  manyClusters_ = requested > kMaxClusterSeries;
  for (QScatter3DSeries* s : graph_->seriesList()) {
    graph_->removeSeries(s);
    delete s;
  }
  pointSeries_.clear();
  centroidSeries_.clear();
  unlabelled_.clear();
  allCentroids_ = nullptr;
  for (int s = 0; s < kSizeClasses; ++s) {
    unlabelled_.push_back(makeSeries(QColor(0x8a, 0x93, 0x9e), QAbstract3DSeries::MeshSphere,
                                     float(0.035 * kSizeScale[s])));
    graph_->addSeries(unlabelled_.back());
  }
  for (int c = 0; c < k * kSizeClasses; ++c) {
    pointSeries_.push_back(makeSeries(Qt::gray, QAbstract3DSeries::MeshSphere,
                                      float(0.035 * kSizeScale[c % kSizeClasses])));
    graph_->addSeries(pointSeries_.back());
  }
  for (int c = 0; c < k; ++c) {
    centroidSeries_.push_back(makeSeries(Qt::gray, QAbstract3DSeries::MeshSphere, 0.36f));
    graph_->addSeries(centroidSeries_.back());
  }
  if (manyClusters_) {
    allCentroids_ = makeSeries(QColor(0x1f, 0x29, 0x37), QAbstract3DSeries::MeshSphere, 0.12f);
    graph_->addSeries(allCentroids_);
  }
}

void Scatter3DView::redraw() {
  if (!dataset_) return;
  const auto d = std::size_t(dataset_->d);
  const bool labelled = frame_ && frame_->labels.size() == dataset_->n &&
                        int(pointSeries_.size()) == frame_->k * kSizeClasses;
  std::vector<QScatterDataArray*> arrays(pointSeries_.size());
  for (auto& a : arrays)
    a = new QScatterDataArray;
  std::vector<QScatterDataArray*> none(kSizeClasses);
  for (auto& a : none)
    a = new QScatterDataArray;
  for (std::size_t j = 0; j < sample_.size(); ++j) {
    const std::uint32_t i = sample_[j];
    const QScatterDataItem item(position(&dataset_->values[std::size_t(i) * d]));
    if (labelled)
      arrays[std::size_t(frame_->labels[i]) * kSizeClasses + sizes_[j]]->append(item);
    else
      none[sizes_[j]]->append(item);
  }
  for (int s = 0; s < kSizeClasses; ++s)
    unlabelled_[std::size_t(s)]->dataProxy()->resetArray(none[std::size_t(s)]);
  for (std::size_t g = 0; g < pointSeries_.size(); ++g) {
    const std::size_t c = g / kSizeClasses;
    pointSeries_[g]->setBaseColor(c < colours_.size() ? colours_[c] : Qt::gray);
    pointSeries_[g]->dataProxy()->resetArray(arrays[g]);
  }
  if (!frame_ || frame_->d != dataset_->d) return;
  if (manyClusters_ && allCentroids_) {
    auto* array = new QScatterDataArray;
    for (int c = 0; c < frame_->k; ++c)
      array->append(QScatterDataItem(position(&frame_->centroids[std::size_t(c) * d])));
    allCentroids_->dataProxy()->resetArray(array);
    return;
  }
  for (std::size_t c = 0; c < centroidSeries_.size(); ++c) {
    // Darker than the cluster's points so the sphere stands out in the middle of its cloud.
    centroidSeries_[c]->setBaseColor(c < colours_.size() ? colours_[c].darker(170) : Qt::gray);
    auto* array = new QScatterDataArray;
    array->append(QScatterDataItem(position(&frame_->centroids[c * d])));
    centroidSeries_[c]->dataProxy()->resetArray(array);
  }
}

void Scatter3DView::showFrame(const session::FramePtr& frame, const std::vector<QColor>& colours) {
  if (!frame || !dataset_) return;
  frame_ = frame;
  colours_ = colours;
  ++framesShown_;
  const bool shapeChanged = manyClusters_ ? frame->k <= kMaxClusterSeries
                                          : int(pointSeries_.size()) != frame->k * kSizeClasses;
  if (shapeChanged) rebuildSeries(frame->k);
  redraw();
}

QImage Scatter3DView::renderImage(const QSize& size) {
  return graph_->renderToImage(4, size);
}

}  // namespace kms::ui
