#include "main_window.h"

#include "session/followed_run_engine.h"
#include "trace_opener.h"

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenu>
#include <QMimeData>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QVBoxLayout>

#include "charts/convergence_chart.h"
#include "charts/timing_chart.h"
#include "controls_panel.h"
#include "core/format.h"
#include "data/frame_pump.h"
#include "data/recent_files.h"
#include "data/run_history.h"
#include "data/sample_catalog.h"
#include "data/studio_settings.h"
#include "export_controller.h"
#include "io/load.h"
#include "run_presenter.h"
#include "studio_actions.h"
#include "views/cluster_views.h"
#include "views/graphics_support.h"
#include "views/image_compare_view.h"
#include "views/image_panel.h"
#include "views/scatter_view.h"
#include "widgets/icons.h"
#include "widgets/load_banner.h"
#include "widgets/message_bar.h"
#include "widgets/status_readout.h"
#include "widgets/step_keys.h"

namespace kms::ui {
namespace {

QDockWidget* dock(QMainWindow* window, const QString& title, const QString& name,
                  QWidget* content) {
  auto* d = new QDockWidget(title, window);
  d->setObjectName(name);
  d->setWidget(content);
  d->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                 QDockWidget::DockWidgetClosable);
  return d;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent),
      session_(std::make_unique<session::SessionController>()),
      actions_(std::make_unique<StudioActions>(this)),
      history_(std::make_unique<RunHistory>()),
      pump_(std::make_unique<FramePump>(*session_)),
      recent_(std::make_unique<RecentFiles>()) {
  setWindowTitle(tr("KMeans Studio"));
  setWindowIcon(icon(IconKind::App));
  setAcceptDrops(true);
  buildLayout();
  readout_ = new StatusReadout(statusBar(), *history_);
  exporter_ = std::make_unique<ExportController>(
      *session_, *history_, *views_, *timing_, *convergence_, [this] { return grabWindowImage(); },
      this);
  presenter_ = new RunPresenter({*session_, *pump_, *history_, *views_, *timing_, *convergence_,
                                 *readout_, *actions_, *controls_, *exporter_},
                                this);
  stepKeys_ = new StepKeyFilter(this);
  normalFontSize_ = font().pointSizeF();
  connectActions();
  connectSession();
  rebuildRecentMenu();
  defaultState_ = saveState();
  restoreSettings();
  session_->setSettings(controls_->settings());
  session_->setPace(controls_->pace());
  readout_->setMaxIterations(controls_->settings().config.max_iterations);
  readout_->setState(session::SessionState::NoData, 0.0);
}

MainWindow::~MainWindow() {
  session_->shutdown();
  if (exporter_) exporter_->waitForIdle();
}

void MainWindow::buildLayout() {
  auto* central = new QWidget(this);
  auto* layout = new QVBoxLayout(central);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(0);
  messages_ = new MessageBar(central);
  banner_ = new LoadBanner(central);
  views_ = new ClusterViews(central);
  layout->addWidget(messages_);
  layout->addWidget(banner_);
  layout->addWidget(views_, 1);
  setCentralWidget(central);

  controls_ = new ControlsPanel(*actions_, this);
  timing_ = createTimingChart(this);
  convergence_ = new ConvergenceChart(this);
  // The settings scroll when the window is too short for all of them.
  controlsScroll_ = new QScrollArea(this);
  auto* controlsScroll = controlsScroll_;
  controlsScroll->setObjectName(QStringLiteral("settingsScroll"));
  controlsScroll->setWidget(controls_);
  controlsScroll->setWidgetResizable(true);
  controlsScroll->setFrameShape(QFrame::NoFrame);
  controlsScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  fitSettingsWidth();
  controlsDock_ = dock(this, tr("Settings"), QStringLiteral("settingsDock"), controlsScroll);
  timingDock_ = dock(this, tr("Timing"), QStringLiteral("timingDock"), timing_);
  convergenceDock_ = dock(this, tr("Convergence"), QStringLiteral("convergenceDock"), convergence_);
  addDockWidget(Qt::LeftDockWidgetArea, controlsDock_);
  addDockWidget(Qt::BottomDockWidgetArea, timingDock_);
  splitDockWidget(timingDock_, convergenceDock_, Qt::Horizontal);
  setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
  resize(1440, 920);
  resizeDocks({controlsDock_}, {300}, Qt::Horizontal);
  resizeDocks({timingDock_}, {320}, Qt::Vertical);
  resizeDocks({timingDock_, convergenceDock_}, {560, 580}, Qt::Horizontal);
  actions_->viewMenu->addSeparator();
  for (QDockWidget* d : {controlsDock_, timingDock_, convergenceDock_})
    actions_->viewMenu->addAction(d->toggleViewAction());
  actions_->viewMenu->addSeparator();
  actions_->viewMenu->addAction(actions_->presentation);
  actions_->viewMenu->addAction(actions_->resetLayout);
}

void MainWindow::connectActions() {
  StudioActions& a = *actions_;
  traceOpener_ = new TraceOpener(this);
  connect(traceOpener_, &TraceOpener::failed, this, [this](const QString& message) {
    messages_->showMessage(MessageBar::Level::Error, message);
  });
  connect(a.openTrace, &QAction::triggered, this, [this] {
    QSettings settings;
    const QString folder = QFileDialog::getExistingDirectory(
        this, tr("Open a Trace Folder"),
        settings.value(QStringLiteral("files/lastDir")).toString());
    if (folder.isEmpty()) return;
    settings.setValue(QStringLiteral("files/lastDir"), QFileInfo(folder).absolutePath());
    openTrace(folder);
  });
  connect(a.follow, &QAction::triggered, this, [this] {
    QSettings settings;
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Follow a Run"), settings.value(QStringLiteral("files/lastDir")).toString(),
        tr("Live reports (*.jsonl *.json);;All files (*)"));
    if (path.isEmpty()) return;
    settings.setValue(QStringLiteral("files/lastDir"), QFileInfo(path).absolutePath());
    followRun(path);
  });
  connect(a.open, &QAction::triggered, this, [this] {
    QSettings settings;
    const QString dir =
        settings
            .value(QStringLiteral("files/lastDir"),
                   QStandardPaths::writableLocation(QStandardPaths::PicturesLocation))
            .toString();
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open Data"), dir, kms::app::supportedNameFilters().join(QStringLiteral(";;")));
    if (path.isEmpty()) return;
    settings.setValue(QStringLiteral("files/lastDir"), QFileInfo(path).absolutePath());
    openFile(path);
  });
  for (QAction* sample : a.samples)
    connect(sample, &QAction::triggered, this,
            [this, sample] { openSample(sample->data().toString()); });
  connect(a.generate, &QAction::triggered, this, &MainWindow::showGeneratorDialog);
  connect(a.quit, &QAction::triggered, this, &QWidget::close);
  connect(a.playPause, &QAction::triggered, this, [this] {
    controls_->flushEdits();
    session_->togglePlay();
  });
  connect(a.step, &QAction::triggered, this, [this] {
    controls_->flushEdits();
    session_->stepHalf();
  });
  connect(a.stepWhole, &QAction::triggered, this, [this] {
    controls_->flushEdits();
    session_->step();
  });
  connect(a.stepBack, &QAction::triggered, this, [this] {
    controls_->flushEdits();
    session_->stepBack();
  });
  connect(a.reset, &QAction::triggered, this, [this] { session_->reset(); });
  connect(a.flatOut, &QAction::triggered, this, [this] { controls_->setPace(0.0); });
  connect(a.sweep, &QAction::triggered, this, [this] { showSweepDialog(); });
  connect(a.compare, &QAction::triggered, this, [this] { showCompareDialog(); });
  connect(a.presentation, &QAction::toggled, this, [this](bool on) {
    views_->setPresentation(on);
    // The whole window's text a third larger, so the settings and charts read from the back.
    QFont f = font();
    f.setPointSizeF(on ? normalFontSize_ * 1.35 : normalFontSize_);
    setFont(f);
    fitSettingsWidth();
  });
  connect(a.resetLayout, &QAction::triggered, this, [this] {
    restoreState(defaultState_);
    for (QDockWidget* d : {controlsDock_, timingDock_, convergenceDock_})
      d->show();
  });
  connect(a.about, &QAction::triggered, this, &MainWindow::showAbout);
  connect(a.aboutQt, &QAction::triggered, qApp, &QApplication::aboutQt);
  using K = ExportController::Kind;
  const std::pair<QAction*, K> exports[] = {{a.exportImage, K::QuantisedImage},
                                            {a.exportPalette, K::Palette},
                                            {a.exportLabels, K::Labels},
                                            {a.exportCentroids, K::Centroids},
                                            {a.exportReport, K::Report},
                                            {a.exportTimingChart, K::TimingChart},
                                            {a.exportConvergenceChart, K::ConvergenceChart},
                                            {a.exportWindow, K::Window},
                                            {a.exportAnimation, K::Animation},
                                            {a.exportTrace, K::Trace}};
  for (const auto& [action, kind] : exports)
    connect(action, &QAction::triggered, this,
            [this, kind = kind] { exporter_->exportInteractive(kind); });
  connect(exporter_.get(), &ExportController::started, this,
          [this](ExportController::Kind, const QString& path) {
            statusBar()->showMessage(tr("Saving %1…").arg(QFileInfo(path).fileName()));
          });
  connect(exporter_.get(), &ExportController::exported, this,
          [this](ExportController::Kind, const QString& path) {
            statusBar()->clearMessage();
            messages_->showMessage(MessageBar::Level::Info,
                                   tr("Saved %1").arg(QDir::toNativeSeparators(path)));
          });
  connect(exporter_.get(), &ExportController::failed, this, [this](const QString& message) {
    statusBar()->clearMessage();
    messages_->showMessage(MessageBar::Level::Error, message);
  });
  connect(controls_, &ControlsPanel::settingsEdited, session_.get(),
          &session::SessionController::setSettings);
  connect(controls_, &ControlsPanel::paceChanged, this,
          [this](double pace) { session_->setPace(pace); });
  connect(recent_.get(), &RecentFiles::changed, this, &MainWindow::rebuildRecentMenu);
  connect(controls_, &ControlsPanel::startChosen, session_.get(),
          &session::SessionController::showStart);
  connect(controls_, &ControlsPanel::iterationChosen, session_.get(),
          &session::SessionController::showIteration);
  connect(views_->scatter2d(), &ScatterView::centroidsEdited, this,
          &MainWindow::startFromCentroids);
  exporter_->setDitherSource([this] { return views_->imagePanel()->shownDithering(); });
  connect(banner_, &LoadBanner::cancelRequested, session_.get(),
          &session::SessionController::cancelLoad);
}

