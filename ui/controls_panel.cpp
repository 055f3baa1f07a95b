#include "controls_panel.h"

#include <QAction>
#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QSlider>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>

#include "kmeans/backend.h"
#include "studio_actions.h"
#include "widgets/scientific_spin_box.h"

namespace kms::ui {
namespace {

QToolButton* actionButton(QAction* action, QWidget* parent) {
  auto* button = new QToolButton(parent);
  button->setDefaultAction(action);
  button->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  button->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  return button;
}

}  // namespace

ControlsPanel::ControlsPanel(const StudioActions& actions, QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("controlsPanel"));
  debounce_.setSingleShot(true);
  debounce_.setInterval(300);
  connect(&debounce_, &QTimer::timeout, this, [this] { emit settingsEdited(settings()); });

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(8, 8, 8, 8);
  layout->setSpacing(10);
  layout->addWidget(buildDataGroup(actions));
  layout->addWidget(buildParameterGroup());
  layout->addWidget(buildRunGroup(actions));
  auto* keys = new QLabel(
      tr("<small>Space play · → half-step · Shift+→ whole · ← back · R reset</small>"), this);
  keys->setAlignment(Qt::AlignCenter);
  keys->setWordWrap(true);
  keys->setStyleSheet(QStringLiteral("color: palette(mid);"));
  layout->addWidget(keys);
  layout->addStretch(1);
  // For the classroom: what one Step does, in two sentences.
  auto* how = new QLabel(
      tr("<b>How k-means works</b><br>Each iteration <b>assigns</b> every point to its nearest "
         "centroid, then <b>moves</b> each centroid to the mean of its points. It stops when "
         "(almost) no point changes cluster or the iteration limit is reached."),
      this);
  how->setObjectName(QStringLiteral("howItWorks"));
  how->setWordWrap(true);
  how->setStyleSheet(QStringLiteral(
      "QLabel#howItWorks { color: #4b5563; background: #f3f4f6; border: 1px solid #e5e7eb;"
      " border-radius: 4px; padding: 8px; }"));
  layout->addWidget(how);
}

QWidget* ControlsPanel::buildDataGroup(const StudioActions& actions) {
  auto* group = new QGroupBox(tr("Data"), this);
  dataName_ = new QLabel(tr("Nothing loaded"), group);
  dataName_->setObjectName(QStringLiteral("dataName"));
  QFont bold = dataName_->font();
  bold.setBold(true);
  dataName_->setFont(bold);
  dataName_->setWordWrap(true);
  dataDetails_ = new QLabel(tr("Open a file, pick a sample or generate points."), group);
  dataDetails_->setWordWrap(true);
  auto* samples = new QToolButton(group);
  samples->setText(tr("Samples"));
  samples->setIcon(actions.samplesMenu->icon());
  samples->setMenu(actions.samplesMenu);
  samples->setPopupMode(QToolButton::InstantPopup);
  samples->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  samples->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  samples->setToolTip(tr("A photo, 2-D blobs or a 3-D cloud"));
  auto* buttons = new QHBoxLayout;
  buttons->setSpacing(4);
  buttons->addWidget(actionButton(actions.open, group));
  buttons->addWidget(samples);
  buttons->addWidget(actionButton(actions.generate, group));
  auto* layout = new QVBoxLayout(group);
  layout->addWidget(dataName_);
  layout->addWidget(dataDetails_);
  layout->addLayout(buttons);
  return group;
}

