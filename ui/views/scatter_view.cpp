#include "views/scatter_view.h"

#include <qcustomplot.h>
#include <QLabel>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "core/format.h"
#include "views/point_sampler.h"
#include "views/step_phase_text.h"
#include "views/voronoi_layer.h"

namespace kms::ui {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kDegree = 3.14159265358979323846 / 180.0;
const QColor kUnlabelled(0x8a, 0x93, 0x9e);

double pointSize(std::size_t drawn) {
  return drawn <= 2000 ? 6.0 : drawn <= 12000 ? 4.0 : 3.0;
}

}  // namespace

ScatterView::ScatterView(Projection projection, QWidget* parent)
    : QWidget(parent),
      projection_(projection),
      plot_(new QCustomPlot(this)),
      title_(new QCPTextElement(plot_, QString())),
      note_(new QLabel(this)) {
  note_->setObjectName(QStringLiteral("viewNote"));
  note_->setWordWrap(true);
  note_->setVisible(false);
  note_->setStyleSheet(QStringLiteral(
      "QLabel#viewNote { background: #fff7e0; color: #6b4e00; border-bottom: 1px solid #ecd9a0;"
      " padding: 5px 8px; }"));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  layout->addWidget(note_);
  layout->addWidget(plot_, 1);

  plot_->setObjectName(projection == Projection::Axes ? QStringLiteral("scatter2d")
                                                      : QStringLiteral("projection3d"));
  plot_->plotLayout()->insertRow(0);
  plot_->plotLayout()->addElement(0, 0, title_);
  QFont titleFont = font();
  titleFont.setPointSizeF(titleFont.pointSizeF() * 0.95);
  title_->setFont(titleFont);
  title_->setTextColor(QColor(0x4b, 0x55, 0x63));
  plot_->setNoAntialiasingOnDrag(true);
  connect(plot_, &QCustomPlot::beforeReplot, this, &ScatterView::keepAspect);
  connect(plot_, &QCustomPlot::mouseWheel, this, [this] { userMoved_ = true; });
  if (projection_ == Projection::Axes) {
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    connect(plot_, &QCustomPlot::mouseDoubleClick, this, [this] {
      resetRanges();
      plot_->replot();
    });
    connect(plot_, &QCustomPlot::mousePress, this, &ScatterView::onEditPress);
    connect(plot_, &QCustomPlot::mouseMove, this, &ScatterView::onEditMove);
    connect(plot_, &QCustomPlot::mouseRelease, this, &ScatterView::onEditRelease);
    plot_->setToolTip(tr("Wheel to zoom, drag to pan, double-click to fit"));
    regions_ = new VoronoiLayer(plot_);
  } else {
    plot_->setInteractions(QCP::iRangeZoom);
    plot_->xAxis->setVisible(false);
    plot_->yAxis->setVisible(false);
    plot_->axisRect()->setAutoMargins(QCP::msNone);
    plot_->axisRect()->setMargins(QMargins(4, 4, 4, 4));
    connect(plot_, &QCustomPlot::mousePress, this, &ScatterView::onMousePress);
    connect(plot_, &QCustomPlot::mouseMove, this, &ScatterView::onMouseMove);
    connect(plot_, &QCustomPlot::mouseRelease, this, [this] { rotating_ = false; });

    cube_ = new QCPCurve(plot_->xAxis, plot_->yAxis);
    cube_->setPen(QPen(QColor(0xb8, 0xbe, 0xc6), 1.0));
    for (int i = 0; i < 3; ++i) {
      auto* label = new QCPItemText(plot_);
      label->setColor(QColor(0x4b, 0x55, 0x63));
      cubeLabels_.push_back(label);
    }
  }
  clear();
}

void ScatterView::setNote(const QString& note) {
  note_->setText(note);
  note_->setVisible(!note.isEmpty());
}