void MainWindow::connectSession() {
  session::SessionController* s = session_.get();
  connect(s, &session::SessionController::loadStarted, banner_,
          [this](const QString& what) { banner_->start(what); });
  connect(s, &session::SessionController::loadProgress, banner_, &LoadBanner::setProgress);
  connect(s, &session::SessionController::loadFinished, banner_, &LoadBanner::finish);
  connect(s, &session::SessionController::loadCancelled, this, [this](const QString& origin) {
    banner_->finish();
    messages_->showMessage(
        MessageBar::Level::Info,
        tr("Loading %1 was cancelled; the current data is unchanged.")
            .arg(QFileInfo(origin).fileName().isEmpty() ? origin : QFileInfo(origin).fileName()));
  });
  connect(s, &session::SessionController::loadFailed, this,
          [this](const QString& origin, const QString& message) {
            banner_->finish();
            QString text = message;
            if (session_->dataset()) text += tr(" — the current data is unchanged.");
            messages_->showMessage(MessageBar::Level::Error, text);
            if (!QFileInfo::exists(origin)) recent_->remove(origin);
          });
  connect(s, &session::SessionController::datasetChanged, this, &MainWindow::onDatasetChanged);
  connect(s, &session::SessionController::cudaProbed, controls_, &ControlsPanel::setCudaStatus);
  connect(s, &session::SessionController::settingsChanged, this,
          [this](const session::RunSettings& run) {
            controls_->setSettings(run);
            readout_->setMaxIterations(run.config.max_iterations);
          });
  connect(s, &session::SessionController::errorOccurred, this, [this](const QString& message) {
    messages_->showMessage(MessageBar::Level::Error, message);
  });
  connect(s, &session::SessionController::notice, this, [this](const QString& message) {
    messages_->showMessage(MessageBar::Level::Info, message);
  });
  connect(s, &session::SessionController::deviceFailed, this, [this](const QString& message) {
    messages_->showMessage(MessageBar::Level::Error,
                           message + u'\n' + tr("The CPU gives the same result, more slowly."),
                           tr("Continue on the CPU"), [this] {
                             session::RunSettings settings = session_->settings();
                             settings.backend = kms::BackendKind::Cpu;
                             session_->setSettings(settings);  // the run starts again on the CPU
                             session_->play();
                           });
  });
  connect(s, &session::SessionController::engineChanged, this,
          [this](const session::EngineDescription& e) {
            if (!e.note.isEmpty()) messages_->showMessage(MessageBar::Level::Info, e.note);
          });
}

