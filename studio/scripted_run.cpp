#include "scripted_run.h"

#include <QCoreApplication>
#include <QFileInfo>

#include <cstdio>

#include "compare_dialog.h"
#include "controls_panel.h"
#include "data/run_history.h"
#include "export_controller.h"
#include "io/live_report.h"
#include "io/load.h"
#include "main_window.h"
#include "studio_actions.h"
#include "sweep_dialog.h"
#include "trace_opener.h"
#include "trace_window.h"
#include "views/cluster_views.h"
#include "views/image_compare_view.h"
#include "views/image_panel.h"
#include "widgets/message_bar.h"

namespace kms::studio {

using session::SessionState;

ScriptedRun::ScriptedRun(ui::MainWindow& window, StudioOptions options)
    : QObject(&window), window_(window), options_(std::move(options)) {
  auto& session = window_.session();
  connect(&session, &session::SessionController::datasetChanged, this,
          &ScriptedRun::onDatasetChanged);
  connect(&session, &session::SessionController::stateChanged, this, &ScriptedRun::onState);
  connect(&session, &session::SessionController::loadFailed, this,
          [this](const QString&, const QString& message) { fail(message); });
  connect(&session, &session::SessionController::errorOccurred, this,
          [this](const QString& message) {
            // A backend that cannot run falls back to the CPU and carries on; other errors end a
            // script.
            std::fprintf(stderr, "kmeans-studio: %s\n", qPrintable(message));
            if (window_.session().state() == SessionState::Invalid) fail(message);
          });
  timeout_.setSingleShot(true);
  connect(&timeout_, &QTimer::timeout, this, [this] {
    fail(QStringLiteral("timed out after %1 ms").arg(options_.timeoutMs));
    exitWith(3);
  });
  connect(&window_.exporter(), &ui::ExportController::exported, this,
          [this](ui::ExportController::Kind kind, const QString& path) {
            std::printf("kmeans-studio: wrote %s\n", qPrintable(path));
            std::fflush(stdout);
            if (kind == ui::ExportController::Kind::Report) {
              pendingReport_ = false;
              if (options_.quitWhenFinished && (options_.screenshot.isEmpty() || screenshotTaken_))
                exitWith(0);
            }
          });
  connect(&window_.exporter(), &ui::ExportController::failed, this,
          [this](const QString& m) { fail(m); });
}

void ScriptedRun::start() {
  // Once the event loop runs, so an early failure's exit() is not lost before exec().
  QTimer::singleShot(0, this, &ScriptedRun::begin);
}

void ScriptedRun::begin() {
  if (options_.timeoutMs > 0) timeout_.start(options_.timeoutMs);
  ui::ImageCompareView* image = window_.views()->imagePanel()->view();
  using Mode = ui::ImageCompareView::Mode;
  if (options_.imageMode == QLatin1String("split")) image->setMode(Mode::Split);
  if (options_.imageMode == QLatin1String("side")) image->setMode(Mode::SideBySide);
  if (options_.imageMode == QLatin1String("original")) image->setMode(Mode::Original);
  if (options_.imageMode.startsWith(QLatin1String("quanti"))) image->setMode(Mode::Quantised);
  if (options_.dither) window_.views()->imagePanel()->setDitherMethod(*options_.dither);
  if (options_.imageMode == QLatin1String("dithered")) image->setMode(Mode::Dithered);
  if (options_.split) image->setSplit(*options_.split);
  if (options_.pace) window_.controls()->setPace(*options_.pace);

  sinceOpen_.start();
  if (!options_.follow.isEmpty()) {
    // The window opens the followed run's data and plays it; the settings below are its own.
    if (!window_.followRun(options_.follow))
      return fail(
          QStringLiteral("%1: not a live report, or nothing written yet").arg(options_.follow));
    following_ = true;
    return;
  }
  if (!options_.sample.isEmpty()) {
    if (!window_.openSample(options_.sample))
      fail(QStringLiteral("unknown sample \"%1\"").arg(options_.sample));
  } else if (!options_.file.isEmpty()) {
    window_.openFile(options_.file, options_.k);
  } else if (options_.generator) {
    window_.generate(*options_.generator,
                     options_.k ? options_.k : std::optional<int>(options_.generator->groups));
  } else if (options_.scripted()) {
    fail(QStringLiteral("nothing to open: give --sample, --open or --generate"));
  }
}

void ScriptedRun::onDatasetChanged() {
  if (dataReady_) return;
  dataReady_ = true;
  openToLoadedMs_ = sinceOpen_.elapsed();
  session::RunSettings s = window_.controls()->settings();
  if (options_.k) s.config.k = *options_.k;
  if (options_.init) s.config.init = *options_.init;
  if (options_.seed) s.config.seed = *options_.seed;
  if (options_.maxIterations) s.config.max_iterations = *options_.maxIterations;
  if (options_.tolerance) s.config.tolerance = *options_.tolerance;
  if (options_.backend) s.backend = *options_.backend;
  if (options_.colourSpace) s.clustering.colourSpace = *options_.colourSpace;
  if (options_.compaction) s.clustering.compaction = *options_.compaction;
  if (options_.restarts) s.restarts = *options_.restarts;
  if (!following_) {
    window_.controls()->setSettings(s);
    window_.session().setSettings(s);
  }
  if (!options_.initCentroids.isEmpty()) {
    try {
      window_.startFromCentroids(
          kms::app::loadCentroids(options_.initCentroids, window_.session().dataset()->d));
    } catch (const std::exception& e) {
      fail(QString::fromUtf8(e.what()));
      return;
    }
  }
  if (options_.view == QLatin1String("image"))
    window_.views()->setCurrentTab(ui::ClusterViews::Tab::Image);
  if (options_.view == QLatin1String("2d"))
    window_.views()->setCurrentTab(ui::ClusterViews::Tab::Points2D);
  if (options_.regions) window_.views()->setRegionsVisible(true);
  if (options_.principalAxes) window_.views()->setPrincipalAxes(true);
  if (options_.presentation) window_.actions().presentation->setChecked(true);
  if (options_.view == QLatin1String("3d"))
    window_.views()->setCurrentTab(ui::ClusterViews::Tab::Points3D);
  // Commands reach the engine in order, so Play runs with the settings above.
  if (options_.run && !following_) window_.session().play();
  if (options_.sweep) {
    ui::SweepDialog* dialog = window_.showSweepDialog();
    if (!dialog) return fail(QStringLiteral("nothing to sweep"));
    dialog->setRange(options_.sweep->first, options_.sweep->second, options_.restarts.value_or(1));
    connect(dialog, &ui::SweepDialog::finished, this, [this, dialog] {
      if (options_.screenshot.isEmpty()) return;
      screenshotOf_ = dialog;
      QTimer::singleShot(300, this, [this] { takeScreenshot(); });
    });
    dialog->start();
  }
  if (!options_.trace.isEmpty()) {
    ui::TraceOpener& opener = window_.traceOpener();
    connect(&opener, &ui::TraceOpener::failed, this, [this](const QString& m) { fail(m); });
    connect(&opener, &ui::TraceOpener::opened, this, [this](ui::TraceWindow* trace) {
      std::printf("kmeans-studio: trace compared over %d iterations\n",
                  int(trace->comparison().iterations.size()));
      std::fflush(stdout);
      if (options_.screenshot.isEmpty()) return;
      screenshotOf_ = trace;
      QTimer::singleShot(800, this, [this] { takeScreenshot(); });
    });
    window_.openTrace(options_.trace);
    return;
  }
  if (options_.compare) {
    ui::CompareDialog* dialog = window_.showCompareDialog();
    if (!dialog) return fail(QStringLiteral("nothing to compare"));
    dialog->setSide(0, kms::InitMethod::KMeansPlusPlus, window_.controls()->settings().config.seed);
    dialog->setSide(1, kms::InitMethod::Random, window_.controls()->settings().config.seed + 1);
    for (int i = 0; i < options_.halfSteps; ++i)
      dialog->stepHalf();
    if (!options_.screenshot.isEmpty()) {
      screenshotOf_ = dialog;
      QTimer::singleShot(1500, this, [this] { takeScreenshot(); });
    }
    return;
  }
  if (options_.halfSteps > 0) {
    for (int i = 0; i < options_.halfSteps; ++i)
      window_.session().stepHalf();
    waitForSteppedFrame();
  }
  if (!options_.screenshot.isEmpty() && options_.screenshotAfterMs && !options_.run && !following_)
    QTimer::singleShot(*options_.screenshotAfterMs, this, &ScriptedRun::takeScreenshot);
}

void ScriptedRun::waitForSteppedFrame() {
  // The frame of the last half-step: iteration ⌈n / 2⌉, its assign (n odd) or update (n even).
  const int iteration = (options_.halfSteps + 1) / 2;
  const auto phase =
      options_.halfSteps % 2 ? session::StepPhase::Assign : session::StepPhase::Update;
  const auto& frame = window_.views()->frame();
  const bool finished = window_.session().state() == SessionState::Finished;
  if (!frame || (!(frame->iteration == iteration && frame->phase == phase) && !finished)) {
    QTimer::singleShot(5, this, &ScriptedRun::waitForSteppedFrame);
    return;
  }
  std::printf("kmeans-studio: showing iteration %d (%s)\n", frame->iteration,
              frame->phase == session::StepPhase::Assign   ? "assign"
              : frame->phase == session::StepPhase::Update ? "update"
                                                           : "whole");
  std::fflush(stdout);
  if (!options_.screenshot.isEmpty()) QTimer::singleShot(300, this, &ScriptedRun::takeScreenshot);
}

void ScriptedRun::onState(SessionState state) {
  if (state == SessionState::Running && !runStarted_) {
    runStarted_ = true;
    if (!options_.screenshot.isEmpty() && options_.screenshotAfterMs)
      QTimer::singleShot(*options_.screenshotAfterMs, this, &ScriptedRun::takeScreenshot);
  }
  if (state == SessionState::Finished && !finishedHandled_ && dataReady_) {
    finishedHandled_ = true;
    waitForFinalFrame();
  }
}

void ScriptedRun::waitForFinalFrame() {
  // The state arrives before the pump delivers the last frame and records; wait for them (a
  // busy software-OpenGL view can delay deliveries), then give the plots a moment to draw.
  const auto& frame = window_.views()->frame();
  const ui::ImageCompareView* image = window_.views()->imagePanel()->view();
  const bool dithered = image->mode() != ui::ImageCompareView::Mode::Dithered || !frame ||
                        frame->quantized.isNull() || !image->dithered().isNull();
  const bool shown = frame && frame->finished && dithered &&
                     window_.history().records().size() == std::size_t(frame->iteration);
  if (!shown) {
    QTimer::singleShot(5, this, &ScriptedRun::waitForFinalFrame);
    return;
  }
  openToResultMs_ = sinceOpen_.elapsed();
  QTimer::singleShot(250, this, &ScriptedRun::onFinished);
}

void ScriptedRun::onFinished() {
  const ui::RunHistory& history = window_.history();
  if (options_.printStats && !history.empty()) {
    const auto& last = history.records().back();
    const double seconds = last.wallMs / 1000.0;
    const auto& engine = window_.session().engine();
    std::printf("kmeans-studio: %d iterations in %.3f s (%.1f it/s), %s, backend %s (%s), n=%zu\n",
                last.stats.iteration, seconds, seconds > 0 ? last.stats.iteration / seconds : 0.0,
                last.stats.converged ? "converged" : "iteration limit", qPrintable(engine.backend),
                qPrintable(engine.device),
                window_.session().dataset() ? window_.session().dataset()->n : 0);
    std::printf(
        "kmeans-studio: data loaded %lld ms after opening, result on screen after %lld ms\n",
        static_cast<long long>(openToLoadedMs_), static_cast<long long>(openToResultMs_));
    std::fflush(stdout);
  }
  if (!options_.report.isEmpty()) {
    pendingReport_ = true;
    window_.exporter().exportTo(ui::ExportController::Kind::Report, options_.report);
  }
  if (!options_.screenshot.isEmpty() && !options_.screenshotAfterMs) takeScreenshot();
  if (options_.quitWhenFinished && !pendingReport_ &&
      (options_.screenshot.isEmpty() || screenshotTaken_))
    exitWith(0);
}

void ScriptedRun::takeScreenshot() {
  if (screenshotTaken_) return;
  screenshotTaken_ = true;
  // The window, or the dialog a script opened.
  const QImage image = screenshotOf_ ? screenshotOf_->grab().toImage() : window_.grabWindowImage();
  if (image.isNull() || !image.save(options_.screenshot)) {
    fail(QStringLiteral("%1: could not save the screenshot").arg(options_.screenshot));
    return;
  }
  std::printf("kmeans-studio: screenshot %s (%dx%d)\n", qPrintable(options_.screenshot),
              image.width(), image.height());
  std::fflush(stdout);
  if (!pendingReport_) exitWith(0);
}

void ScriptedRun::fail(const QString& message) {
  std::fprintf(stderr, "kmeans-studio: %s\n", qPrintable(message));
  if (options_.scripted()) exitWith(1);
}

void ScriptedRun::exitWith(int code) {
  window_.close();  // joins the engine thread
  QCoreApplication::exit(code);
}

}  // namespace kms::studio
