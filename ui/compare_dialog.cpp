#include "compare_dialog.h"

#include <qcustomplot.h>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "core/format.h"
#include "session/session_controller.h"
#include "views/cluster_colours.h"
#include "views/scatter_view.h"
#include "views/step_phase_text.h"

namespace kms::ui {
namespace {

const QColor kSideColours[2] = {QColor(0x2f, 0x6d, 0xb5), QColor(0xd9, 0x73, 0x06)};

}  // namespace

CompareDialog::CompareDialog(kms::app::DatasetPtr dataset, const session::RunSettings& settings,
                             QWidget* parent)
    : QDialog(parent), dataset_(std::move(dataset)), settings_(settings) {
  setWindowTitle(tr("Compare Initialisations — %1").arg(dataset_->displayName));
  settings_.restarts = 1;
  if (settings_.config.init == kms::InitMethod::Given)
    settings_.config.init = kms::InitMethod::GreedyKMeansPlusPlus;
  chart_ = new QCustomPlot(this);
  chart_->setMinimumHeight(170);
  chart_->xAxis->setLabel(tr("Iteration"));
  auto ticker = QSharedPointer<QCPAxisTickerFixed>(new QCPAxisTickerFixed);
  ticker->setTickStep(1.0);  // whole iterations
  ticker->setScaleStrategy(QCPAxisTickerFixed::ssMultiples);
  chart_->xAxis->setTicker(ticker);
  chart_->yAxis->setLabel(tr("Inertia"));
  chart_->yAxis->setScaleType(QCPAxis::stLogarithmic);
  chart_->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
  chart_->legend->setVisible(true);

  auto* views = new QHBoxLayout;
  for (int s = 0; s < 2; ++s) {
    Side& side = sides_[std::size_t(s)];
    side.session = std::make_unique<session::SessionController>();
    side.view = new ScatterView(ScatterView::Projection::Axes, this);
    side.view->setDataset(dataset_);
    side.view->setDimensions(0, std::min(1, dataset_->d - 1));
    side.init = new QComboBox(this);
    side.init->addItem(tr("Greedy k-means++"), int(kms::InitMethod::GreedyKMeansPlusPlus));
    side.init->addItem(tr("k-means++"), int(kms::InitMethod::KMeansPlusPlus));
    side.init->addItem(tr("k-means|| (many points)"), int(kms::InitMethod::KMeansParallel));
    side.init->addItem(tr("Random points"), int(kms::InitMethod::Random));
    side.seed = new QSpinBox(this);
    side.seed->setRange(0, 999999999);
    side.status = new QLabel(this);
    const kms::InitMethod init = s == 0 ? settings_.config.init : kms::InitMethod::Random;
    side.init->setCurrentIndex(std::max(0, side.init->findData(int(init))));
    side.seed->setValue(int(settings_.config.seed) + s);
    auto* row = new QHBoxLayout;
    auto* name = new QLabel(s == 0 ? tr("<b>A</b>") : tr("<b>B</b>"), this);
    name->setStyleSheet(QStringLiteral("color: %1;").arg(kSideColours[s].name()));
    row->addWidget(name);
    row->addWidget(side.init, 1);
    row->addWidget(new QLabel(tr("seed"), this));
    row->addWidget(side.seed);
    auto* column = new QVBoxLayout;
    column->addLayout(row);
    column->addWidget(side.view, 1);
    column->addWidget(side.status);
    views->addLayout(column, 1);
    QCPGraph* graph = chart_->addGraph();
    graph->setName(s == 0 ? tr("A") : tr("B"));
    graph->setPen(QPen(kSideColours[s], 2));
    graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
    connect(side.session.get(), &session::SessionController::deliveryPending, this,
            [this, s] { drain(s); });
    connect(side.init, &QComboBox::activated, this, [this, s] { apply(s); });
    connect(side.seed, &QSpinBox::editingFinished, this, [this, s] { apply(s); });
  }
  // Linked views: zooming or panning one moves the other.
  for (int s = 0; s < 2; ++s) {
    QCustomPlot* from = sides_[std::size_t(s)].view->plot();
    QCustomPlot* to = sides_[std::size_t(1 - s)].view->plot();
    auto follow = [this, from, to] {
      if (linking_) return;
      linking_ = true;
      to->xAxis->setRange(from->xAxis->range());
      to->yAxis->setRange(from->yAxis->range());
      to->replot(QCustomPlot::rpQueuedReplot);
      linking_ = false;
    };
    connect(from->xAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, follow);
    connect(from->yAxis, qOverload<const QCPRange&>(&QCPAxis::rangeChanged), this, follow);
  }

  auto* buttons = new QHBoxLayout;
  const std::pair<QString, void (CompareDialog::*)()> actions[] = {
      {tr("Reset"), &CompareDialog::reset},
      {tr("◀ Back"), &CompareDialog::stepBack},
      {tr("Step ▶"), &CompareDialog::stepHalf},
      {tr("Whole iteration ▶▶"), &CompareDialog::stepWhole},
      {tr("Play both"), &CompareDialog::play}};
  for (const auto& [text, slot] : actions) {
    auto* button = new QPushButton(text, this);
    connect(button, &QPushButton::clicked, this, slot);
    buttons->addWidget(button);
  }
  buttons->addStretch(1);
  auto* close = new QDialogButtonBox(QDialogButtonBox::Close, this);
  connect(close, &QDialogButtonBox::rejected, this, &QDialog::reject);
  buttons->addWidget(close);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(views, 3);
  layout->addWidget(chart_, 1);
  layout->addLayout(buttons);
  resize(1200, 760);
  for (int s = 0; s < 2; ++s) {
    apply(s);
    sides_[std::size_t(s)].session->setDataset(dataset_);
  }
}

CompareDialog::~CompareDialog() {
  for (Side& side : sides_)
    side.session->shutdown();
}

void CompareDialog::setSide(int side, kms::InitMethod init, std::uint64_t seed) {
  Side& s = sides_[std::size_t(side)];
  s.init->setCurrentIndex(std::max(0, s.init->findData(int(init))));
  s.seed->setValue(int(seed));
  apply(side);
}

void CompareDialog::apply(int side) {
  Side& s = sides_[std::size_t(side)];
  session::RunSettings settings = settings_;
  settings.config.init = kms::InitMethod(s.init->currentData().toInt());
  settings.config.seed = std::uint64_t(s.seed->value());
  s.session->setSettings(settings);
}

void CompareDialog::both(void (session::SessionController::*command)()) {
  for (Side& s : sides_)
    (s.session.get()->*command)();
}

void CompareDialog::stepHalf() {
  both(&session::SessionController::stepHalf);
}

void CompareDialog::stepWhole() {
  both(&session::SessionController::step);
}

void CompareDialog::stepBack() {
  both(&session::SessionController::stepBack);
}

void CompareDialog::play() {
  both(&session::SessionController::play);
}

void CompareDialog::reset() {
  both(&session::SessionController::reset);
}

int CompareDialog::curvePoints(int side) const {
  return chart_->graph(side)->dataCount();
}

void CompareDialog::drain(int side) {
  Side& s = sides_[std::size_t(side)];
  session::FrameMailbox::Delivery d = s.session->mailbox().take();
  QCPGraph* graph = chart_->graph(side);
  for (const auto& record : d.records) {
    if (record.runId != s.runId) {  // a new run: its curve starts again
      s.runId = record.runId;
      graph->data()->clear();
    }
    graph->addData(record.stats.iteration, std::max(record.stats.inertia, 1e-300));
  }
  if (d.frame) {
    if (d.frame->runId != s.runId && d.frame->iteration == 0) {
      s.runId = d.frame->runId;
      graph->data()->clear();
    }
    s.frame = d.frame;
    s.view->showFrame(d.frame, clusterColours(*d.frame, false));
    QString text = stepPhaseTitle(*d.frame);
    if (d.frame->iteration > 0) text += tr(" · inertia %1").arg(d.frame->stats.inertia, 0, 'g', 6);
    s.status->setText(text);
  }
  if (!d.records.empty()) {
    chart_->rescaleAxes();
    chart_->xAxis->setRange(chart_->xAxis->range().lower - 0.5, chart_->xAxis->range().upper + 0.5);
    chart_->yAxis->setRange(chart_->yAxis->range().lower / 1.2, chart_->yAxis->range().upper * 1.2);
    chart_->replot(QCustomPlot::rpQueuedReplot);
  }
}

}  // namespace kms::ui