void MainWindow::onDatasetChanged(const kms::app::DatasetPtr& data, const QString& origin) {
  messages_->dismiss();
  lastWasImage_ = data->isImage();
  views_->setDataset(data, session_->originalImage());
  QString details = data->isImage() && data->width > 0
                        ? tr("%1 × %2 pixels").arg(data->width).arg(data->height)
                        : tr("%1 points × %2 dimensions")
                              .arg(kms::app::groupedCount(data->itemCount()))
                              .arg(data->d);
  if (data->isImage() && data->isCompact())
    details += tr(", %1 distinct colours").arg(kms::app::groupedCount(data->n));
  if (data->hasAlphaChannel()) details += tr(", with transparency");
  if (!data->weights.empty()) details += tr(", weighted");
  controls_->setDatasetInfo(data->displayName, details);
  controls_->setPicture(data->isImage());
  controls_->setMaximumK(int(std::min<std::size_t>(data->n, std::size_t(kms::kMaxClusters))));
  readout_->setDatasetSize(std::size_t(data->clusteredItems()));
  if (!data->notes.isEmpty())
    messages_->showMessage(
        MessageBar::Level::Info,
        tr("%1: %2.").arg(data->displayName, data->notes.join(QStringLiteral("; "))));
  readout_->clearRun();
  setWindowTitle(tr("%1 — KMeans Studio").arg(data->displayName));
  if (QFileInfo(origin).isFile()) recent_->add(origin);
  if (following_ && !followLoaded_) {
    // The followed run's settings, then its iterations as they come.
    followLoaded_ = true;
    session::RunSettings s = controls_->settings();
    s.config.k = following_->k;
    s.config.seed = following_->config.seed;
    s.config.tolerance = following_->config.tolerance;
    s.config.max_iterations = following_->config.max_iterations;
    s.config.init = following_->config.init;
    s.backend = kms::BackendKind::Cpu;
    s.restarts = 1;
    controls_->setSettings(s);
    session_->setSettings(s);
    session_->play();
    setWindowTitle(tr("Following %1 (%2 process%3) — KMeans Studio")
                       .arg(data->displayName)
                       .arg(following_->ranks)
                       .arg(following_->ranks == 1 ? QString() : QStringLiteral("es")));
  }
}