QWidget* ControlsPanel::buildParameterGroup() {
  auto* group = new QGroupBox(tr("Clustering"), this);
  auto* form = new QFormLayout(group);
  form->setLabelAlignment(Qt::AlignRight);
  form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);

  k_ = new QSpinBox(group);
  k_->setObjectName(QStringLiteral("kSpin"));
  k_->setRange(1, 256);
  k_->setToolTip(tr("Number of clusters (colours of the palette for a picture)"));
  init_ = new QComboBox(group);
  init_->addItem(tr("Greedy k-means++"), int(kms::InitMethod::GreedyKMeansPlusPlus));
  init_->addItem(tr("k-means++"), int(kms::InitMethod::KMeansPlusPlus));
  init_->addItem(tr("k-means|| (many points)"), int(kms::InitMethod::KMeansParallel));
  init_->addItem(tr("Random points"), int(kms::InitMethod::Random));
  init_->setToolTip(
      tr("k-means++ spreads the first centroids out (D² sampling); greedy k-means++ draws a few "
         "candidates for each and keeps the best (slower start, better result); k-means|| "
         "samples about 2k points in each of 5 rounds and reduces them to k (for millions of "
         "points: 6 passes instead of k); random picks k distinct points"));
  seed_ = new QSpinBox(group);
  seed_->setRange(0, 999999999);
  seed_->setToolTip(tr("Same data, settings and seed give exactly the same run"));
  maxIterations_ = new QSpinBox(group);
  maxIterations_->setRange(1, 1000000);
  maxIterations_->setToolTip(tr("Stop after this many iterations even if not converged"));
  tolerance_ = new ScientificSpinBox(group);
  tolerance_->setToolTip(
      tr("Converged when the fraction of points changing cluster, or the "
         "largest centroid shift relative to the data's extent, drops below this"));
  backend_ = new QComboBox(group);
  backend_->setObjectName(QStringLiteral("backendCombo"));
  backend_->addItem(tr("Auto"), int(kms::BackendKind::Auto));
  backend_->addItem(tr("CUDA (GPU)"), int(kms::BackendKind::Cuda));
  backend_->addItem(tr("CPU"), int(kms::BackendKind::Cpu));

  backend_->setToolTip(tr("Auto uses the GPU when one answers, else the CPU"));
  colourSpace_ = new QComboBox(group);
  colourSpace_->setObjectName(QStringLiteral("colourSpaceCombo"));
  colourSpace_->addItem(tr("sRGB"), int(kms::app::ColourSpace::SRGB));
  colourSpace_->addItem(tr("Linear RGB"), int(kms::app::ColourSpace::LinearRGB));
  colourSpace_->addItem(tr("CIELAB"), int(kms::app::ColourSpace::CIELab));
  colourSpace_->addItem(tr("Oklab"), int(kms::app::ColourSpace::Oklab));
  colourSpace_->setToolTip(
      tr("Where a picture's colours are clustered (and dithered); the palette is shown and "
         "saved in sRGB. CIELAB and Oklab measure differences closer to how we see them."));
  rows_ = new QComboBox(group);
  rows_->setObjectName(QStringLiteral("rowsCombo"));
  rows_->addItem(tr("Distinct values"), int(kms::app::Compaction::Auto));
  rows_->addItem(tr("Every pixel / point"), int(kms::app::Compaction::Never));
  rows_->addItem(tr("Merge repeated points"), int(kms::app::Compaction::Always));
  rows_->setItemData(0,
                     tr("A picture's distinct colours, each counted as often as it occurs: the "
                        "same result as clustering every pixel, much faster"),
                     Qt::ToolTipRole);
  rows_->setItemData(1, tr("Every pixel on its own, the way k-means is usually taught"),
                     Qt::ToolTipRole);
  rows_->setItemData(2, tr("Point sets too: repeated points become one with a count (exact)"),
                     Qt::ToolTipRole);
  rows_->setToolTip(tr("What the engine clusters; the result is the same either way"));
  restarts_ = new QSpinBox(group);
  restarts_->setObjectName(QStringLiteral("restartsSpin"));
  restarts_->setRange(1, 1000);  // a GPU runs hundreds in well under a second
  restarts_->setSuffix(tr(" start"));
  connect(restarts_, &QSpinBox::valueChanged, this,
          [this](int n) { restarts_->setSuffix(n == 1 ? tr(" start") : tr(" starts")); });
  restarts_->setToolTip(
      tr("Run this many starts (seeds seed, seed + 1, …) and keep the one with the lowest "
         "inertia; the first is animated, the others run flat out (several at once on a "
         "GPU)"));

  form->addRow(tr("Clusters k"), k_);
  form->addRow(tr("Initialisation"), init_);
  form->addRow(tr("Seed"), seed_);
  form->addRow(tr("Best of"), restarts_);
  form->addRow(tr("Max iterations"), maxIterations_);
  form->addRow(tr("Tolerance"), tolerance_);
  form->addRow(tr("Colour space"), colourSpace_);
  form->addRow(tr("Cluster"), rows_);
  form->addRow(tr("Backend"), backend_);

  setSettings({});
  connect(k_, &QSpinBox::valueChanged, this, &ControlsPanel::scheduleEdit);
  connect(seed_, &QSpinBox::valueChanged, this, &ControlsPanel::scheduleEdit);
  connect(maxIterations_, &QSpinBox::valueChanged, this, &ControlsPanel::scheduleEdit);
  connect(tolerance_, &QDoubleSpinBox::valueChanged, this, &ControlsPanel::scheduleEdit);
  connect(init_, &QComboBox::currentIndexChanged, this, [this] {
    k_->setEnabled(kms::InitMethod(init_->currentData().toInt()) != kms::InitMethod::Given);
    scheduleEdit();
  });
  connect(backend_, &QComboBox::currentIndexChanged, this, [this] {
    if (!updating_) wantedBackend_ = kms::BackendKind(backend_->currentData().toInt());
    scheduleEdit();
  });
  connect(colourSpace_, &QComboBox::currentIndexChanged, this, &ControlsPanel::scheduleEdit);
  connect(rows_, &QComboBox::currentIndexChanged, this, &ControlsPanel::scheduleEdit);
  connect(restarts_, &QSpinBox::valueChanged, this, &ControlsPanel::scheduleEdit);
  return group;
}