void ScatterView::clear() {
  dataset_.reset();
  frame_.reset();
  sample_.clear();
  sizes_.clear();
  projected_.clear();
  history_.clear();
  historyIteration_ = -1;
  rebuildGraphs(0);
  title_->setText(tr("No data"));
  plot_->replot();
}

void ScatterView::setDataset(const kms::app::DatasetPtr& dataset) {
  dataset_ = dataset;
  frame_.reset();
  if (regions_) regions_->clear();
  history_.clear();
  historyIteration_ = -1;
  if (!dataset_) return clear();
  const int d = dataset_->d;
  DrawnRows drawn = drawnRows(*dataset_, kMaxDrawnPoints);
  sample_ = std::move(drawn.rows);
  sizes_ = std::move(drawn.sizes);
  lo_.assign(std::size_t(d), std::numeric_limits<float>::max());
  hi_.assign(std::size_t(d), std::numeric_limits<float>::lowest());
  for (const std::uint32_t i : sample_)
    for (int c = 0; c < d; ++c) {
      const float v = dataset_->values[std::size_t(i) * std::size_t(d) + std::size_t(c)];
      lo_[std::size_t(c)] = std::min(lo_[std::size_t(c)], v);
      hi_[std::size_t(c)] = std::max(hi_[std::size_t(c)], v);
    }
  setDimensions(0, std::min(1, d - 1), std::min(2, d - 1));
}

void ScatterView::setDimensions(int x, int y, int z) {
  if (!dataset_) return;
  const int d = dataset_->d;
  dims_[0] = std::clamp(x, 0, d - 1);
  dims_[1] = std::clamp(y, 0, d - 1);
  dims_[2] = std::clamp(z < 0 ? 2 : z, 0, d - 1);
  const auto name = [this](int dim) {
    return dim < dataset_->dimensionNames.size() ? dataset_->dimensionNames[dim]
                                                 : QStringLiteral("x%1").arg(dim + 1);
  };
  plot_->xAxis->setLabel(name(dims_[0]));
  plot_->yAxis->setLabel(d >= 2 ? name(dims_[1]) : QString());
  for (int i = 0; i < int(cubeLabels_.size()); ++i)
    cubeLabels_[std::size_t(i)]->setText(name(dims_[i]));
  project();
  resetRanges();
  if (frame_)
    showFrame(frame_, colours_);
  else {
    rebuildGraphs(0);
    redrawPoints();
    plot_->replot(QCustomPlot::rpQueuedReplot);
  }
}

