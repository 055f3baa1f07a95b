#include "session/session_worker.h"

#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <exception>

#include "kmeans/backend.h"
#include "session/frame_builder.h"

namespace kms::session {
namespace {

/// Flat out, the worker returns to its event loop this often (commands wait at most this long
/// when the pending-command count is missed).
constexpr qint64 kSliceMs = 8;
/// A frame may cost the worker at most 1 / (1 + kFrameCostRatio) of its time.
constexpr double kFrameCostRatio = 9.0;

QString qs(const std::string& text) {
  return QString::fromStdString(text);
}

}  // namespace

SessionWorker::SessionWorker(FrameMailbox& mailbox, std::atomic<int>& pendingCommands)
    : mailbox_(mailbox),
      pendingCommands_(pendingCommands),
      paceTimer_(new QTimer(this)),
      labelPool_(std::make_shared<LabelPool>()) {
  paceTimer_->setTimerType(Qt::PreciseTimer);
  connect(paceTimer_, &QTimer::timeout, this, &SessionWorker::pacedTick);
}

SessionWorker::~SessionWorker() {
  // Runs on the worker thread (deleteLater on QThread::finished), so a CUDA engine is torn down
  // on the thread that created it.
  paceTimer_->stop();
  finishBackgroundFrame();
  engine_.reset();
}

void SessionWorker::commandDone() {
  pendingCommands_.fetch_sub(1, std::memory_order_acq_rel);
}

void SessionWorker::setDataset(kms::app::DatasetPtr dataset, const RunSettings& settings) {
  commandDone();
  stopRunning(state_);
  finishBackgroundFrame();
  mailbox_.clear();
  dataset_ = std::move(dataset);
  settings_ = settings;
  initialized_ = false;
  if (!dataset_) {
    setState(SessionState::NoData);
    return;
  }
  setState(SessionState::Preparing);
  ensureEngine(settings_.backend);
  try {
    engine_->setData(dataset_->view());
  } catch (const std::exception& e) {
    fail(tr("%1: the engine cannot use this data: %2").arg(dataset_->displayName, qs(e.what())),
         SessionState::Invalid);
    return;
  }
  initializeRun();
}

void SessionWorker::applySettings(const RunSettings& settings) {
  commandDone();
  stopRunning(state_);
  settings_ = settings;
  if (ensureEngine(settings_.backend)) {
    if (dataset_) {
      try {
        engine_->setData(dataset_->view());
      } catch (const std::exception& e) {
        fail(qs(e.what()), SessionState::Invalid);
        return;
      }
    }
  }
  if (dataset_) initializeRun();
}

void SessionWorker::play() {
  commandDone();
  if (!initialized_ || running_ || engine_->finished()) return;
  startRunning();
}

void SessionWorker::pause() {
  commandDone();
  if (!running_) return;
  stopRunning(SessionState::Paused);
  // Show exactly where the run stopped, even if flat-out frames skipped the last iterations.
  publishFrame();
}

void SessionWorker::stepOnce() {
  commandDone();
  if (running_) stopRunning(SessionState::Paused);
  if (!initialized_ || engine_->finished()) return;
  if (stepAndRecord(true)) setState(SessionState::Paused);
}

void SessionWorker::reset() {
  commandDone();
  stopRunning(state_);
  if (dataset_ && engine_ && state_ != SessionState::NoData) initializeRun();
}

void SessionWorker::setPace(double iterationsPerSecond) {
  commandDone();
  pace_ = std::max(0.0, iterationsPerSecond);
  if (!running_) return;
  if (pace_ > 0.0) {
    paceTimer_->start(std::max(1, int(1000.0 / pace_)));
  } else {
    paceTimer_->stop();
    queueSlice(++sliceChain_);
  }
}

void SessionWorker::setFrameInterval(double ms) {
  commandDone();
  frameIntervalMs_ = std::clamp(ms, 1.0, 1000.0);
}

void SessionWorker::probeCuda() {
  commandDone();
  const kms::CudaStatus status = kms::cudaStatus();
  emit cudaProbed(status.available,
                  QString::fromStdString(status.available ? status.device : status.reason));
}

bool SessionWorker::ensureEngine(kms::BackendKind kind) {
  if (engine_ && kind == engineKind_) return false;
  engineKind_ = kind;  // a choice that failed is not retried on every command; a new one is
  try {
    kms::CreatedEngine created = kms::createEngine(kind);
    engine_ = std::move(created.engine);
    const kms::BackendInfo info = engine_->info();
    emit engineChanged({qs(info.backend), qs(info.device), qs(created.note)});
    return true;
  } catch (const std::exception& e) {
    // The backend asked for cannot run here: say so and keep (or fall back to) the CPU, so the
    // window stays usable.
    emit failed(tr("%1. Staying on the CPU.").arg(qs(e.what())));
    if (engine_) return false;
    engine_ = kms::createCpuEngine();
    const kms::BackendInfo info = engine_->info();
    emit engineChanged({qs(info.backend), qs(info.device), tr("CUDA unavailable")});
    return true;
  }
}

void SessionWorker::initializeRun() {
  stopRunning(state_);
  finishBackgroundFrame();
  capturePending_ = false;
  ++runId_;
  mailbox_.clear();
  initialized_ = false;
  setState(SessionState::Preparing);
  try {
    engine_->initialize(settings_.config);
  } catch (const std::exception& e) {
    fail(qs(e.what()), SessionState::Invalid);
    return;
  }
  initialized_ = true;
  labelPool_->prepare(dataset_->n, 2);
  runClock_.start();
  publishFrame();
  setState(SessionState::Ready);
}

void SessionWorker::startRunning() {
  running_ = true;
  setState(SessionState::Running);
  if (pace_ > 0.0) {
    paceTimer_->start(std::max(1, int(1000.0 / pace_)));
  } else {
    queueSlice(++sliceChain_);
  }
}

void SessionWorker::stopRunning(SessionState next) {
  running_ = false;
  paceTimer_->stop();
  setState(next);
}

void SessionWorker::queueSlice(std::uint64_t chain) {
  QMetaObject::invokeMethod(
      this, [this, chain] { runSlice(chain); }, Qt::QueuedConnection);
}

void SessionWorker::runSlice(std::uint64_t chain) {
  // A pause followed by a play leaves the old chain's slice queued: only the newest chain runs.
  if (chain != sliceChain_ || !running_ || pace_ > 0.0) return;
  QElapsedTimer slice;
  slice.start();
  do {
    if (!stepAndRecord(false)) return;
  } while (pendingCommands_.load(std::memory_order_acquire) == 0 && slice.elapsed() < kSliceMs);
  // Back to the event loop so queued commands run, then carry on.
  queueSlice(chain);
}

void SessionWorker::pacedTick() {
  if (!running_) {
    paceTimer_->stop();
    return;
  }
  stepAndRecord(true);
}

bool SessionWorker::stepAndRecord(bool forceFrame) {
  // The run's clock starts with its first iteration, not when it was set up: time spent
  // waiting for Play is not iteration time.
  if (engine_->iteration() == 0) runClock_.start();
  kms::IterationStats stats;
  try {
    stats = engine_->step();
  } catch (const std::exception& e) {
    fail(
        tr("The engine failed at iteration %1: %2").arg(engine_->iteration() + 1).arg(qs(e.what())),
        SessionState::Paused);
    return false;
  }
  mailbox_.postRecord({runId_, stats, double(runClock_.nsecsElapsed()) / 1e6});
  const bool finished = engine_->finished();
  const bool frameDue =
      mailbox_.frameWanted() && double(frameClock_.nsecsElapsed()) / 1e6 >=
                                    std::max(frameIntervalMs_, kFrameCostRatio * lastFrameCostMs_);
  if (finished || forceFrame) {
    publishFrame();
  } else {
    publishInBackground(frameDue);
    if (mailbox_.claimWakeUp()) emit deliveryPending();
  }
  if (finished) {
    stopRunning(SessionState::Finished);
    return false;
  }
  return true;
}

void SessionWorker::publishInBackground(bool frameDue) {
  if (!capturePending_) {
    if (frameDue && !backgroundFrame_.isRunning()) {
      engine_->requestSnapshot();
      capturePending_ = true;
    }
    return;
  }
  if (backgroundFrame_.isRunning()) return;  // the previous frame is still being built
  QElapsedTimer cost;
  cost.start();
  if (snapshot_.labels.capacity() < dataset_->n) snapshot_.labels = labelPool_->take(dataset_->n);
  try {
    if (!engine_->takeCapturedSnapshot(snapshot_)) return;  // copy still in flight
  } catch (const std::exception& e) {
    fail(tr("Could not read the engine's state: %1").arg(qs(e.what())), SessionState::Paused);
    return;
  }
  capturePending_ = false;
  auto captured = std::make_shared<kms::Snapshot>(std::move(snapshot_));
  // What the worker itself spent (taking the capture); the frame interval keeps it near 10 %.
  lastFrameCostMs_ = double(cost.nsecsElapsed()) / 1e6;
  frameClock_.start();
  backgroundFrame_ = QtConcurrent::run([this, captured, dataset = dataset_, runId = runId_] {
    mailbox_.postFrame(buildFrame(*captured, dataset, runId, false));
    if (mailbox_.claimWakeUp()) emit deliveryPending();
  });
}

void SessionWorker::finishBackgroundFrame() {
  if (backgroundFrame_.isRunning()) backgroundFrame_.waitForFinished();
}

void SessionWorker::publishFrame() {
  if (!engine_ || !dataset_ || !initialized_) return;
  finishBackgroundFrame();  // the newest state must not be overtaken by an older frame
  capturePending_ = false;
  QElapsedTimer cost;
  cost.start();
  if (engine_->iteration() > 0 && snapshot_.labels.capacity() < dataset_->n)
    snapshot_.labels = labelPool_->take(dataset_->n);
  try {
    engine_->snapshot(snapshot_);
  } catch (const std::exception& e) {
    fail(tr("Could not read the engine's state: %1").arg(qs(e.what())), SessionState::Paused);
    return;
  }
  mailbox_.postFrame(buildFrame(snapshot_, dataset_, runId_, engine_->finished(), labelPool_));
  lastFrameCostMs_ = double(cost.nsecsElapsed()) / 1e6;
  frameClock_.start();
  if (mailbox_.claimWakeUp()) emit deliveryPending();
}

void SessionWorker::setState(SessionState state) {
  if (state == state_) return;
  state_ = state;
  emit stateChanged(state);
}

void SessionWorker::fail(const QString& message, SessionState next) {
  running_ = false;
  paceTimer_->stop();
  if (next == SessionState::Invalid) initialized_ = false;
  setState(next);
  emit failed(message);
}

}  // namespace kms::session
