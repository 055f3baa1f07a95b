// Wires a running session to what shows it: deliveries from the FramePump go to the run
// history, the charts (batched, redrawn once per delivery), the views and the status bar; the
// session's state drives which actions are enabled and whether Play reads Pause.
#pragma once

#include <QObject>

#include "session/session_types.h"

namespace kms::session {
class SessionController;
}

namespace kms::ui {

class ClusterViews;
class ControlsPanel;
class ConvergenceChart;
class ExportController;
class FramePump;
class RunHistory;
class StatusReadout;
class TimingChart;
struct StudioActions;

class RunPresenter : public QObject {
  Q_OBJECT

 public:
  struct Parts {
    session::SessionController& session;
    FramePump& pump;
    RunHistory& history;
    ClusterViews& views;
    TimingChart& timing;
    ConvergenceChart& convergence;
    StatusReadout& readout;
    StudioActions& actions;
    ControlsPanel& controls;
    ExportController& exporter;
  };

  RunPresenter(const Parts& parts, QObject* parent);

  /// Enables exactly the actions that can apply now.
  void updateActions();

 private:
  void onRecords(const std::vector<session::IterationRecord>& records);
  void onFrame(const session::FramePtr& frame);
  void onDelivered();
  void onState(session::SessionState state);
  void updateTimeline();

  Parts p_;
  int shownIteration_ = 0;
  std::vector<int> emptied_;  // iterations of the current run where clusters went empty
  std::size_t emptiedScanned_ = 0;
  std::uint64_t emptiedRun_ = 0;
  session::StepPhase shownPhase_ = session::StepPhase::Whole;
};

}  // namespace kms::ui