void ScatterView::setRotation(double yaw, double pitch) {
  yaw_ = std::fmod(yaw, 360.0);
  pitch_ = std::clamp(pitch, -89.0, 89.0);
  project();
  redrawPoints();
  redrawCentroids();
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void ScatterView::setTrailsVisible(bool visible) {
  trails_ = visible;
  for (QCPCurve* curve : trailCurves_)
    curve->setVisible(visible);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

QPointF ScatterView::projectPoint(const float* v) const {
  if (projection_ == Projection::Axes)
    return {v[dims_[0]], dataset_->d >= 2 ? double(v[dims_[1]]) : 0.0};
  // Each dimension scaled to [-1, 1]; dims_[2] points up, dims_[1] away from the viewer.
  double n[3];
  for (int i = 0; i < 3; ++i) {
    const auto c = std::size_t(dims_[i]);
    const double half = std::max(1e-12, (double(hi_[c]) - double(lo_[c])) / 2.0);
    n[i] = (double(v[c]) - (double(lo_[c]) + double(hi_[c])) / 2.0) / half;
  }
  const double yaw = yaw_ * kDegree, pitch = pitch_ * kDegree;
  const double x1 = n[0] * std::cos(yaw) - n[1] * std::sin(yaw);
  const double z1 = n[0] * std::sin(yaw) + n[1] * std::cos(yaw);
  return {x1, n[2] * std::cos(pitch) + z1 * std::sin(pitch)};
}

void ScatterView::project() {
  if (!dataset_) return;
  const auto d = std::size_t(dataset_->d);
  struct Drawn {
    QPointF at;
    std::uint32_t row;
    std::uint8_t size;
  };
  std::vector<Drawn> points;
  points.reserve(sample_.size());
  for (std::size_t j = 0; j < sample_.size(); ++j)
    points.push_back(
        {projectPoint(&dataset_->values[std::size_t(sample_[j]) * d]), sample_[j], sizes_[j]});
  // Sorted by x once here, so per-frame partitions are sorted for QCPGraph without sorting.
  std::sort(points.begin(), points.end(),
            [](const Drawn& a, const Drawn& b) { return a.at.x() < b.at.x(); });
  projected_.resize(points.size());
  for (std::size_t j = 0; j < points.size(); ++j) {
    projected_[j] = points[j].at;
    sample_[j] = points[j].row;
    sizes_[j] = points[j].size;
  }
  if (projection_ == Projection::Oblique) drawCube();
}

void ScatterView::drawCube() {
  // The unit cube of the normalised data, edges as one curve broken by NaN points.
  auto corner = [this](int i) {
    float v[3];
    std::vector<float> full(std::size_t(dataset_->d), 0.0f);
    for (int a = 0; a < 3; ++a) {
      const auto c = std::size_t(dims_[a]);
      v[a] = (i >> a) & 1 ? hi_[c] : lo_[c];
    }
    for (int a = 0; a < 3; ++a)
      full[std::size_t(dims_[a])] = v[a];
    return projectPoint(full.data());
  };
  QVector<QCPCurveData> edges;
  int t = 0;
  for (int i = 0; i < 8; ++i)
    for (int a = 0; a < 3; ++a) {
      const int j = i | (1 << a);
      if (j == i) continue;
      const QPointF p = corner(i), q = corner(j);
      edges.append(QCPCurveData(t, p.x(), p.y()));
      edges.append(QCPCurveData(t + 1, q.x(), q.y()));
      edges.append(QCPCurveData(t + 2, kNaN, kNaN));
      t += 3;
    }
  cube_->data()->set(edges, true);
  for (int a = 0; a < 3; ++a) {
    const QPointF end = corner(1 << a);
    const QPointF origin = corner(0);
    QCPItemText* label = cubeLabels_[std::size_t(a)];
    label->position->setCoords(end + (end - origin) * 0.08);
  }
}

void ScatterView::resetRanges() {
  if (!dataset_) return;
  userMoved_ = false;
  if (projection_ == Projection::Oblique) {
    box_ = QRectF(QPointF(-1.8, -1.8), QPointF(1.8, 1.8));
  } else {
    auto range = [this](int dim) {
      const double lo = lo_[std::size_t(dim)], hi = hi_[std::size_t(dim)];
      const double pad = std::max(1e-9, (hi - lo) * 0.05);
      return std::pair(lo - pad, hi + pad);
    };
    const auto [x0, x1] = range(dims_[0]);
    const auto [y0, y1] = dataset_->d >= 2 ? range(dims_[1]) : std::pair(-1.0, 1.0);
    box_ = QRectF(QPointF(x0, y0), QPointF(x1, y1));
  }
  keepAspect();
}

void ScatterView::setEqualAspect(bool equal) {
  equalAspect_ = equal;
  resetRanges();
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void ScatterView::keepAspect() {
  const bool equal = equalAspect_ || projection_ == Projection::Oblique;
  const QRect pixels = plot_->axisRect()->rect();
  if (userMoved_) {
    if (equal && pixels.width() > 0 && pixels.height() > 0)
      plot_->xAxis->setScaleRatio(plot_->yAxis, 1.0);
    return;
  }
  if (!equal || pixels.width() <= 10 || pixels.height() <= 10) {
    plot_->xAxis->setRange(box_.left(), box_.right());
    plot_->yAxis->setRange(box_.top(), box_.bottom());
    return;
  }
  // The box fitted whole, with one unit the same length on both axes.
  const double unitsPerPixel =
      std::max(box_.width() / pixels.width(), box_.height() / pixels.height());
  const QPointF c = box_.center();
  plot_->xAxis->setRange(c.x() - unitsPerPixel * pixels.width() / 2,
                         c.x() + unitsPerPixel * pixels.width() / 2);
  plot_->yAxis->setRange(c.y() - unitsPerPixel * pixels.height() / 2,
                         c.y() + unitsPerPixel * pixels.height() / 2);
}

void ScatterView::rebuildGraphs(int k) {
  for (auto* g : pointGraphs_)
    plot_->removePlottable(g);
  for (auto* g : centroidGraphs_)
    plot_->removePlottable(g);
  for (auto* c : trailCurves_)
    plot_->removePlottable(c);
  for (auto* g : unlabelled_)
    plot_->removePlottable(g);
  if (changed_) plot_->removePlottable(changed_);
  changed_ = nullptr;
  for (auto* a : arrows_)
    plot_->removeItem(a);
  arrows_.clear();
  pointGraphs_.clear();
  centroidGraphs_.clear();
  trailCurves_.clear();
  unlabelled_.clear();
  for (int s = 0; s < kSizeClasses; ++s) {
    QCPGraph* g = plot_->addGraph();
    g->setLineStyle(QCPGraph::lsNone);
    unlabelled_.push_back(g);
  }
  for (int c = 0; c < k * kSizeClasses; ++c) {
    QCPGraph* g = plot_->addGraph();
    g->setLineStyle(QCPGraph::lsNone);
    pointGraphs_.push_back(g);
  }
  for (int c = 0; c < k; ++c) {
    auto* curve = new QCPCurve(plot_->xAxis, plot_->yAxis);
    curve->setVisible(trails_);
    trailCurves_.push_back(curve);
  }
  changed_ = plot_->addGraph();
  changed_->setLineStyle(QCPGraph::lsNone);
  for (int c = 0; c < k; ++c) {
    auto* arrow = new QCPItemLine(plot_);
    arrow->setHead(QCPLineEnding(QCPLineEnding::esSpikeArrow, 12, 14));
    arrow->setVisible(false);
    arrows_.push_back(arrow);
  }
  for (int c = 0; c < k; ++c) {
    QCPGraph* g = plot_->addGraph();
    g->setLineStyle(QCPGraph::lsNone);
    centroidGraphs_.push_back(g);
  }
}

void ScatterView::redrawPoints() {
  if (!dataset_) return;
  const double size = pointSize(sample_.size()) * scale_;
  const std::size_t clusters = pointGraphs_.size() / kSizeClasses;
  const bool labelled =
      frame_ && frame_->labels.size() == dataset_->n && int(clusters) == frame_->k;
  const int alpha = sample_.size() > 12000 ? 150 : 200;
  std::vector<QVector<QCPGraphData>> none(kSizeClasses);
  std::vector<QVector<QCPGraphData>> buckets(pointGraphs_.size());
  for (std::size_t j = 0; j < sample_.size(); ++j) {
    const QCPGraphData point(projected_[j].x(), projected_[j].y());
    if (labelled)
      buckets[std::size_t(frame_->labels[sample_[j]]) * kSizeClasses + sizes_[j]].push_back(point);
    else
      none[sizes_[j]].push_back(point);
  }
  QColor grey = kUnlabelled;
  grey.setAlpha(alpha);
  for (int s = 0; s < kSizeClasses; ++s) {
    unlabelled_[std::size_t(s)]->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssDisc, grey, grey, size * kSizeScale[s]));
    unlabelled_[std::size_t(s)]->data()->set(none[std::size_t(s)], true);
  }
  for (std::size_t g = 0; g < pointGraphs_.size(); ++g) {
    const std::size_t c = g / kSizeClasses;
    QColor colour = c < colours_.size() ? colours_[c] : kUnlabelled;
    colour.setAlpha(alpha);
    pointGraphs_[g]->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, colour,
                                                     size * kSizeScale[g % kSizeClasses]));
    pointGraphs_[g]->data()->set(buckets[g], true);
  }
}

