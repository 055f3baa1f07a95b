// KMeans Studio's window: composes the controls, views, charts, status bar and menus, opens
// data (menu, drag and drop, recent files, samples, generator) and persists its layout and
// settings. The work itself happens in SessionController (engine thread) and RunPresenter.
#pragma once

#include <QByteArray>
#include <QMainWindow>

#include <memory>
#include <optional>

#include "io/live_report.h"
#include "session/session_controller.h"

class QDockWidget;
class QMimeData;

class QScrollArea;

namespace kms::ui {

class ClusterViews;
class ControlsPanel;
class ConvergenceChart;
class ExportController;
class FramePump;
class LoadBanner;
class MessageBar;
class RecentFiles;
class RunHistory;
class RunPresenter;
class StatusReadout;
class StepKeyFilter;
class SweepDialog;
class CompareDialog;
class TraceOpener;
class TimingChart;
struct StudioActions;

class MainWindow : public QMainWindow {
  Q_OBJECT

 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  /// Opens `path` with k, or with the usual k of its kind (picture 16, points 5) when the kind
  /// differs from the last data's.
  void openFile(const QString& path, std::optional<int> k = {});
  /// "photo", "blobs" or "cloud"; false (with a message) for an unknown id.
  bool openSample(const QString& id);
  void generate(const kms::app::GeneratorParams& params, std::optional<int> k = {});
  /// Follows the run whose live report is `path` (kmeans-cli --live-report): opens the data it
  /// names and plays its iterations as they arrive (session/followed_run_engine.h), with its k,
  /// seed, tolerance and iteration limit in the settings. False (with a message) when the file
  /// is not a live report or has no header yet. Opening other data ends the following.
  bool followRun(const QString& path);

  /// Drag and drop: whether `mime` carries a local file, and opening it (the first one).
  static bool acceptsDrop(const QMimeData* mime);
  bool openDropped(const QMimeData* mime);

  /// Starts the run again from these centroids (k × d, data units; placed or dragged by hand):
  /// initialisation "placed by hand", k their number, one start, paused at iteration 0.
  void startFromCentroids(const std::vector<float>& centroids);

  /// Opens the k sweep on the current data (null without data); choosing a k there sets it.
  SweepDialog* showSweepDialog();
  /// Opens two runs side by side on the current point data (null without, or for pictures).
  CompareDialog* showCompareDialog();
  /// Compares the run traced in `folder` with exact Lloyd on the current data (in the
  /// background) and opens a TraceWindow; a bad trace is an error in the message bar.
  void openTrace(const QString& folder);
  TraceOpener& traceOpener() { return *traceOpener_; }

  /// The window as a picture, 3-D view included.
  QImage grabWindowImage();

  session::SessionController& session() { return *session_; }
  StudioActions& actions() { return *actions_; }
  ControlsPanel* controls() const { return controls_; }
  ClusterViews* views() const { return views_; }
  TimingChart* timingChart() const { return timing_; }
  ConvergenceChart* convergenceChart() const { return convergence_; }
  ExportController& exporter() { return *exporter_; }
  MessageBar* messageBar() const { return messages_; }
  StatusReadout& readout() { return *readout_; }
  RunHistory& history() { return *history_; }
  FramePump& pump() { return *pump_; }

 protected:
  void closeEvent(QCloseEvent* event) override;
  void dragEnterEvent(QDragEnterEvent* event) override;
  void dropEvent(QDropEvent* event) override;

 private:
  void buildLayout();
  void connectActions();
  void connectSession();
  void rebuildRecentMenu();
  void showGeneratorDialog();
  void showAbout();
  void onDatasetChanged(const kms::app::DatasetPtr& dataset, const QString& origin);
  /// Back to the engines the settings choose (after following a run).
  void stopFollowing();
  void restoreSettings();
  void saveSettings();

  std::unique_ptr<session::SessionController> session_;
  std::unique_ptr<StudioActions> actions_;
  std::unique_ptr<RunHistory> history_;
  std::unique_ptr<FramePump> pump_;
  std::unique_ptr<RecentFiles> recent_;
  ClusterViews* views_ = nullptr;
  MessageBar* messages_ = nullptr;
  LoadBanner* banner_ = nullptr;
  ControlsPanel* controls_ = nullptr;
  TimingChart* timing_ = nullptr;
  ConvergenceChart* convergence_ = nullptr;
  QDockWidget* controlsDock_ = nullptr;
  QDockWidget* timingDock_ = nullptr;
  QDockWidget* convergenceDock_ = nullptr;
  StatusReadout* readout_ = nullptr;
  StepKeyFilter* stepKeys_ = nullptr;
  double normalFontSize_ = 0.0;  // the window's font size outside presentation mode
  QScrollArea* controlsScroll_ = nullptr;
  void fitSettingsWidth();
  std::unique_ptr<ExportController> exporter_;
  TraceOpener* traceOpener_ = nullptr;
  RunPresenter* presenter_ = nullptr;
  QByteArray defaultState_;
  std::optional<bool> lastWasImage_;
  kms::app::GeneratorParams lastGenerator_;
  bool closing_ = false;
  /// The run being followed: its settings are applied once its data are loaded.
  std::optional<kms::app::LiveRunHeader> following_;
  bool followLoaded_ = false;
};

}  // namespace kms::ui