QWidget* ControlsPanel::buildRunGroup(const StudioActions& actions) {
  auto* group = new QGroupBox(tr("Run"), this);
  auto* buttons = new QHBoxLayout;
  buttons->setSpacing(4);
  buttons->addWidget(actionButton(actions.playPause, group));
  buttons->addWidget(actionButton(actions.stepBack, group));
  buttons->addWidget(actionButton(actions.step, group));
  buttons->addWidget(actionButton(actions.reset, group));
  speed_ = new QSlider(Qt::Horizontal, group);
  speed_->setObjectName(QStringLiteral("speedSlider"));
  speed_->setRange(0, kFlatOut);
  speed_->setValue(kFlatOut);
  speed_->setPageStep(5);
  speed_->setFocusPolicy(Qt::NoFocus);  // arrow keys belong to Step
  speed_->setToolTip(tr("Iterations per second; all the way right runs flat out"));
  speedLabel_ = new QLabel(group);
  speedLabel_->setMinimumWidth(64);
  speedLabel_->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
  connect(speed_, &QSlider::valueChanged, this, [this] {
    updateSpeedLabel();
    if (!updating_) emit paceChanged(pace());
  });
  auto* speedRow = new QHBoxLayout;
  speedRow->addWidget(new QLabel(tr("Speed"), group));
  speedRow->addWidget(speed_, 1);
  speedRow->addWidget(speedLabel_);
  start_ = new QComboBox(group);
  start_->setObjectName(QStringLiteral("startCombo"));
  start_->setToolTip(tr("Show the result of any start of a best-of-N run"));
  startLabel_ = new QLabel(tr("Show"), group);
  connect(start_, &QComboBox::activated, this, [this](int index) {
    if (!updating_) emit startChosen(start_->itemData(index).toInt());
  });
  timeline_ = new QSlider(Qt::Horizontal, group);
  timeline_->setObjectName(QStringLiteral("timelineSlider"));
  timeline_->setRange(0, 0);
  timeline_->setFocusPolicy(Qt::NoFocus);  // arrow keys belong to Step
  timeline_->setToolTip(tr("Show any iteration of the run again (← and → step through it)"));
  timelineLabel_ = new QLabel(group);
  timelineLabel_->setMinimumWidth(64);
  timelineLabel_->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
  timelineDebounce_.setSingleShot(true);
  timelineDebounce_.setInterval(30);
  connect(&timelineDebounce_, &QTimer::timeout, this,
          [this] { emit iterationChosen(timeline_->value()); });
  connect(timeline_, &QSlider::valueChanged, this, [this](int value) {
    timelineLabel_->setText(tr("%1 / %2").arg(value).arg(timeline_->maximum()));
    if (!updating_ && !timelineDebounce_.isActive()) timelineDebounce_.start();
  });
  auto* timelineRow = new QHBoxLayout;
  timelineRow->addWidget(new QLabel(tr("Iteration"), group));
  timelineRow->addWidget(timeline_, 1);
  timelineRow->addWidget(timelineLabel_);
  timelineMarks_ = new QLabel(group);
  timelineMarks_->setObjectName(QStringLiteral("timelineMarks"));
  timelineMarks_->setWordWrap(true);
  timelineMarks_->setStyleSheet(QStringLiteral("color: #9a3412;"));
  timelineMarks_->setVisible(false);
  auto* startRow = new QHBoxLayout;
  startRow->addWidget(startLabel_);
  startRow->addWidget(start_, 1);
  start_->setVisible(false);
  startLabel_->setVisible(false);
  auto* layout = new QVBoxLayout(group);
  layout->addLayout(buttons);
  layout->addLayout(speedRow);
  layout->addLayout(timelineRow);
  layout->addWidget(timelineMarks_);
  layout->addLayout(startRow);
  updateSpeedLabel();
  return group;
}