void ScatterView::redrawCentroids() {
  if (!frame_ || !dataset_ || frame_->d != dataset_->d) return;
  const auto d = std::size_t(frame_->d);
  const bool none = placing_ && placed_.empty();  // placing starts from an empty plot
  for (std::size_t c = 0; c < centroidGraphs_.size(); ++c) {
    if (none) {
      centroidGraphs_[c]->data()->clear();
      trailCurves_[c]->data()->clear();
      continue;
    }
    const QColor colour = c < colours_.size() ? colours_[c] : kUnlabelled;
    const QPointF at = projectPoint(&frame_->centroids[c * d]);
    centroidGraphs_[c]->setScatterStyle(
        QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(QColor(0x1f, 0x29, 0x37), 2.0 * scale_),
                        colour, 15 * scale_));
    centroidGraphs_[c]->data()->set({QCPGraphData(at.x(), at.y())}, true);
    QVector<QCPCurveData> trail;
    trail.reserve(int(history_.size()));
    for (const auto& [iteration, centroids] : history_) {
      if (iteration > historyIteration_) break;
      if (centroids.size() < (c + 1) * d) continue;
      const QPointF p = projectPoint(&centroids[c * d]);
      trail.push_back(QCPCurveData(double(iteration), p.x(), p.y()));
    }
    QCPCurve* curve = trailCurves_[c];
    curve->setPen(QPen(colour.darker(160), 2.0 * scale_));
    curve->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour.darker(160),
                                           colour.darker(160), 5 * scale_));
    curve->data()->set(trail, true);
  }
}

