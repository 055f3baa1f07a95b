// Drives the window from the command line: opens the data, applies the settings, presses Play,
// takes the screenshot (after a delay or once the run finishes), writes the report, prints the
// rate and exits by itself, with a time-out so an unattended run never hangs.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QPointer>
#include <QTimer>
#include <QWidget>

#include "session/session_types.h"
#include "studio_options.h"

namespace kms::ui {
class MainWindow;
}

namespace kms::studio {

class ScriptedRun : public QObject {
  Q_OBJECT

 public:
  ScriptedRun(ui::MainWindow& window, StudioOptions options);

  /// Applies the presentation options and starts opening the data.
  void start();

 private:
  void begin();
  void onDatasetChanged();
  void onState(session::SessionState state);
  void waitForFinalFrame();
  /// --half-steps: waits for the last half-step's frame, then takes the screenshot.
  void waitForSteppedFrame();
  void onFinished();
  void takeScreenshot();
  void fail(const QString& message);
  void exitWith(int code);

  ui::MainWindow& window_;
  StudioOptions options_;
  bool following_ = false;  ///< --follow: the window runs the followed run itself
  QTimer timeout_;
  bool dataReady_ = false;
  bool runStarted_ = false;
  bool finishedHandled_ = false;
  bool screenshotTaken_ = false;
  QPointer<QWidget> screenshotOf_;  // a dialog the script opened (--sweep, --compare), else null
  bool pendingReport_ = false;
  QElapsedTimer sinceOpen_;  // from asking for the data to the finished frame on screen
  qint64 openToLoadedMs_ = -1;
  qint64 openToResultMs_ = -1;
};

}  // namespace kms::studio