bool MainWindow::followRun(const QString& path) {
  kms::app::LiveReportReader reader(path);
  try {
    reader.poll();
  } catch (const std::exception& e) {
    messages_->showMessage(MessageBar::Level::Error, QString::fromUtf8(e.what()));
    return false;
  }
  if (!reader.header()) {
    messages_->showMessage(
        MessageBar::Level::Error,
        tr("%1: the run has not written its first line yet.").arg(QFileInfo(path).fileName()));
    return false;
  }
  session_->setEngineFactory([path](kms::BackendKind) {
    kms::CreatedEngine created;
    created.engine = std::make_unique<session::FollowedRunEngine>(path);
    created.kind = kms::BackendKind::Cpu;
    return created;
  });
  following_ = *reader.header();
  followLoaded_ = false;
  exporter_->setReplayable(false);  // the followed run is another process's: nothing to replay
  session_->openFile(following_->input, following_->k);
  return true;
}

void MainWindow::stopFollowing() {
  if (!following_) return;
  following_.reset();
  session_->setEngineFactory({});
  exporter_->setReplayable(true);
}

void MainWindow::openFile(const QString& path, std::optional<int> k) {
  stopFollowing();
  // Switching between pictures and points switches to that kind's usual k; otherwise the k the
  // user chose stays.
  const bool image = kms::app::looksLikeImage(path);
  if (!k && (!lastWasImage_ || *lastWasImage_ != image)) k = image ? 16 : 5;
  session_->openFile(path, k);
}