void ScatterView::showFrame(const session::FramePtr& frame, const std::vector<QColor>& colours) {
  if (!frame || !dataset_) return;
  frame_ = frame;
  colours_ = colours;
  ++framesShown_;
  if (frame->runId != historyRun_ ||
      (!history_.empty() && history_.begin()->second.size() != frame->centroids.size())) {
    history_.clear();
    historyRun_ = frame->runId;
  }
  // In an assign half-step the centroids drawn are those after the iteration before.
  historyIteration_ =
      frame->phase == session::StepPhase::Assign ? frame->iteration - 1 : frame->iteration;
  history_[historyIteration_] = frame->centroids;
  while (history_.size() > kMaxTrail)
    history_.erase(history_.begin());
  if (int(pointGraphs_.size()) != frame->k * kSizeClasses) rebuildGraphs(frame->k);
  redrawPoints();
  redrawCentroids();
  redrawChanges();
  if (regions_ && regionsAvailable()) {
    std::vector<QPointF> centres;
    const auto d = std::size_t(frame->d);
    for (int c = 0; c < frame->k && frame->d == dataset_->d; ++c)
      centres.push_back(projectPoint(&frame->centroids[std::size_t(c) * d]));
    regions_->setCentroids(std::move(centres), colours_);
  }
  QString text = stepPhaseTitle(*frame);
  const QString what =
      dataset_->isImage() && dataset_->isCompact() ? tr("distinct colours") : tr("points");
  if (sample_.size() < dataset_->n)
    text +=
        tr(" · drawing %1 of %2 %3")
            .arg(kms::app::groupedCount(sample_.size()), kms::app::groupedCount(dataset_->n), what);
  if (!dataset_->counts.empty()) text += tr(", sized by how often they occur");
  title_->setText(text);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void ScatterView::setPresentation(bool on) {
  scale_ = on ? 1.8 : 1.0;
  QFont titleFont = font();
  titleFont.setPointSizeF(titleFont.pointSizeF() * (on ? 1.4 : 0.95));
  title_->setFont(titleFont);
  for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis}) {
    QFont f = font();
    f.setPointSizeF(f.pointSizeF() * (on ? 1.4 : 1.0));
    axis->setTickLabelFont(f);
    axis->setLabelFont(f);
  }
  if (frame_) {
    redrawPoints();
    redrawCentroids();
    redrawChanges();
  }
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void ScatterView::setRegionsVisible(bool visible) {
  if (regions_) regions_->setVisible(visible && regionsAvailable());
}

