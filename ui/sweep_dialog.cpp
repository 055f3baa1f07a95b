#include "sweep_dialog.h"

#include <qcustomplot.h>
#include <QDialogButtonBox>
#include <QFormLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>

#include "core/cluster_input.h"
#include "core/format.h"
#include "kmeans/backend.h"

namespace kms::ui {

SweepDialog::SweepDialog(kms::app::DatasetPtr dataset, const session::RunSettings& settings,
                         QWidget* parent)
    : QDialog(parent), dataset_(std::move(dataset)), settings_(settings) {
  setWindowTitle(tr("k Sweep — %1").arg(dataset_ ? dataset_->displayName : QString()));
  from_ = new QSpinBox(this);
  to_ = new QSpinBox(this);
  restarts_ = new QSpinBox(this);
  const int most = dataset_ ? int(std::min<std::size_t>(dataset_->n, kms::kMaxClusters)) : 1;
  from_->setRange(1, most);
  to_->setRange(1, most);
  restarts_->setRange(1, 64);
  restarts_->setToolTip(tr("Seeded starts per k; the lowest inertia is kept"));
  run_ = new QPushButton(tr("Run"), this);
  use_ = new QPushButton(tr("Use this k"), this);
  use_->setEnabled(false);
  progress_ = new QProgressBar(this);
  progress_->setRange(0, 1);
  progress_->setValue(0);
  summary_ = new QLabel(tr("Cluster the data for every k in the range and compare."), this);
  summary_->setWordWrap(true);
  plot_ = new QCustomPlot(this);
  plot_->setMinimumHeight(240);
  plot_->xAxis->setLabel(tr("k"));
  plot_->yAxis->setLabel(tr("Inertia"));
  plot_->yAxis->setScaleType(QCPAxis::stLogarithmic);
  plot_->yAxis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
  plot_->yAxis2->setVisible(true);
  plot_->yAxis2->setLabel(tr("Silhouette"));
  plot_->legend->setVisible(true);
  table_ = new QTableWidget(0, 5, this);
  table_->setHorizontalHeaderLabels({tr("k"), tr("Inertia"), tr("Silhouette ↑"),
                                     tr("Calinski–Harabasz ↑"), tr("Davies–Bouldin ↓")});
  table_->verticalHeader()->setVisible(false);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);

  auto* form = new QHBoxLayout;
  form->addWidget(new QLabel(tr("k from"), this));
  form->addWidget(from_);
  form->addWidget(new QLabel(tr("to"), this));
  form->addWidget(to_);
  form->addWidget(new QLabel(tr("best of"), this));
  form->addWidget(restarts_);
  form->addWidget(run_);
  form->addWidget(progress_, 1);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
  buttons->addButton(use_, QDialogButtonBox::AcceptRole);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(summary_);
  layout->addWidget(plot_, 2);
  layout->addWidget(table_, 1);
  layout->addWidget(buttons);
  resize(760, 640);

  connect(run_, &QPushButton::clicked, this, [this] { running() ? cancel() : start(); });
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto chooseSelected = [this] {
    const auto rows = table_->selectionModel()->selectedRows();
    if (rows.isEmpty()) return;
    emit kChosen(table_->item(rows.first().row(), 0)->text().toInt());
    accept();
  };
  connect(use_, &QPushButton::clicked, this, chooseSelected);
  connect(table_, &QTableWidget::cellDoubleClicked, this, chooseSelected);
  connect(table_, &QTableWidget::itemSelectionChanged, this,
          [this] { use_->setEnabled(!table_->selectionModel()->selectedRows().isEmpty()); });
  connect(&watcher_, &QFutureWatcher<kms::app::SweepResult>::finished, this, [this] {
    result_ = watcher_.result();
    run_->setText(tr("Run"));
    showResult();
    emit finished();
  });
  setRange(2, std::min(12, most), std::max(1, settings_.restarts));
}

SweepDialog::~SweepDialog() {
  cancel();
  watcher_.waitForFinished();  // at most the start in progress
}

void SweepDialog::setRange(int from, int to, int restarts) {
  from_->setValue(from);
  to_->setValue(to);
  restarts_->setValue(restarts);
}

void SweepDialog::cancel() {
  cancel_ = true;
}