bool MainWindow::openSample(const QString& id) {
  stopFollowing();
  const Sample* sample = findSample(id);
  if (!sample) {
    messages_->showMessage(MessageBar::Level::Error,
                           tr("There is no sample called \"%1\".").arg(id));
    return false;
  }
  const QString path = sampleFile(*sample);
  if (!path.isEmpty()) {
    session_->openFile(path, sample->k);
  } else if (sample->fallback) {
    session_->generate(*sample->fallback, sample->k);
  } else {
    messages_->showMessage(MessageBar::Level::Error,
                           tr("The %1 sample was not found (looked in %2).")
                               .arg(sample->title, sampleDirectories().join(QStringLiteral(", "))));
    return false;
  }
  return true;
}

void MainWindow::generate(const kms::app::GeneratorParams& params, std::optional<int> k) {
  stopFollowing();
  lastGenerator_ = params;
  session_->generate(params, k);
}

void MainWindow::fitSettingsWidth() {
  // As wide as the settings need (the dock would otherwise squeeze them), plus the scroll bar.
  if (controls_->layout()) controls_->layout()->activate();
  controlsScroll_->setMinimumWidth(controls_->minimumSizeHint().width() +
                                   controlsScroll_->verticalScrollBar()->sizeHint().width());
}

void MainWindow::openTrace(const QString& folder) {
  traceOpener_->open(folder, session_->dataset());
}

void MainWindow::rebuildRecentMenu() {
  QMenu* menu = actions_->recentMenu;
  menu->clear();
  const QStringList files = recent_->files();
  for (int i = 0; i < files.size(); ++i) {
    QAction* action = menu->addAction(
        QStringLiteral("&%1 %2").arg((i + 1) % 10).arg(QFileInfo(files[i]).fileName()));
    action->setToolTip(files[i]);
    action->setStatusTip(files[i]);
    connect(action, &QAction::triggered, this, [this, path = files[i]] { openFile(path); });
  }
  if (!files.isEmpty()) menu->addSeparator();
  QAction* clear = menu->addAction(tr("Clear Recent Files"));
  clear->setEnabled(!files.isEmpty());
  connect(clear, &QAction::triggered, recent_.get(), &RecentFiles::clear);
  menu->setEnabled(true);
}

QImage MainWindow::grabWindowImage() {
  // Charts and plots redraw on the next turn of the event loop; let them, so the picture shows
  // what the window is about to show rather than the previous frame.
  timing_->refresh();
  convergence_->refresh();
  for (int i = 0; i < 3; ++i)
    QCoreApplication::processEvents(QEventLoop::ExcludeUserInputEvents);
  QImage image = grab().toImage();
  views_->paint3DInto(image, this);
  return image;
}

void MainWindow::closeEvent(QCloseEvent* event) {
  if (!closing_) {
    closing_ = true;
    saveSettings();
    // Joins the engine thread (an iteration in flight finishes first) and cancels loading.
    session_->shutdown();
    exporter_->waitForIdle();
  }
  event->accept();
}

bool MainWindow::acceptsDrop(const QMimeData* mime) {
  return mime && mime->hasUrls() && !mime->urls().isEmpty() && mime->urls().first().isLocalFile();
}

bool MainWindow::openDropped(const QMimeData* mime) {
  if (!acceptsDrop(mime)) return false;
  openFile(mime->urls().first().toLocalFile());
  return true;
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
  if (acceptsDrop(event->mimeData())) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
  if (openDropped(event->mimeData())) event->acceptProposedAction();
}

void MainWindow::restoreSettings() {
  restoreStudioSettings({*this, *controls_, *views_});
  // Whether the saved k was chosen for a picture or for points (see openFile()).
  const QVariant image = QSettings().value(QStringLiteral("data/lastWasImage"));
  if (image.isValid()) lastWasImage_ = image.toBool();
}

void MainWindow::saveSettings() {
  saveStudioSettings({*this, *controls_, *views_});
  if (lastWasImage_) QSettings().setValue(QStringLiteral("data/lastWasImage"), *lastWasImage_);
}

}  // namespace kms::ui
