#include "trace_window.h"

#include <qcustomplot.h>
#include <QCheckBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QSlider>
#include <QSplitter>
#include <QTableWidget>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "core/format.h"
#include "views/cluster_colours.h"
#include "views/scatter_view.h"

namespace kms::ui {
namespace {

const QColor kTraceColour(0xe1, 0x57, 0x59);
const QColor kExactColour(0x4e, 0x79, 0xa7);

/// Lloyd in double from `start` for `iterations` (labels: nearest in double, ties to the lower
/// index; an empty cluster keeps its centroid): the reference both runs are measured against.
std::vector<std::vector<float>> referenceRun(const kms::app::Dataset& data,
                                             const std::vector<float>& start, int iterations) {
  const int d = data.d;
  const int k = int(start.size() / std::size_t(d));
  std::vector<double> c(start.begin(), start.end());
  std::vector<std::vector<float>> out{start};
  std::vector<double> sums(c.size());
  std::vector<double> mass(static_cast<std::size_t>(k));
  for (int t = 1; t <= iterations; ++t) {
    std::fill(sums.begin(), sums.end(), 0.0);
    std::fill(mass.begin(), mass.end(), 0.0);
    for (std::size_t i = 0; i < data.n; ++i) {
      const float* x = &data.values[i * std::size_t(d)];
      int best = 0;
      double bestDistance = std::numeric_limits<double>::max();
      for (int j = 0; j < k; ++j) {
        double e = 0.0;
        for (int a = 0; a < d; ++a) {
          const double diff = double(x[a]) - c[std::size_t(j) * std::size_t(d) + std::size_t(a)];
          e += diff * diff;
        }
        if (e < bestDistance) {
          bestDistance = e;
          best = j;
        }
      }
      const double w = data.weights.empty() ? 1.0 : double(data.weights[i]);
      mass[std::size_t(best)] += w;
      for (int a = 0; a < d; ++a)
        sums[std::size_t(best) * std::size_t(d) + std::size_t(a)] += w * double(x[a]);
    }
    for (int j = 0; j < k; ++j)
      if (mass[std::size_t(j)] > 0)
        for (int a = 0; a < d; ++a)
          c[std::size_t(j) * std::size_t(d) + std::size_t(a)] =
              sums[std::size_t(j) * std::size_t(d) + std::size_t(a)] / mass[std::size_t(j)];
    out.emplace_back(c.begin(), c.end());
  }
  return out;
}

double largestDistance(const std::vector<float>& a, const std::vector<float>& b,
                       const std::vector<int>* matching, int d) {
  const int k = int(a.size() / std::size_t(d));
  double largest = 0.0;
  for (int j = 0; j < k; ++j) {
    const int m = matching ? (*matching)[std::size_t(j)] : j;
    double e = 0.0;
    for (int x = 0; x < d; ++x) {
      const double diff = double(a[std::size_t(j) * std::size_t(d) + std::size_t(x)]) -
                          double(b[std::size_t(m) * std::size_t(d) + std::size_t(x)]);
      e += diff * diff;
    }
    largest = std::max(largest, std::sqrt(e));
  }
  return largest;
}

}  // namespace

TraceWindow::TraceWindow(kms::app::DatasetPtr dataset, kms::app::RunTrace trace,
                         kms::app::TraceComparison comparison, const QString& name, QWidget* parent)
    : QDialog(parent),
      dataset_(std::move(dataset)),
      trace_(std::move(trace)),
      comparison_(std::move(comparison)) {
  setWindowTitle(tr("Trace %1 against exact Lloyd").arg(name));
  setAttribute(Qt::WA_DeleteOnClose);
  shown_ = dataset_;
  projected_ = dataset_->d > 3 && dataset_->d <= kms::app::kMaxPrincipalDims;
  if (projected_) {
    axes_ = kms::app::principalComponents(*dataset_, 2);
    shown_ = kms::app::projectedDataset(*dataset_, axes_);
  }

  findings_ = new QLabel(this);
  findings_->setWordWrap(true);
  findings_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  QString text;
  for (const QString& f : comparison_.findings)
    text += QStringLiteral("<li>%1</li>").arg(f.toHtmlEscaped());
  findings_->setText(QStringLiteral("<ul style='margin: 0'>%1</ul>").arg(text));

  traceView_ = new ScatterView(ScatterView::Projection::Axes, this);
  exactView_ = new ScatterView(ScatterView::Projection::Axes, this);
  for (ScatterView* v : {traceView_, exactView_}) {
    v->setDataset(shown_);
    v->setDimensions(0, std::min(1, shown_->d - 1));
    v->setEqualAspect(true);
  }
  traceStatus_ = new QLabel(this);
  exactStatus_ = new QLabel(this);
  auto* sides = new QHBoxLayout;
  const QString axes = projected_ ? tr(" · on the principal axes") : QString();
  for (int s = 0; s < 2; ++s) {
    auto* column = new QVBoxLayout;
    auto* title = new QLabel(
        s == 0
            ? tr("<b>Trace %1</b> (labels its centroids imply)%2").arg(name.toHtmlEscaped(), axes)
            : tr("<b>Exact Lloyd</b> from the trace's start%1").arg(axes),
        this);
    title->setStyleSheet(
        QStringLiteral("color: %1;").arg((s == 0 ? kTraceColour : kExactColour).name()));
    column->addWidget(title);
    column->addWidget(view(s), 1);
    column->addWidget(s == 0 ? traceStatus_ : exactStatus_);
    sides->addLayout(column, 1);
  }

  auto* back = new QToolButton(this);
  back->setArrowType(Qt::LeftArrow);
  auto* forward = new QToolButton(this);
  forward->setArrowType(Qt::RightArrow);
  slider_ = new QSlider(Qt::Horizontal, this);
  slider_->setRange(0, trace_.iterations());
  position_ = new QLabel(this);
  position_->setMinimumWidth(110);
  halfStepBox_ = new QCheckBox(tr("Half-steps"), this);
  halfStepBox_->setToolTip(tr("◀ ▶ step each iteration's assign, then its update"));
  nearTieBox_ = new QCheckBox(tr("Near ties"), this);
  nearTieBox_->setToolTip(
      tr("Ring every point within rounding (or the two runs' centroid difference) of a tie "
         "between its two nearest centroids, instead of the points whose label differs"));
  referenceButton_ = new QPushButton(tr("Float64 Reference"), this);
  referenceButton_->setToolTip(
      tr("Run Lloyd in double precision from the same start and measure both runs against it"));
  auto* controls = new QHBoxLayout;
  controls->addWidget(back);
  controls->addWidget(slider_, 1);
  controls->addWidget(forward);
  controls->addWidget(position_);
  controls->addWidget(halfStepBox_);
  controls->addWidget(nearTieBox_);
  controls->addWidget(referenceButton_);

  chart_ = new QCustomPlot(this);
  chart_->setMinimumHeight(160);
  table_ = new QTableWidget(this);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->verticalHeader()->setVisible(false);
  auto* lower = new QSplitter(Qt::Horizontal, this);
  lower->addWidget(chart_);
  lower->addWidget(table_);
  lower->setStretchFactor(0, 1);
  lower->setStretchFactor(1, 1);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(findings_);
  layout->addLayout(sides, 3);
  layout->addLayout(controls);
  layout->addWidget(lower, 2);

  buildChart();
  fillTable();
  connect(slider_, &QSlider::valueChanged, this, [this](int t) {
    if (t != iteration_) showIteration(t);
  });
  connect(back, &QToolButton::clicked, this, [this] { step(-1); });
  connect(forward, &QToolButton::clicked, this, [this] { step(+1); });
  connect(halfStepBox_, &QCheckBox::toggled, this, &TraceWindow::setHalfSteps);
  connect(nearTieBox_, &QCheckBox::toggled, this, &TraceWindow::setNearTies);
  connect(referenceButton_, &QPushButton::clicked, this, &TraceWindow::computeReference);
  connect(table_, &QTableWidget::cellClicked, this,
          [this](int row, int) { slider_->setValue(row + 1); });
  connect(&reference_, &QFutureWatcherBase::finished, this, [this] {
    const auto reference = reference_.result();
    for (int t = 0; t < int(reference.size()); ++t) {
      referenceDistance_[0].push_back(largestDistance(
          trace_.centroids[std::size_t(t)], reference[std::size_t(t)], nullptr, dataset_->d));
      referenceDistance_[1].push_back(
          largestDistance(comparison_.runs.exactCentroids[std::size_t(t)],
                          reference[std::size_t(t)], nullptr, dataset_->d));
    }
    referenceButton_->setText(tr("Float64 Reference"));
    fillTable();
  });
  // The first iteration worth a look: where the runs part, else the start.
  const int first = comparison_.firstFlip > 0 ? comparison_.firstFlip : comparison_.firstDivergence;
  slider_->setValue(std::max(first, 0));
  if (iteration_ < 0) showIteration(slider_->value());
  resize(1400, 950);
}

TraceWindow::~TraceWindow() {
  reference_.waitForFinished();
}

std::vector<float> TraceWindow::matchedTrace(int t, bool identity) const {
  const int d = dataset_->d;
  const auto& c = trace_.centroids[std::size_t(t)];
  if (identity) return c;
  std::vector<float> out(c.size());
  for (int j = 0; j < trace_.k; ++j)
    std::copy_n(&c[std::size_t(j) * std::size_t(d)], d,
                &out[std::size_t(comparison_.matching[std::size_t(j)]) * std::size_t(d)]);
  return out;
}

void TraceWindow::step(int direction) {
  if (!halfSteps_) {
    showIteration(iteration_ + direction);
  } else if (direction > 0) {
    if (iteration_ == 0 || update_)
      showIteration(iteration_ + 1, false);
    else
      showIteration(iteration_, true);
  } else {
    if (update_)
      showIteration(iteration_, false);
    else
      showIteration(iteration_ - 1, iteration_ - 1 > 0);
  }
}

void TraceWindow::setHalfSteps(bool on) {
  halfSteps_ = on;
  if (halfStepBox_->isChecked() != on) halfStepBox_->setChecked(on);
  if (!on && update_) showIteration(iteration_);
}

session::FramePtr TraceWindow::frameFor(const std::vector<float>& centroids,
                                        const std::vector<std::int32_t>* labels,
                                        std::vector<std::uint32_t> ringed, int t,
                                        const std::vector<float>* movedFrom) const {
  auto frame = std::make_shared<session::Frame>();
  frame->dataset = shown_;
  frame->runId = 1;
  frame->iteration = t;
  frame->latestIteration = trace_.iterations();
  frame->n = shown_->n;
  frame->k = trace_.k;
  frame->d = shown_->d;
  frame->centroids = projected_ ? axes_.project(centroids) : centroids;
  if (labels) {
    frame->labels = *labels;
    if (movedFrom) {  // the update: centroids moved to the means, arrows from where they were
      frame->phase = session::StepPhase::Update;
      frame->movedFrom = projected_ ? axes_.project(*movedFrom) : *movedFrom;
    } else {  // labels of t beside the centroids they came from, the points asked for ringed
      frame->phase = session::StepPhase::Assign;
      frame->changedRows = std::move(ringed);
    }
  }
  return frame;
}

void TraceWindow::showIteration(int t, bool update) {
  t = std::clamp(t, 0, trace_.iterations());
  update = update && t > 0;
  iteration_ = t;
  update_ = update;
  if (slider_->value() != t) slider_->setValue(t);
  std::vector<QColor> colours;
  for (int j = 0; j < trace_.k; ++j)
    colours.push_back(categoricalColour(j));
  const auto& runs = comparison_.runs;
  if (t == 0) {
    traceView_->showFrame(frameFor(trace_.centroids[0], nullptr, {}, 0), colours);
    exactView_->showFrame(frameFor(runs.exactCentroids[0], nullptr, {}, 0), colours);
    traceStatus_->setText(tr("The start: %1 centroids").arg(trace_.k));
    exactStatus_->setText(tr("The same start"));
    ringed_ = 0;
  } else {
    const auto& it = comparison_.iterations[std::size_t(t) - 1];
    const auto& mine = runs.impliedLabels[std::size_t(t) - 1];
    const auto& theirs = runs.exactLabels[std::size_t(t) - 1];
    std::vector<std::uint32_t> rings;
    if (nearTies_) {
      rings =
          kms::app::nearTieRows(*dataset_, trace_.centroids[std::size_t(t) - 1], it.centroidsApart);
    } else {
      for (std::size_t i = 0; i < mine.size(); ++i)
        if (mine[i] != theirs[i]) rings.push_back(std::uint32_t(i));
    }
    ringed_ = rings.size();
    // The trace's clusters are drawn in the colours of the exact clusters they match.
    // Colours follow the labels' numbering: the trace's own while both runs were the same.
    const bool identity = runs.identityAt[std::size_t(t) - 1] != 0;
    const std::vector<float> traceBefore = matchedTrace(t - 1, identity);
    const auto& exactBefore = runs.exactCentroids[std::size_t(t) - 1];
    if (update) {
      const std::vector<float> traceAfter = matchedTrace(t, identity);
      traceView_->showFrame(frameFor(traceAfter, &mine, {}, t, &traceBefore), colours);
      exactView_->showFrame(
          frameFor(runs.exactCentroids[std::size_t(t)], &theirs, {}, t, &exactBefore), colours);
    } else {
      traceView_->showFrame(frameFor(traceBefore, &mine, rings, t), colours);
      exactView_->showFrame(frameFor(exactBefore, &theirs, {}, t), colours);
    }
    // How far each matched cluster's centroids are apart after iteration t (the same centroids
    // are compared as they are).
    const auto& exactAfter = runs.exactCentroids[std::size_t(t)];
    const std::vector<float> traceAfter =
        matchedTrace(t, trace_.centroids[std::size_t(t)] == exactAfter);
    std::vector<std::pair<double, int>> apart;
    const int d = dataset_->d;
    for (int j = 0; j < trace_.k; ++j) {
      double e = 0.0;
      for (int a = 0; a < d; ++a) {
        const double diff = double(traceAfter[std::size_t(j) * std::size_t(d) + std::size_t(a)]) -
                            double(exactAfter[std::size_t(j) * std::size_t(d) + std::size_t(a)]);
        e += diff * diff;
      }
      apart.emplace_back(std::sqrt(e), j);
    }
    std::sort(apart.begin(), apart.end(), std::greater<>());
    QStringList lines;
    for (std::size_t i = 0; i < apart.size() && i < 24; ++i)
      lines << tr("cluster %1: %2").arg(apart[i].second + 1).arg(apart[i].first, 0, 'g', 3);
    exactStatus_->setToolTip(tr("After iteration %1, how far each cluster's centroids are apart "
                                "(largest first):\n%2")
                                 .arg(t)
                                 .arg(lines.join(QLatin1Char('\n'))));
    const QString ringedWhat =
        nearTies_ ? tr("%1 near a tie (ringed)") : tr("%1 labels differ from exact (ringed)");
    traceStatus_->setText(tr("Update %1 (error %2 of a cluster's radius) · %3 · ARI %4")
                              .arg(QString::fromUtf8(kms::app::describe(it.update)))
                              .arg(it.updateError, 0, 'g', 3)
                              .arg(ringedWhat.arg(kms::app::groupedCount(ringed_)))
                              .arg(it.adjustedRand, 0, 'f', 4));
    exactStatus_->setText(
        tr("Inertia %1 (trace's centroids: %2) · centroids apart %3, most in cluster %4")
            .arg(it.exactInertia, 0, 'g', 8)
            .arg(it.impliedInertia, 0, 'g', 8)
            .arg(it.centroidDistance, 0, 'g', 3)
            .arg(apart.front().second + 1));
  }
  position_->setText(update ? tr("Iteration %1 of %2, update").arg(t).arg(trace_.iterations())
                            : tr("Iteration %1 of %2").arg(t).arg(trace_.iterations()));
  if (cursor_) {
    cursor_->point1->setCoords(t, 0);
    cursor_->point2->setCoords(t, 1);
    chart_->replot();
  }
  if (t >= 1) table_->selectRow(t - 1);
}

void TraceWindow::setNearTies(bool on) {
  nearTies_ = on;
  if (nearTieBox_->isChecked() != on) nearTieBox_->setChecked(on);
  showIteration(iteration_);
}

void TraceWindow::computeReference() {
  if (reference_.isRunning() || referenceReady()) return;
  referenceButton_->setText(tr("Computing…"));
  reference_.setFuture(
      QtConcurrent::run([data = dataset_, start = trace_.centroids[0], t = trace_.iterations()] {
        return referenceRun(*data, start, t);
      }));
}

void TraceWindow::buildChart() {
  const auto& its = comparison_.iterations;
  QVector<double> x, ari, flips;
  for (const auto& it : its) {
    x << it.iteration;
    ari << it.adjustedRand;
    flips << double(it.flipped);
  }
  chart_->legend->setVisible(true);
  chart_->xAxis->setLabel(tr("Iteration"));
  chart_->yAxis->setLabel(tr("Adjusted Rand index"));
  chart_->yAxis2->setVisible(true);
  chart_->yAxis2->setLabel(tr("Labels that differ"));
  QCPGraph* a = chart_->addGraph();
  a->setName(tr("ARI, trace against exact"));
  a->setData(x, ari);
  a->setPen(QPen(kExactColour, 2));
  QCPGraph* f = chart_->addGraph(chart_->xAxis, chart_->yAxis2);
  f->setName(tr("labels that differ"));
  f->setData(x, flips);
  f->setPen(QPen(kTraceColour, 2));
  chart_->xAxis->setRange(0, std::max(1, trace_.iterations()));
  const double lowest = ari.isEmpty() ? 0.0 : *std::min_element(ari.begin(), ari.end());
  chart_->yAxis->setRange(std::min(0.9, lowest - 0.02), 1.005);
  f->rescaleValueAxis();
  chart_->yAxis2->setRangeLower(0);
  if (chart_->yAxis2->range().upper < 1) chart_->yAxis2->setRangeUpper(1);
  // Marks: the first divergence and where each stopping rule would have stopped.
  const auto mark = [&](int t, const QString& label, Qt::PenStyle style) {
    if (t <= 0) return;
    auto* line = new QCPItemStraightLine(chart_);
    line->point1->setCoords(t, 0);
    line->point2->setCoords(t, 1);
    line->setPen(QPen(QColor(0x5f, 0x63, 0x68), 1, style));
    auto* text = new QCPItemText(chart_);
    text->position->setType(QCPItemPosition::ptPlotCoords);
    text->position->setCoords(t, chart_->yAxis->range().lower);
    text->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    text->setRotation(-90);
    text->setText(label);
    text->setColor(QColor(0x5f, 0x63, 0x68));
  };
  mark(comparison_.firstDivergence, tr("parts from exact"), Qt::SolidLine);
  // Rules that stop at the same iteration share one mark.
  std::map<int, QStringList> stops;
  for (const auto& [t, rule] : {std::pair{comparison_.stopByShift, tr("shift")},
                                std::pair{comparison_.stopByInertia, tr("inertia")},
                                std::pair{comparison_.stopByChanged, tr("changed")}})
    if (t > 0) stops[t] << rule;
  for (const auto& [t, rules] : stops)
    mark(t, tr("%1 rule stops").arg(rules.join(QStringLiteral(", "))), Qt::DashLine);
  cursor_ = new QCPItemStraightLine(chart_);  // the iteration shown
  cursor_->setPen(QPen(QColor(0x20, 0x22, 0x25, 110), 6));
  chart_->replot();
}

void TraceWindow::fillTable() {
  QStringList headers{tr("Iteration"),         tr("Update"),
                      tr("Update error"),      tr("Labels differ"),
                      tr("Of them near ties"), tr("Stored labels off"),
                      tr("Went back"),         tr("ARI"),
                      tr("Centroids apart"),   tr("Inertia (trace's)"),
                      tr("Inertia (exact)")};
  if (referenceReady()) headers << tr("Trace vs float64") << tr("Exact vs float64");
  const auto& its = comparison_.iterations;
  table_->clear();
  table_->setColumnCount(int(headers.size()));
  table_->setHorizontalHeaderLabels(headers);
  table_->setRowCount(int(its.size()));
  for (int r = 0; r < int(its.size()); ++r) {
    const auto& it = its[std::size_t(r)];
    QStringList cells{QString::number(it.iteration),
                      QString::fromUtf8(kms::app::describe(it.update)),
                      QString::number(it.updateError, 'g', 3),
                      kms::app::groupedCount(std::size_t(it.flipped)),
                      kms::app::groupedCount(std::size_t(it.flippedNearTies)),
                      it.storedLabelsWrong < 0
                          ? tr("not stored")
                          : kms::app::groupedCount(std::size_t(it.storedLabelsWrong)),
                      kms::app::groupedCount(std::size_t(it.oscillating)),
                      QString::number(it.adjustedRand, 'f', 5),
                      QString::number(it.centroidDistance, 'g', 3),
                      QString::number(it.impliedInertia, 'g', 10),
                      QString::number(it.exactInertia, 'g', 10)};
    if (referenceReady()) {
      cells << QString::number(referenceDistance_[0][std::size_t(it.iteration)], 'g', 3)
            << QString::number(referenceDistance_[1][std::size_t(it.iteration)], 'g', 3);
    }
    for (int c = 0; c < int(cells.size()); ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      item->setTextAlignment(c == 1 ? Qt::AlignLeft | Qt::AlignVCenter
                                    : Qt::AlignRight | Qt::AlignVCenter);
      if (it.iteration == comparison_.firstDivergence)
        item->setBackground(QColor(0xfd, 0xe2, 0xe1));
      table_->setItem(r, c, item);
    }
  }
  table_->resizeColumnsToContents();
  if (iteration_ >= 1) table_->selectRow(iteration_ - 1);
}

}  // namespace kms::ui
