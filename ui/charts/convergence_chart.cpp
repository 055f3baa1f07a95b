#include "charts/convergence_chart.h"

#include <qcustomplot.h>
#include <QResizeEvent>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/format.h"

namespace kms::ui {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
const QColor kInertia(0x4e79a7), kChanged(0xf28e2b), kShift(0x59a14f), kPsnr(0xb07aa1);

/// Log axes cannot show 0: a zero becomes a gap (the legend and readout still give the value).
double positiveOrGap(double v) {
  return v > 0.0 ? v : kNaN;
}

/// Ticks for a log axis at 1, 2, 5 × 10ⁿ, thinned to 1, 3 × 10ⁿ, then to powers of ten (every
/// decade, every other, ...) until the labels fit the axis' height, so they are evenly spread
/// whether the range covers a factor of three or ten decades.
class NiceLogTicker : public QCPAxisTicker {
 public:
  explicit NiceLogTicker(QCPAxis* axis) : axis_(axis) {}

 protected:
  QVector<double> createTickVector(double tickStep, const QCPRange& range) override {
    if (!(range.lower > 0.0) || !(range.upper > range.lower)) return {};
    // A narrow range (less than a factor of ~5) has room for at most one 1-2-5 label: plain
    // evenly spaced ticks read better there.
    if (range.upper / range.lower < 5.0) {
      setTickCount(3);
      return QCPAxisTicker::createTickVector(tickStep, range);
    }
    const int fit = std::max(2, axis_->axisRect()->height() / 24);
    const int first = int(std::floor(std::log10(range.lower)));
    const int last = int(std::ceil(std::log10(range.upper)));
    const std::vector<std::vector<double>> sets = {{1, 2, 5}, {1, 3}, {1}};
    QVector<double> ticks;
    for (int every = 1;; every *= 2) {
      for (const auto& mantissas : sets) {
        if (every > 1 && mantissas.size() > 1) continue;
        ticks.clear();
        for (int e = first; e <= last; ++e) {
          if ((e - first) % every) continue;
          for (const double m : mantissas) {
            const double v = m * std::pow(10.0, e);
            if (v >= range.lower && v <= range.upper) ticks << v;
          }
        }
        if (ticks.size() <= fit) return ticks;
      }
      if (every > 64) return ticks;
    }
  }
  QVector<double> createSubTickVector(int, const QVector<double>&) override { return {}; }

 private:
  QCPAxis* axis_;
};

void styleLogAxis(QCPAxis* axis, const QString& label, const QColor& colour) {
  axis->setScaleType(QCPAxis::stLogarithmic);
  axis->setTicker(QSharedPointer<QCPAxisTicker>(new NiceLogTicker(axis)));
  axis->setNumberFormat(QStringLiteral("gb"));
  axis->setNumberPrecision(3);
  axis->setLabel(label);
  axis->setLabelColor(colour.darker(130));
  axis->setTickLabelColor(colour.darker(150));
  axis->setBasePen(QPen(colour.darker(130)));
  axis->setVisible(true);
}

QCPGraph* makeGraph(QCPAxis* key, QCPAxis* value, const QColor& colour, const QString& name) {
  QCPGraph* g = key->parentPlot()->addGraph(key, value);
  g->setName(name);
  g->setPen(QPen(colour, 2.0));
  g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, colour, 4));
  g->setAdaptiveSampling(true);
  return g;
}

}  // namespace