void SweepDialog::start() {
  if (running() || !dataset_) return;
  const int from = from_->value(), to = std::max(from_->value(), to_->value());
  const int restarts = restarts_->value();
  cancel_ = false;
  error_.clear();
  progress_->setRange(0, (to - from + 1) * restarts);
  progress_->setValue(0);
  run_->setText(tr("Cancel"));
  summary_->setText(tr("Running k = %1 to %2, best of %3 each…").arg(from).arg(to).arg(restarts));
  watcher_.setFuture(QtConcurrent::run(
      [this, data = dataset_, settings = settings_, from, to, restarts]() -> kms::app::SweepResult {
        try {
          const auto input = kms::app::ClusteringInput::build(data, settings.clustering);
          kms::CreatedEngine created;
          try {
            created = kms::createEngine(settings.backend);
          } catch (const std::exception&) {
            created = kms::createEngine(kms::BackendKind::Cpu);  // the window says why elsewhere
          }
          created.engine->setData(input->view());
          kms::app::SweepOptions options;
          options.kFrom = from;
          options.kTo = std::min<int>(to, int(input->rows()));
          options.restarts = restarts;
          options.base = settings.config;
          options.base.init = settings.config.init == kms::InitMethod::Given
                                  ? kms::InitMethod::GreedyKMeansPlusPlus
                                  : settings.config.init;
          options.base.initial_centroids.clear();
          return kms::app::runSweep(*created.engine, input->view(), options, [this](int done, int) {
            QMetaObject::invokeMethod(
                progress_, [this, done] { progress_->setValue(done); }, Qt::QueuedConnection);
            return !cancel_.load();
          });
        } catch (const std::exception& e) {
          const QString message = QString::fromUtf8(e.what());
          QMetaObject::invokeMethod(
              this, [this, message] { error_ = message; }, Qt::QueuedConnection);
          return {};
        }
      }));
}

void SweepDialog::showResult() {
  const auto& rows = result_.rows;
  table_->setRowCount(int(rows.size()));
  QVector<double> k, inertia, silhouette;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const kms::app::SweepRow& r = rows[i];
    const QStringList cells = {QString::number(r.k), QString::number(r.inertia, 'g', 6),
                               QString::number(r.silhouette, 'f', 4),
                               QString::number(r.calinskiHarabasz, 'g', 5),
                               QString::number(r.daviesBouldin, 'f', 4)};
    for (int c = 0; c < cells.size(); ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      if (r.k == result_.elbowK) item->setBackground(QColor(0xfd, 0xf2, 0xd0));
      table_->setItem(int(i), c, item);
    }
    k.push_back(r.k);
    inertia.push_back(std::max(r.inertia, 1e-300));
    silhouette.push_back(r.silhouette);
  }
  plot_->clearGraphs();
  plot_->clearItems();
  QCPGraph* a = plot_->addGraph(plot_->xAxis, plot_->yAxis);
  a->setName(tr("Inertia"));
  a->setPen(QPen(QColor(0x2f, 0x6d, 0xb5), 2));
  a->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 6));
  a->setData(k, inertia);
  QCPGraph* s = plot_->addGraph(plot_->xAxis, plot_->yAxis2);
  s->setName(tr("Silhouette"));
  s->setPen(QPen(QColor(0xd9, 0x73, 0x06), 2, Qt::DashLine));
  s->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDiamond, 7));
  s->setData(k, silhouette);
  if (result_.elbowK > 0) {
    auto* line = new QCPItemStraightLine(plot_);
    line->point1->setCoords(result_.elbowK, 1);
    line->point2->setCoords(result_.elbowK, 2);
    line->setPen(QPen(QColor(0x6b, 0x72, 0x80), 1, Qt::DotLine));
    auto* label = new QCPItemText(plot_);
    label->position->setType(QCPItemPosition::ptPlotCoords);
    label->position->setAxes(plot_->xAxis, plot_->yAxis2);
    label->position->setCoords(result_.elbowK, 1.0);
    label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
    label->setText(tr(" elbow k = %1").arg(result_.elbowK));
  }
  plot_->rescaleAxes();
  plot_->xAxis->setRange(plot_->xAxis->range().lower - 0.5, plot_->xAxis->range().upper + 0.5);
  plot_->yAxis->setRange(plot_->yAxis->range().lower / 1.4, plot_->yAxis->range().upper * 1.4);
  plot_->yAxis2->setRange(-1.0, 1.0);
  plot_->replot();
  if (!error_.isEmpty()) {
    summary_->setText(tr("The sweep failed: %1").arg(error_));
    return;
  }
  QString text = result_.cancelled ? tr("Cancelled after %1 k. ").arg(rows.size()) : QString();
  if (result_.elbowK > 0)
    text += tr("Elbow at k = %1 (%2). ")
                .arg(result_.elbowK)
                .arg(QString::fromLatin1(kms::app::SweepResult::kElbowRule));
  const auto best = std::max_element(rows.begin(), rows.end(), [](const auto& x, const auto& y) {
    return x.silhouette < y.silhouette;
  });
  if (best != rows.end()) text += tr("Highest silhouette at k = %1. ").arg(best->k);
  text += result_.silhouetteSampled ? tr("Silhouette on a seeded sample of %1 points.")
                                          .arg(kms::app::groupedCount(result_.silhouetteRows))
                                    : tr("Silhouette exact over all %1 points.")
                                          .arg(kms::app::groupedCount(result_.silhouetteRows));
  summary_->setText(text + tr(" Double-click a row to use that k."));
}

}  // namespace kms::ui