bool ScatterView::regionsAvailable() const {
  return projection_ == Projection::Axes && dataset_ && dataset_->d <= 2;
}

void ScatterView::redrawChanges() {
  if (!changed_) return;
  QVector<QCPGraphData> rings;
  const auto d = std::size_t(dataset_->d);
  if (frame_->phase == session::StepPhase::Assign && frame_->d == dataset_->d) {
    // Rings only where points are drawn: every changed row when few changed, else those in
    // the drawn sample.
    const std::size_t limit = kMaxDrawnPoints;
    if (sample_.size() == dataset_->n) {
      for (const std::uint32_t row : frame_->changedRows) {
        if (std::size_t(rings.size()) >= limit) break;
        const QPointF at = projectPoint(&dataset_->values[std::size_t(row) * d]);
        rings.push_back(QCPGraphData(at.x(), at.y()));
      }
    } else {
      std::vector<std::uint8_t> isChanged(dataset_->n, 0);
      for (const std::uint32_t row : frame_->changedRows)
        isChanged[row] = 1;
      for (std::size_t j = 0; j < sample_.size(); ++j)
        if (isChanged[sample_[j]])
          rings.push_back(QCPGraphData(projected_[j].x(), projected_[j].y()));
    }
    std::sort(rings.begin(), rings.end(),
              [](const QCPGraphData& a, const QCPGraphData& b) { return a.key < b.key; });
  }
  const double size = pointSize(sample_.size()) * scale_ + 4.0;
  changed_->setScatterStyle(QCPScatterStyle(
      QCPScatterStyle::ssCircle, QPen(QColor(0x11, 0x18, 0x27, 170), 1.0), Qt::NoBrush, size));
  changed_->data()->set(rings, true);
  const bool arrows = frame_->phase == session::StepPhase::Update &&
                      frame_->movedFrom.size() == frame_->centroids.size() &&
                      frame_->d == dataset_->d;
  for (std::size_t c = 0; c < arrows_.size(); ++c) {
    QCPItemLine* arrow = arrows_[c];
    if (!arrows) {
      arrow->setVisible(false);
      continue;
    }
    const QPointF from = projectPoint(&frame_->movedFrom[c * d]);
    const QPointF to = projectPoint(&frame_->centroids[c * d]);
    arrow->start->setCoords(from);
    arrow->end->setCoords(to);
    const QColor colour = c < colours_.size() ? colours_[c] : kUnlabelled;
    arrow->setPen(QPen(colour.darker(170), 2.2));
    arrow->setVisible(from != to);
  }
}

std::size_t ScatterView::trailLength() const {
  return std::size_t(std::count_if(history_.begin(), history_.end(), [this](const auto& entry) {
    return entry.first <= historyIteration_;
  }));
}

std::size_t ScatterView::ringedPoints() const {
  return changed_ ? std::size_t(changed_->data()->size()) : 0;
}

int ScatterView::arrowsShown() const {
  return int(std::count_if(arrows_.begin(), arrows_.end(),
                           [](const QCPItemLine* a) { return a->visible(); }));
}

QString ScatterView::title() const {
  return title_->text();
}

void ScatterView::onMousePress(QMouseEvent* event) {
  rotating_ = event->button() == Qt::LeftButton;
  dragStart_ = event->position();
  yawAtDrag_ = yaw_;
  pitchAtDrag_ = pitch_;
}

void ScatterView::onMouseMove(QMouseEvent* event) {
  if (!rotating_ || !dataset_) return;
  const QPointF delta = event->position() - dragStart_;
  setRotation(yawAtDrag_ + delta.x() * 0.4, pitchAtDrag_ + delta.y() * 0.4);
}

}  // namespace kms::ui