double ControlsPanel::paceForPosition(int position) {
  if (position >= kFlatOut) return 0.0;
  return 0.25 * std::pow(10.0, position / 10.0);
}

int ControlsPanel::positionForPace(double pace) {
  if (pace <= 0.0) return kFlatOut;
  return std::clamp(int(std::lround(10.0 * std::log10(pace / 0.25))), 0, kFlatOut - 1);
}

void ControlsPanel::setPace(double iterationsPerSecond) {
  speed_->setValue(positionForPace(iterationsPerSecond));
}

double ControlsPanel::pace() const {
  return paceForPosition(speed_->value());
}

void ControlsPanel::updateSpeedLabel() {
  const double p = pace();
  speedLabel_->setText(p <= 0.0 ? tr("Flat out") : tr("%1 it/s").arg(p, 0, 'g', p < 1 ? 2 : 3));
}

void ControlsPanel::setSettings(const session::RunSettings& settings) {
  updating_ = true;
  const kms::KMeansConfig& c = settings.config;
  // Centroids placed by hand are an initialisation of their own while they are in use.
  const bool given = c.init == kms::InitMethod::Given;
  given_ = given ? c.initial_centroids : std::vector<float>{};
  const int givenItem = init_->findData(int(kms::InitMethod::Given));
  if (given && givenItem < 0)
    init_->addItem(tr("Placed by hand"), int(kms::InitMethod::Given));
  else if (!given && givenItem >= 0)
    init_->removeItem(givenItem);
  k_->setEnabled(!given);
  k_->setToolTip(given ? tr("The number of centroids placed by hand (choose another "
                            "initialisation to set k)")
                       : tr("Number of clusters (colours of the palette for a picture)"));
  k_->setValue(c.k);
  init_->setCurrentIndex(std::max(0, init_->findData(int(c.init))));
  seed_->setValue(int(std::min<std::uint64_t>(c.seed, std::uint64_t(seed_->maximum()))));
  maxIterations_->setValue(c.max_iterations);
  tolerance_->setValue(c.tolerance);
  // "CUDA, all GPUs" is listed only on machines with several; until the probe has listed it (and
  // on one GPU) the CUDA entry stands for it.
  wantedBackend_ = settings.backend;
  int backendIndex = backend_->findData(int(settings.backend));
  if (backendIndex < 0 && settings.backend == kms::BackendKind::CudaAllGpus)
    backendIndex = backend_->findData(int(kms::BackendKind::Cuda));
  backend_->setCurrentIndex(std::max(0, backendIndex));
  colourSpace_->setCurrentIndex(
      std::max(0, colourSpace_->findData(int(settings.clustering.colourSpace))));
  rows_->setCurrentIndex(std::max(0, rows_->findData(int(settings.clustering.compaction))));
  restarts_->setValue(settings.restarts);
  debounce_.stop();
  updating_ = false;
}

