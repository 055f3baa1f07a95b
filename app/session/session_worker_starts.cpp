// SessionWorker's best of N: the animated first start recorded, the later ones run in one
// Engine::runStarts (several at once on a GPU) and recorded as they end, any start shown again.
#include <algorithm>

#include "kmeans/errors.h"
#include "session/frame_builder.h"
#include "session/session_worker.h"

namespace kms::session {

int SessionWorker::bestStart() const {
  const kms::app::StartSummary* best = nullptr;
  for (const StartState& s : starts_)  // ties keep the earlier start
    if (!best || s.summary.inertia < best->inertia ||
        (s.summary.inertia == best->inertia && s.summary.start < best->start))
      best = &s.summary;
  return best ? best->start : 0;
}

int SessionWorker::indexOfStart(int start) const {
  for (std::size_t i = 0; i < starts_.size(); ++i)
    if (starts_[i].summary.start == start) return int(i);
  return -1;
}

bool SessionWorker::laterStartsLeft() const {
  return start_ > 0 && int(starts_.size()) < settings_.restarts;
}

void SessionWorker::recordStart(StartState state, const std::vector<kms::IterationStats>& stats,
                                bool converged) {
  kms::app::StartSummary& summary = state.summary;
  summary.seed = settings_.config.seed + std::uint64_t(summary.start);
  summary.iterations = int(stats.size());
  summary.converged = converged;
  summary.inertia = stats.empty() ? 0.0 : stats.back().inertia;
  summary.stopRule =
      stats.empty()
          ? kms::StopRule::Running
          : kms::stopRuleOf(stats.back(), true, std::size_t(input_->dataset()->clusteredItems()),
                            settings_.config.tolerance);
  // Shown later with every row's nearest final centroid (publishStart): no labels kept.
  state.result.labels.clear();
  state.result.labels.shrink_to_fit();
  state.result.n = 0;
  starts_.push_back(std::move(state));
}

bool SessionWorker::recordFirstStart() {
  StartState state;
  try {
    engine_->snapshot(state.result);
  } catch (const std::exception& e) {
    fail(tr("Could not read the engine's state: %1").arg(QString::fromStdString(e.what())),
         SessionState::Paused);
    return false;
  }
  state.summary.start = 0;
  state.iterations = std::move(startIterations_);
  startIterations_.clear();
  std::vector<kms::IterationStats> stats;
  for (const IterationRecord& record : state.iterations)
    stats.push_back(record.stats);
  recordStart(std::move(state), stats, engine_->converged());
  if (settings_.restarts < 2) return false;
  start_ = 1;  // the later starts: all at once, as the engine runs them (runLaterStarts)
  emit startProgress(quint64(runId_), 1, settings_.restarts);
  return true;
}

bool SessionWorker::runLaterStarts() {
  std::vector<int> left;
  for (int s = 1; s < settings_.restarts; ++s)
    if (indexOfStart(s) < 0) left.push_back(s);
  if (!left.empty()) {
    try {
      engine_->runStarts(settings_.config, left, [this](const kms::StartOutcome& o) {
        StartState state;
        state.summary.start = o.start;
        double ms = 0.0;  // the time axis of a start run off screen: its compute time
        for (const kms::IterationStats& stats : o.iterations) {
          ms += stats.ms.computeMs();
          state.iterations.push_back({0, o.start, stats, ms});
        }
        state.result.iteration = int(o.iterations.size());
        state.result.k = settings_.config.k;
        state.result.d = input_->d();
        state.result.centroids = o.centroids;
        state.result.centred_centroids = o.centred_centroids;
        if (!o.iterations.empty()) state.result.stats = o.iterations.back();
        recordStart(std::move(state), o.iterations, o.converged);
        emit startProgress(quint64(runId_), int(starts_.size()), settings_.restarts);
        // A queued command (pause, new settings, a pace) runs before the starts go on.
        return pendingCommands_.load(std::memory_order_acquire) == 0;
      });
    } catch (const kms::Interrupted&) {
      sortStarts();
      // A queued command runs, then the next slice goes on with the starts left; without one
      // (the stop flag alone: closing), the chain ends here.
      return pendingCommands_.load(std::memory_order_acquire) > 0;
    } catch (const kms::DeviceError& e) {
      sortStarts();
      running_ = false;
      paceTimer_->stop();
      setState(SessionState::Paused);
      emit deviceFailed(
          tr("The GPU failed while running the starts: %1").arg(QString::fromStdString(e.what())));
      return false;
    } catch (const std::exception& e) {
      sortStarts();
      fail(tr("The engine failed while running the starts: %1")
               .arg(QString::fromStdString(e.what())),
           SessionState::Paused);
      return false;
    }
  }
  sortStarts();
  if (publishStart(bestStart())) stopRunning(SessionState::Finished);
  return false;
}

void SessionWorker::sortStarts() {
  std::sort(starts_.begin(), starts_.end(), [](const StartState& a, const StartState& b) {
    return a.summary.start < b.summary.start;
  });
}

bool SessionWorker::publishStart(int start) {
  finishBackgroundFrame();
  capturePending_ = false;
  const int index = indexOfStart(start);
  if (index < 0) return false;
  const StartState& state = starts_[std::size_t(index)];
  kms::Snapshot copy = state.result;
  if (copy.iteration > 0) {
    // Every row's nearest final centroid, as kmeans-cli writes it.
    try {
      engine_->assign(copy.centred_centroids, copy.labels);
    } catch (const std::exception& e) {
      fail(tr("Could not label start %1: %2").arg(start + 1).arg(QString::fromStdString(e.what())),
           SessionState::Paused);
      return false;
    }
    copy.n = copy.labels.size();
  }
  // A fresh run id: the charts show this start's iterations from the beginning.
  ++runId_;
  mailbox_.clear();
  for (IterationRecord record : state.iterations) {
    record.runId = runId_;
    mailbox_.postRecord(record);
  }
  StartInfo info;
  info.start = start;
  info.starts = settings_.restarts;
  info.best = bestStart();
  for (const StartState& s : starts_)
    info.summaries.push_back(s.summary);
  mailbox_.postFrame(buildFrame(copy, context(), runId_, true, labelPool_, &info));
  if (mailbox_.claimWakeUp()) emit deliveryPending();
  return true;
}

}  // namespace kms::session
