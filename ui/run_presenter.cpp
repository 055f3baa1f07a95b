#include "run_presenter.h"

#include <QAction>

#include "charts/convergence_chart.h"
#include "charts/timing_chart.h"
#include "controls_panel.h"
#include "data/frame_pump.h"
#include "data/run_history.h"
#include "export_controller.h"
#include "session/session_controller.h"
#include "studio_actions.h"
#include "views/cluster_views.h"
#include "widgets/status_readout.h"

namespace kms::ui {

using session::SessionState;

RunPresenter::RunPresenter(const Parts& parts, QObject* parent) : QObject(parent), p_(parts) {
  connect(&p_.pump, &FramePump::recordsArrived, this, &RunPresenter::onRecords);
  connect(&p_.pump, &FramePump::frameArrived, this, &RunPresenter::onFrame);
  connect(&p_.pump, &FramePump::delivered, this, &RunPresenter::onDelivered);
  connect(&p_.history, &RunHistory::runStarted, this, [this] {
    p_.timing.clear();
    p_.convergence.clear();
    p_.readout.clearRun();
  });
  connect(&p_.session, &session::SessionController::startProgress, this,
          [this](quint64 runId, int done, int starts) {
            // Frames come through the frame pump and this signal does not, so progress can
            // arrive after the result of all the starts (which has a later run id): drop it.
            if (runId < p_.history.runId()) return;
            p_.controls.setStartProgress(done, starts);
          });
  connect(&p_.session, &session::SessionController::stateChanged, this, &RunPresenter::onState);
  connect(&p_.session, &session::SessionController::engineChanged, &p_.readout,
          &StatusReadout::setEngine);
  connect(&p_.session, &session::SessionController::datasetChanged, this,
          [this] { updateActions(); });
  updateActions();
}

void RunPresenter::onRecords(const std::vector<session::IterationRecord>& records) {
  p_.history.append(records);
  // Only the current run's records reach the charts (a batch never mixes runs, but be sure).
  if (!records.empty() && records.front().runId != p_.history.runId()) {
    std::vector<session::IterationRecord> current;
    for (const auto& r : records)
      if (r.runId == p_.history.runId()) current.push_back(r);
    p_.timing.append(current);
    p_.convergence.append(current);
    return;
  }
  p_.timing.append(records);
  p_.convergence.append(records);
}

void RunPresenter::onFrame(const session::FramePtr& frame) {
  p_.history.observeRun(frame->runId);
  if (frame->runId == p_.history.runId() && frame->quality.valid() &&
      frame->phase == session::StepPhase::Whole && frame->iteration == frame->latestIteration)
    p_.convergence.addQuality(frame->iteration, frame->quality);
  if (!frame->startSummaries.empty())
    p_.controls.setStarts(frame->startSummaries, frame->start, frame->bestStart);
  else if (frame->iteration == 0)
    p_.controls.setStarts({}, 0, -1);
  p_.views.showFrame(frame);
  p_.readout.showView(*frame);
  shownIteration_ = frame->iteration;
  shownPhase_ = frame->phase;
  updateTimeline();
}

void RunPresenter::onDelivered() {
  p_.timing.refresh();
  p_.convergence.refresh();
  p_.readout.refresh();
  updateActions();
}

void RunPresenter::onState(SessionState state) {
  p_.actions.showPlaying(state == SessionState::Running);
  p_.readout.setState(state, p_.session.pace());
  updateActions();
}

void RunPresenter::updateTimeline() {
  const SessionState state = p_.session.state();
  const int latest = std::max(shownIteration_, int(p_.history.records().size()));
  const bool history = p_.session.settings().restarts == 1;
  // The timeline's marks, iterations where clusters went empty: only records new since the last
  // call are looked at (this runs on every delivery).
  const auto& records = p_.history.records();
  if (p_.history.runId() != emptiedRun_ || records.size() < emptiedScanned_) {
    emptiedRun_ = p_.history.runId();
    emptiedScanned_ = 0;
    emptied_.clear();
  }
  for (; emptiedScanned_ < records.size(); ++emptiedScanned_)
    if (records[emptiedScanned_].stats.empty_clusters > 0)
      emptied_.push_back(records[emptiedScanned_].stats.iteration);
  p_.controls.setTimeline(
      shownIteration_, latest,
      history && state != SessionState::Running && state != SessionState::Preparing, emptied_);
}

void RunPresenter::updateActions() {
  const SessionState state = p_.session.state();
  const bool runnable = state == SessionState::Ready || state == SessionState::Paused ||
                        state == SessionState::Running;
  const bool history = p_.session.settings().restarts == 1;
  const int latest = int(p_.history.records().size());
  // A finished run can still be stepped through its history (looking back, or mid-iteration).
  const bool lookingBack = history && state == SessionState::Finished &&
                           (shownIteration_ < latest || shownPhase_ == session::StepPhase::Assign);
  p_.actions.playPause->setEnabled(runnable);
  p_.actions.step->setEnabled(runnable || lookingBack);
  p_.actions.stepWhole->setEnabled(runnable || lookingBack);
  p_.actions.stepBack->setEnabled(history && (runnable || state == SessionState::Finished) &&
                                  (shownIteration_ > 0));
  updateTimeline();
  p_.actions.reset->setEnabled(p_.session.dataset() && state != SessionState::NoData &&
                               state != SessionState::Preparing);
  using K = ExportController::Kind;
  const std::pair<QAction*, K> exports[] = {
      {p_.actions.exportImage, K::QuantisedImage},
      {p_.actions.exportPalette, K::Palette},
      {p_.actions.exportLabels, K::Labels},
      {p_.actions.exportCentroids, K::Centroids},
      {p_.actions.exportReport, K::Report},
      {p_.actions.exportTimingChart, K::TimingChart},
      {p_.actions.exportConvergenceChart, K::ConvergenceChart},
      {p_.actions.exportWindow, K::Window},
      {p_.actions.exportAnimation, K::Animation},
      {p_.actions.exportTrace, K::Trace}};
  for (const auto& [action, kind] : exports)
    action->setEnabled(p_.exporter.available(kind));
  if (state == SessionState::Finished) p_.readout.setState(state, p_.session.pace());
}

}  // namespace kms::ui