session::RunSettings ControlsPanel::settings() const {
  session::RunSettings s;
  s.config.k = k_->value();
  s.config.init = kms::InitMethod(init_->currentData().toInt());
  if (s.config.init == kms::InitMethod::Given) s.config.initial_centroids = given_;
  s.config.seed = std::uint64_t(seed_->value());
  s.config.max_iterations = maxIterations_->value();
  s.config.tolerance = tolerance_->value();
  s.backend = kms::BackendKind(backend_->currentData().toInt());
  if (s.backend == kms::BackendKind::Cuda && wantedBackend_ == kms::BackendKind::CudaAllGpus)
    s.backend = kms::BackendKind::CudaAllGpus;  // not listed (yet): the same engine either way
  s.clustering.colourSpace = kms::app::ColourSpace(colourSpace_->currentData().toInt());
  s.clustering.compaction = kms::app::Compaction(rows_->currentData().toInt());
  s.restarts = restarts_->value();
  return s;
}

void ControlsPanel::setCudaStatus(bool available, const QString& description, int gpus) {
  backend_->setItemData(1, available ? description : tr("Unavailable: %1").arg(description),
                        Qt::ToolTipRole);
  if (!available) gpus = 0;
  const int allIndex = backend_->findData(int(kms::BackendKind::CudaAllGpus));
  if (gpus > 1 && allIndex < 0) {
    updating_ = true;  // the list grows; the settings stay what they are (no edit)
    backend_->insertItem(2, tr("CUDA, all GPUs (%1)").arg(gpus),
                         int(kms::BackendKind::CudaAllGpus));
    backend_->setItemData(2,
                          tr("Splits the points across all %1 GPUs and adds up their exact sums "
                             "through NCCL: the same labels and centroids as one GPU")
                              .arg(gpus),
                          Qt::ToolTipRole);
    if (wantedBackend_ == kms::BackendKind::CudaAllGpus) backend_->setCurrentIndex(2);
    updating_ = false;
  }
}

void ControlsPanel::setDatasetInfo(const QString& name, const QString& details) {
  dataName_->setText(name);
  dataDetails_->setText(details);
}

void ControlsPanel::setMaximumK(int k) {
  updating_ = true;
  k_->setMaximum(std::max(1, std::min(k, kms::kMaxClusters)));
  updating_ = false;
}

void ControlsPanel::setPicture(bool picture) {
  colourSpace_->setEnabled(picture);
}

void ControlsPanel::setStarts(const std::vector<kms::app::StartSummary>& starts, int shown,
                              int best) {
  updating_ = true;
  start_->clear();
  for (const kms::app::StartSummary& s : starts) {
    QString text = tr("Start %1 · inertia %2").arg(s.start + 1).arg(s.inertia, 0, 'g', 5);
    if (s.quality.valid()) text += tr(" · %1 dB").arg(s.quality.psnr, 0, 'f', 2);
    if (s.start == best) text += tr(" (best)");
    start_->addItem(text, s.start);
  }
  start_->setCurrentIndex(std::max(0, start_->findData(shown)));
  const bool visible = starts.size() > 1;
  start_->setVisible(visible);
  startLabel_->setVisible(visible);
  startLabel_->setText(tr("Show"));
  updating_ = false;
}

void ControlsPanel::setStartProgress(int start, int starts) {
  start_->setVisible(false);
  startLabel_->setVisible(true);
  startLabel_->setText(
      tr("%1 of %2 starts done, the others running flat out…").arg(start).arg(starts));
}

void ControlsPanel::setTimeline(int shown, int latest, bool enabled,
                                const std::vector<int>& emptied) {
  updating_ = true;
  QStringList at;
  for (const int iteration : emptied)
    at << QString::number(iteration);
  if (at.size() > 12) at = at.mid(0, 12) << QStringLiteral("…");
  timelineMarks_->setText(at.isEmpty() ? QString()
                                       : tr("<small>Clusters went empty at iteration %1</small>")
                                             .arg(at.join(QStringLiteral(", "))));
  timelineMarks_->setVisible(!at.isEmpty());
  timeline_->setRange(0, std::max(0, latest));
  timeline_->setValue(std::clamp(shown, 0, std::max(0, latest)));
  timelineLabel_->setText(tr("%1 / %2").arg(timeline_->value()).arg(timeline_->maximum()));
  timeline_->setEnabled(enabled && latest > 0);
  updating_ = false;
}

void ControlsPanel::scheduleEdit() {
  if (!updating_) debounce_.start();
}

void ControlsPanel::flushEdits() {
  if (!debounce_.isActive()) return;
  debounce_.stop();
  emit settingsEdited(settings());
}

}  // namespace kms::ui