ConvergenceChart::ConvergenceChart(QWidget* parent)
    : QWidget(parent), plot_(new QCustomPlot(this)) {
  setObjectName(QStringLiteral("convergenceChart"));
  plot_->setMinimumSize(260, 180);
  plot_->plotLayout()->clear();
  // The dock already says "Convergence"; the title shows only in exported pictures.
  title_ =
      new QCPTextElement(plot_, QString(), QFont(font().family(), font().pointSize(), QFont::Bold));
  plot_->plotLayout()->addElement(0, 0, title_);
  top_ = new QCPAxisRect(plot_);
  bottom_ = new QCPAxisRect(plot_);
  plot_->plotLayout()->addElement(1, 0, top_);
  plot_->plotLayout()->addElement(2, 0, bottom_);
  plot_->plotLayout()->setRowStretchFactor(0, 0.01);
  auto* margins = new QCPMarginGroup(plot_);
  for (QCPAxisRect* rect : {top_, bottom_}) {
    rect->setMarginGroup(QCP::msLeft | QCP::msRight, margins);
    rect->axis(QCPAxis::atBottom)->grid()->setPen(QPen(QColor(0xe5, 0xe7, 0xeb)));
    rect->axis(QCPAxis::atLeft)->grid()->setPen(QPen(QColor(0xe5, 0xe7, 0xeb)));
    rect->axis(QCPAxis::atLeft)->grid()->setSubGridVisible(false);
  }
  top_->axis(QCPAxis::atBottom)->setTickLabels(false);
  iterationTicker_ = QSharedPointer<QCPAxisTickerFixed>(new QCPAxisTickerFixed);
  iterationTicker_->setScaleStrategy(QCPAxisTickerFixed::ssNone);
  for (QCPAxisRect* rect : {top_, bottom_})
    rect->axis(QCPAxis::atBottom)->setTicker(iterationTicker_);
  bottom_->axis(QCPAxis::atBottom)->setLabel(tr("Iteration"));
  top_->setMargins(QMargins(0, 0, 0, 0));
  styleLogAxis(top_->axis(QCPAxis::atLeft), tr("Inertia"), kInertia);
  styleLogAxis(bottom_->axis(QCPAxis::atLeft), tr("Changed"), kChanged);
  styleLogAxis(bottom_->axis(QCPAxis::atRight), tr("Max shift"), kShift);
  // The other edges are a plain frame; the margin group gives both panels the same width.
  for (QCPAxis* frame : {top_->axis(QCPAxis::atTop), bottom_->axis(QCPAxis::atTop)}) {
    frame->setVisible(true);
    frame->setTicks(false);
    frame->setTickLabels(false);
    frame->setBasePen(QPen(QColor(0xd1, 0xd5, 0xdb)));
  }
  connect(bottom_->axis(QCPAxis::atBottom), qOverload<const QCPRange&>(&QCPAxis::rangeChanged),
          top_->axis(QCPAxis::atBottom), qOverload<const QCPRange&>(&QCPAxis::setRange));

  inertia_ = makeGraph(top_->axis(QCPAxis::atBottom), top_->axis(QCPAxis::atLeft), kInertia,
                       tr("Inertia"));
  changed_ = makeGraph(bottom_->axis(QCPAxis::atBottom), bottom_->axis(QCPAxis::atLeft), kChanged,
                       tr("Points changed"));
  shift_ = makeGraph(bottom_->axis(QCPAxis::atBottom), bottom_->axis(QCPAxis::atRight), kShift,
                     tr("Largest centroid shift"));
  QCPAxis* psnrAxis = top_->axis(QCPAxis::atRight);
  psnrAxis->setVisible(true);
  psnrAxis->setLabel(tr("PSNR (dB)"));
  psnrAxis->setLabelColor(kPsnr.darker(130));
  psnrAxis->setTickLabelColor(kPsnr.darker(150));
  psnrAxis->setBasePen(QPen(kPsnr.darker(130)));
  psnrAxis->setNumberFormat(QStringLiteral("f"));
  psnrAxis->setNumberPrecision(1);
  psnr_ = makeGraph(top_->axis(QCPAxis::atBottom), psnrAxis, kPsnr, tr("PSNR"));
  psnr_->setPen(QPen(kPsnr, 1.5, Qt::DashLine));

  // One horizontal legend under both panels.
  auto* legend = new QCPLegend;
  legend_ = legend;
  plot_->plotLayout()->addElement(3, 0, legend);
  plot_->plotLayout()->setRowStretchFactor(3, 0.01);
  legend->setLayer(QStringLiteral("legend"));
  legend->setFillOrder(QCPLegend::foColumnsFirst);
  legend->setBorderPen(Qt::NoPen);
  legend->setBrush(Qt::NoBrush);
  legend->setFont(font());
  // Room on the right: the last entry's text can run a few pixels past its size hint (seen under
  // Xvfb), and the dock's frame would cut it.
  legend->setMargins(QMargins(0, 2, 12, 0));
  legend->setMinimumSize(0, 0);
  fillLegend(false);

  tracer_ = new QCPItemTracer(plot_);
  tracer_->setClipAxisRect(top_);
  tracer_->position->setAxes(top_->axis(QCPAxis::atBottom), top_->axis(QCPAxis::atLeft));
  tracer_->setStyle(QCPItemTracer::tsCircle);
  tracer_->setSize(9);
  tracer_->setPen(QPen(QColor(0x1f, 0x29, 0x37), 1.5));
  tracer_->setVisible(false);
  label_ = new QCPItemText(plot_);
  label_->setClipAxisRect(top_);
  label_->position->setType(QCPItemPosition::ptAxisRectRatio);
  label_->position->setAxisRect(top_);
  label_->position->setCoords(0.98, 0.04);
  label_->setPositionAlignment(Qt::AlignTop | Qt::AlignRight);
  label_->setTextAlignment(Qt::AlignLeft);
  label_->setPadding(QMargins(6, 4, 6, 4));
  label_->setBrush(QColor(255, 255, 255, 225));
  label_->setPen(QPen(QColor(0xd1, 0xd5, 0xdb)));
  label_->setVisible(false);
  connect(plot_, &QCustomPlot::mouseMove, this, &ConvergenceChart::onMouseMove);
  plot_->setMouseTracking(true);  // hover, not only drag, reads values
  plot_->setInteractions(QCP::Interactions());

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(plot_);
  clear();
}

