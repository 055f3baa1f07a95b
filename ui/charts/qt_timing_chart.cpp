#include "charts/qt_timing_chart.h"

#include <QPainter>
#include <QVBoxLayout>
#include <QtCharts/QAreaSeries>
#include <QtCharts/QChart>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QLineSeries>
#include <QtCharts/QValueAxis>

#include <algorithm>
#include <cmath>

namespace kms::ui {
namespace {

const std::array<QColor, QtTimingChart::kStages> kStageColours = {
    QColor(0x4e79a7), QColor(0xf28e2b), QColor(0xb07aa1), QColor(0x59a14f), QColor(0xbab0ac)};

double median(std::vector<double> values) {
  const std::size_t mid = values.size() / 2;
  std::nth_element(values.begin(), values.begin() + std::ptrdiff_t(mid), values.end());
  return values[mid];
}

/// A "nice" step (1, 2 or 5 × 10^n) of at least `value`.
double niceStep(double value) {
  if (!(value > 0.0)) return 1.0;
  const double magnitude = std::pow(10.0, std::floor(std::log10(value)));
  for (const double step : {1.0, 2.0, 5.0, 10.0})
    if (step * magnitude >= value * 0.999) return step * magnitude;
  return 10.0 * magnitude;
}

/// Ticks every nice step from a multiple of it, so labels read 0, 10, 20 rather than 1, 14, 26.
/// `roundUp` extends the range to the next tick (value axes); iteration axes end at the data.
void setNiceTicks(QValueAxis* axis, double from, double to, int ticks, bool integers,
                  bool roundUp) {
  double step = niceStep((to - from) / ticks);
  if (integers) step = std::max(1.0, std::round(step));
  const double lo = std::floor(from / step) * step;
  const double hi = roundUp ? std::max(lo + step, std::ceil(to / step) * step) : to;
  axis->setRange(lo, hi);
  axis->setTickType(QValueAxis::TicksDynamic);
  axis->setTickAnchor(0.0);
  axis->setTickInterval(step);
}

}  // namespace

TimingChart* createTimingChart(QWidget* parent) {
  return new QtTimingChart(parent);
}

QtTimingChart::QtTimingChart(QWidget* parent)
    : TimingChart(parent),
      chart_(new QChart),
      view_(new QChartView(chart_, this)),
      median_(new QLineSeries(chart_)),
      axisX_(new QValueAxis(chart_)),
      axisY_(new QValueAxis(chart_)) {
  setObjectName(QStringLiteral("timingChart"));
  chart_->setTitle(tr("Time per iteration"));
  QFont titleFont = font();
  titleFont.setBold(true);
  chart_->setTitleFont(titleFont);
  chart_->setMargins(QMargins(4, 2, 4, 2));
  chart_->setBackgroundRoundness(0);
  chart_->legend()->setAlignment(Qt::AlignBottom);
  chart_->legend()->setFont(font());
  axisX_->setTitleText(tr("Iteration"));
  axisX_->setLabelFormat(QStringLiteral("%.0f"));
  axisY_->setTitleText(tr("ms"));
  axisY_->setLabelFormat(QStringLiteral("%.4g"));
  for (QValueAxis* axis : {axisX_, axisY_}) {
    axis->setTitleFont(font());
    axis->setLabelsFont(font());
    axis->setGridLineColor(QColor(0xe5, 0xe7, 0xeb));
  }
  chart_->addAxis(axisX_, Qt::AlignBottom);
  chart_->addAxis(axisY_, Qt::AlignLeft);
  const QString names[kStages] = {tr("Assign"), tr("Reduce"), tr("Communication"), tr("Update"),
                                  tr("Copy-out")};
  for (std::size_t s = 0; s < kStages; ++s) {
    upper_[s] = new QLineSeries(chart_);
    lower_[s] = new QLineSeries(chart_);
    areas_[s] = new QAreaSeries(upper_[s], lower_[s]);
    areas_[s]->setName(names[s]);
    QColor fill = kStageColours[s];
    fill.setAlpha(200);
    areas_[s]->setBrush(fill);
    areas_[s]->setPen(QPen(kStageColours[s].darker(120), 1.0));
    chart_->addSeries(areas_[s]);
    areas_[s]->attachAxis(axisX_);
    areas_[s]->attachAxis(axisY_);
  }
  median_->setName(tr("Running median (%1)").arg(kMedianWindow));
  median_->setPen(QPen(QColor(0xe1, 0x57, 0x59), 2.0, Qt::DashLine));
  chart_->addSeries(median_);
  median_->attachAxis(axisX_);
  median_->attachAxis(axisY_);

  view_->setRenderHint(QPainter::Antialiasing);
  view_->setMinimumSize(260, 180);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(view_);
  clear();
}

void QtTimingChart::clear() {
  rows_.clear();
  dirty_ = true;
  refresh();
}

void QtTimingChart::append(const std::vector<session::IterationRecord>& records) {
  std::vector<double> window;
  for (const auto& record : records) {
    const kms::StageTimings& ms = record.stats.ms;
    Row row;
    row.iteration = record.stats.iteration;
    row.stage = {ms.assign_ms, ms.reduce_ms, ms.communication_ms, ms.update_ms, ms.copy_ms};
    row.ranks = record.stats.rank_ms;
    rows_.push_back(row);
    // The median of the last kMedianWindow iterations, computed once per iteration.
    window.clear();
    const std::size_t first = rows_.size() > kMedianWindow ? rows_.size() - kMedianWindow : 0;
    for (std::size_t i = first; i < rows_.size(); ++i) {
      const auto& st = rows_[i].stage;
      double sum = 0.0;
      for (const double stage : st)
        sum += stage;
      window.push_back(sum);
    }
    rows_.back().median = median(window);
  }
  dirty_ = dirty_ || !records.empty();
}

void QtTimingChart::refresh() {
  if (!dirty_) return;
  dirty_ = false;
  // Bucket long runs into at most kMaxColumns columns (means per bucket).
  const std::size_t n = rows_.size();
  const std::size_t buckets = std::min(n, kMaxColumns);
  std::array<QList<QPointF>, kStages> upper, lower;
  bool communication = false;  // shown only for runs across several GPUs
  bool copy = false;           // shown only where snapshots are copied out (GPUs)
  QList<QPointF> medianPoints;
  // Ranks: each one's line, or the fastest and slowest when there are too many to tell apart.
  const std::size_t ranks = n ? rows_.back().ranks.size() : 0;
  const std::size_t rankLines = ranks <= kMaxRankLines ? ranks : 2;
  std::vector<QList<QPointF>> rankPoints(rankLines);
  double top = 0.0;
  for (std::size_t b = 0; b < buckets; ++b) {
    const std::size_t from = b * n / buckets, to = (b + 1) * n / buckets;
    Row mean;
    for (std::size_t i = from; i < to; ++i) {
      mean.iteration += rows_[i].iteration;
      mean.median += rows_[i].median;
      for (std::size_t s = 0; s < kStages; ++s)
        mean.stage[s] += rows_[i].stage[s];
      communication = communication || rows_[i].stage[kCommunication] > 0.0;
      copy = copy || rows_[i].stage[kStages - 1] > 0.0;
    }
    const double count = double(to - from);
    double base = 0.0;
    const double x = mean.iteration / count;
    for (std::size_t s = 0; s < kStages; ++s) {
      lower[s].append(QPointF(x, base));
      base += mean.stage[s] / count;
      upper[s].append(QPointF(x, base));
    }
    medianPoints.append(QPointF(x, mean.median / count));
    top = std::max(top, base);
    if (rankLines > 0) {
      std::vector<double> sums(ranks, 0.0);
      for (std::size_t i = from; i < to; ++i)
        for (std::size_t r = 0; r < ranks && r < rows_[i].ranks.size(); ++r)
          sums[r] += rows_[i].ranks[r];
      if (rankLines == ranks) {
        for (std::size_t r = 0; r < ranks; ++r)
          rankPoints[r].append(QPointF(x, sums[r] / count));
      } else {
        const auto [low, high] = std::minmax_element(sums.begin(), sums.end());
        rankPoints[0].append(QPointF(x, *low / count));
        rankPoints[1].append(QPointF(x, *high / count));
      }
      for (const double v : sums)
        top = std::max(top, v / count);
    }
  }
  ensureRankLines(rankLines, ranks);
  for (std::size_t r = 0; r < rankLines; ++r)
    ranks_[r]->replace(rankPoints[r]);
  for (std::size_t s = 0; s < kStages; ++s) {
    upper_[s]->replace(upper[s]);
    lower_[s]->replace(lower[s]);
  }
  areas_[kCommunication]->setVisible(communication);
  areas_[kStages - 1]->setVisible(copy);
  median_->replace(medianPoints);
  const double lastIteration = n ? rows_.back().iteration : 0.0;
  setNiceTicks(axisX_, 0.0, std::max(lastIteration, 5.0), 6, true, false);
  setNiceTicks(axisY_, 0.0, top > 0.0 ? top * 1.05 : 1.0, 4, false, true);
  chart_->setTitle(n ? tr("Time per iteration · median %1 ms").arg(rows_.back().median, 0, 'g', 3)
                     : tr("Time per iteration"));
}

void QtTimingChart::ensureRankLines(std::size_t lines, std::size_t ranks) {
  static const QColor kRankColours[kMaxRankLines] = {
      QColor(0x11, 0x18, 0x27), QColor(0x7c, 0x3a, 0xed), QColor(0x05, 0x96, 0x69),
      QColor(0xd9, 0x77, 0x06), QColor(0xdb, 0x27, 0x77), QColor(0x25, 0x63, 0xeb),
      QColor(0x65, 0xa3, 0x0d), QColor(0x6b, 0x72, 0x80)};
  while (ranks_.size() < lines) {
    auto* line = new QLineSeries(chart_);
    line->setPen(QPen(kRankColours[ranks_.size() % kMaxRankLines], 1.5));
    chart_->addSeries(line);
    line->attachAxis(axisX_);
    line->attachAxis(axisY_);
    ranks_.push_back(line);
  }
  for (std::size_t r = 0; r < ranks_.size(); ++r) {
    ranks_[r]->setVisible(r < lines);
    if (r >= lines) ranks_[r]->clear();
  }
  if (lines == ranks)
    for (std::size_t r = 0; r < lines; ++r)
      ranks_[r]->setName(tr("Rank %1").arg(r));
  else if (lines == 2) {
    ranks_[0]->setName(tr("Fastest rank (of %1)").arg(ranks));
    ranks_[1]->setName(tr("Slowest rank"));
  }
}

QImage QtTimingChart::toImage(const QSize& size) {
  refresh();
  const QSize old = view_->size();
  QImage image(size, QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::white);
  view_->resize(size);
  QPainter p(&image);
  p.setRenderHint(QPainter::Antialiasing);
  view_->render(&p);
  p.end();
  view_->resize(old);
  return image;
}

}  // namespace kms::ui