void ConvergenceChart::clear() {
  stats_.clear();
  quality_.clear();
  for (QCPGraph* g : {inertia_, changed_, shift_, psnr_})
    g->data()->clear();
  tracer_->setVisible(false);
  tracer_->setGraph(nullptr);
  label_->setVisible(false);
  dirty_ = true;
  refresh();
}

void ConvergenceChart::append(const std::vector<session::IterationRecord>& records) {
  for (const auto& record : records) {
    const kms::IterationStats& s = record.stats;
    stats_.push_back(s);
    const double x = s.iteration;
    inertia_->addData(x, positiveOrGap(s.inertia));
    changed_->addData(x, positiveOrGap(double(s.changed)));
    shift_->addData(x, positiveOrGap(s.max_shift));
  }
  dirty_ = dirty_ || !records.empty();
}

void ConvergenceChart::addQuality(int iteration, const kms::app::Quality& quality) {
  if (!quality.valid() || iteration < 1 || quality_.count(iteration)) return;
  quality_[iteration] = quality;
  psnr_->addData(iteration, std::isfinite(quality.psnr) ? quality.psnr : kNaN);
  dirty_ = true;
}

void ConvergenceChart::rescale() {
  const double last = stats_.empty() ? 0.0 : stats_.back().iteration;
  QCPAxis* iterations = bottom_->axis(QCPAxis::atBottom);
  iterations->setRange(0.5, std::max(last, 5.0) + 0.5);
  // Whole iterations only, every 1, 2, 5, 10, 20, ... so about six labels show.
  const double raw = std::max(1.0, std::max(last, 5.0) / 6.0);
  const double magnitude = std::pow(10.0, std::floor(std::log10(raw)));
  double step = 10.0 * magnitude;
  for (const double m : {1.0, 2.0, 5.0})
    if (m * magnitude >= raw) {
      step = m * magnitude;
      break;
    }
  iterationTicker_->setTickStep(step);
  auto fit = [](QCPGraph* g, QCPAxis* axis, double fallbackHi) {
    bool found = false;
    QCPRange r = g->data()->valueRange(found, QCP::sdPositive);
    if (!found) r = QCPRange(1.0, fallbackHi);
    // Pad by a fraction of a decade so points do not sit on the frame.
    axis->setRange(r.lower / 1.6, r.upper * 1.6);
  };
  fit(inertia_, top_->axis(QCPAxis::atLeft), 10.0);
  // PSNR only exists for pictures: its axis and legend entry show only then.
  const bool pictures = !quality_.empty();
  QCPAxis* psnrAxis = top_->axis(QCPAxis::atRight);
  psnrAxis->setTicks(pictures);
  psnrAxis->setTickLabels(pictures);
  psnrAxis->setLabel(pictures ? tr("PSNR (dB)") : QString());
  psnrAxis->setBasePen(pictures ? QPen(kPsnr.darker(130)) : QPen(QColor(0xd1, 0xd5, 0xdb)));
  psnr_->setVisible(pictures);
  if (pictures != (legend_->itemWithPlottable(psnr_) != nullptr)) fillLegend(pictures);
  if (pictures) {
    bool found = false;
    const QCPRange r = psnr_->data()->valueRange(found);
    if (found) psnrAxis->setRange(r.lower - 0.5, r.upper + 0.5);
  }
  fit(changed_, bottom_->axis(QCPAxis::atLeft), 10.0);
  fit(shift_, bottom_->axis(QCPAxis::atRight), 1.0);
}

void ConvergenceChart::refresh() {
  if (!dirty_) return;
  dirty_ = false;
  rescale();
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

QString ConvergenceChart::readout(double key) const {
  if (stats_.empty()) return {};
  const auto it =
      std::min_element(stats_.begin(), stats_.end(), [key](const auto& a, const auto& b) {
        return std::abs(a.iteration - key) < std::abs(b.iteration - key);
      });
  QString text = tr("Iteration %1\nInertia %2\nChanged %3\nMax shift %4")
                     .arg(it->iteration)
                     .arg(it->inertia, 0, 'g', 6)
                     .arg(kms::app::groupedCount(it->changed))
                     .arg(it->max_shift, 0, 'g', 4);
  if (const auto q = quality_.find(it->iteration); q != quality_.end())
    text += tr("\nPSNR %1 dB\nMean ΔE2000 %2%3")
                .arg(q->second.psnr, 0, 'f', 2)
                .arg(q->second.deltaE, 0, 'f', 2)
                .arg(q->second.deltaEExact ? QString() : tr(" (sampled)"));
  return text;
}

QString ConvergenceChart::hoverText() const {
  return label_->visible() ? label_->text() : QString();
}

void ConvergenceChart::onMouseMove(QMouseEvent* event) {
  const bool inside = top_->rect().contains(event->pos()) || bottom_->rect().contains(event->pos());
  if (stats_.empty() || !inside) {
    if (tracer_->visible()) {
      tracer_->setVisible(false);
      tracer_->setGraph(nullptr);
      label_->setVisible(false);
      plot_->replot(QCustomPlot::rpQueuedReplot);
    }
    return;
  }
  const double key = bottom_->axis(QCPAxis::atBottom)->pixelToCoord(event->pos().x());
  tracer_->setGraph(inertia_);
  tracer_->setGraphKey(std::round(key));
  tracer_->setVisible(true);
  label_->setText(readout(key));
  label_->setVisible(true);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

QImage ConvergenceChart::toImage(const QSize& size) {
  refresh();
  title_->setText(tr("Convergence"));
  fitLegend(size.width());
  const QImage image = plot_->toPixmap(size.width(), size.height()).toImage();
  title_->setText(QString());
  fitLegend(plot_->width());
  plot_->replot(QCustomPlot::rpQueuedReplot);
  return image;
}

void ConvergenceChart::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  // The plot fills this widget and has replotted at its new size already; once more only when
  // its legend took another shape.
  if (fitLegend(event->size().width())) plot_->replot(QCustomPlot::rpQueuedReplot);
}

void ConvergenceChart::fillLegend(bool pictures) {
  // Entries for the graphs shown, in the panels' order (a hidden entry would still take its
  // place in a wrapped grid).
  legend_->clearItems();
  for (QCPGraph* g : {inertia_, psnr_, changed_, shift_})
    if (g != psnr_ || pictures) legend_->addItem(new QCPPlottableLegendItem(legend_, g));
  fitLegend(plot_->width());
}

bool ConvergenceChart::fitLegend(int width) {
  // As many entries a row as fit `width` (all, two or one: a docked chart is often narrower
  // than the 500 pixels a single row takes, which would run past its edge). The entries' size
  // hints fall a little short of what their text takes when drawn (seen under Xvfb), hence a
  // quarter more. A wrapped grid has empty cells, where item() gives null.
  std::vector<int> widths;
  for (int i = 0; i < legend_->itemCount(); ++i)
    if (const QCPAbstractLegendItem* item = legend_->item(i))
      widths.push_back(item->minimumOuterSizeHint().width());
  const int count = static_cast<int>(widths.size());
  const auto rowWidth = [&](int per_row) {
    int total = 0;
    for (int column = 0; column < per_row; ++column) {
      int widest = 0;
      for (int i = column; i < count; i += per_row)
        widest = std::max(widest, widths[static_cast<std::size_t>(i)]);
      total += widest + (column > 0 ? legend_->columnSpacing() : 0);
    }
    return total * 5 / 4 + legend_->margins().left() + legend_->margins().right();
  };
  int per_row = count;
  while (per_row > 1 && rowWidth(per_row) > width)
    per_row = per_row > 2 ? 2 : 1;
  const int wrap = per_row < count ? per_row : 0;
  if (wrap == legend_->wrap()) return false;  // new entries were placed by the current wrap
  legend_->setWrap(wrap);
  legend_->setFillOrder(QCPLegend::foColumnsFirst, true);  // rearranges the entries
  return true;
}

}  // namespace kms::ui
