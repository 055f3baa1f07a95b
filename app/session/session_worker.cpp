#include "session/session_worker.h"

#include <QTimer>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <exception>

#include "kmeans/backend.h"
#include "kmeans/errors.h"
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

SessionWorker::SessionWorker(FrameMailbox& mailbox, std::atomic<int>& pendingCommands,
                             const StopRequest& stop)
    : mailbox_(mailbox),
      pendingCommands_(pendingCommands),
      stop_(stop),
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
  quality_ = kms::app::QualityContext::build(*dataset_);
  input_.reset();
  ensureEngine(settings_.backend);
  if (prepareInput()) initializeRun();
}

bool SessionWorker::prepareInput() {
  try {
    if (!input_ || input_->options() != settings_.clustering)
      input_ = kms::app::ClusteringInput::build(dataset_, settings_.clustering);
    engine_->setData(input_->view());
  } catch (const std::bad_alloc&) {
    input_.reset();
    fail(tr("%1: not enough memory to cluster it this way").arg(dataset_->displayName),
         SessionState::Invalid);
    return false;
  } catch (const std::exception& e) {
    input_.reset();
    fail(tr("%1: the engine cannot use this data: %2").arg(dataset_->displayName, qs(e.what())),
         SessionState::Invalid);
    return false;
  }
  return true;
}

void SessionWorker::applySettings(const RunSettings& settings) {
  commandDone();
  stopRunning(state_);
  const bool newInput = !input_ || input_->options() != settings.clustering;
  settings_ = settings;
  const bool newEngine = ensureEngine(settings_.backend);
  if (!dataset_) return;
  if ((newEngine || newInput) && !prepareInput()) return;
  initializeRun();
}

void SessionWorker::play() {
  commandDone();
  if (!finishPendingInit()) return;
  if (!initialized_ || running_ || (engine_->finished() && !laterStartsLeft())) return;
  startRunning();
}

void SessionWorker::pause() {
  commandDone();
  if (!running_) return;
  stopRunning(SessionState::Paused);
  // Show exactly where the run stopped, even if flat-out frames skipped the last iterations —
  // except between the later starts of a best-of-N run, which run off screen.
  if (start_ == 0) publishFrame();
}

void SessionWorker::stepOnce() {
  commandDone();
  if (running_) stopRunning(SessionState::Paused);
  if (!finishPendingInit() || !initialized_) return;
  if (hasHistory()) {
    if (viewPhase_ == StepPhase::Assign) return showPhase(viewIteration_, StepPhase::Update);
    if (viewIteration_ < engine_->iteration())
      return showPhase(viewIteration_ + 1, StepPhase::Whole);
  }
  if (engine_->finished() && !laterStartsLeft()) return;
  if (stepAndRecord(true)) setState(SessionState::Paused);
}

void SessionWorker::stepHalf() {
  if (initPending_ || !initialized_ || !hasHistory()) return stepOnce();
  commandDone();
  if (running_) stopRunning(SessionState::Paused);
  if (viewPhase_ == StepPhase::Assign) return showPhase(viewIteration_, StepPhase::Update);
  if (viewIteration_ < engine_->iteration())
    return showPhase(viewIteration_ + 1, StepPhase::Assign);
  if (engine_->finished()) return;
  const int before = engine_->iteration();
  const bool more = stepAndRecord(true, false);
  if (engine_->iteration() == before) return;  // the step failed (and said why)
  showPhase(engine_->iteration(), StepPhase::Assign);
  if (more) setState(SessionState::Paused);
}

void SessionWorker::stepBack() {
  commandDone();
  if (running_) {
    stopRunning(SessionState::Paused);
    publishFrame();
  }
  if (!initialized_ || !hasHistory()) return;
  if (viewPhase_ == StepPhase::Assign)
    showPhase(viewIteration_ - 1, viewIteration_ - 1 == 0 ? StepPhase::Whole : StepPhase::Update);
  else if (viewIteration_ >= 1)
    showPhase(viewIteration_, StepPhase::Assign);
}

void SessionWorker::showIteration(int iteration) {
  commandDone();
  if (running_) stopRunning(SessionState::Paused);
  if (!initialized_ || !hasHistory()) return;
  showPhase(std::clamp(iteration, 0, engine_->iteration()), StepPhase::Whole);
}

bool SessionWorker::hasHistory() const {
  return engine_ && initialized_ && settings_.restarts == 1 && engine_->config().keep_history;
}

void SessionWorker::showPhase(int iteration, StepPhase phase) {
  finishBackgroundFrame();
  capturePending_ = false;
  const int latest = engine_->iteration();
  if (iteration <= 0) phase = StepPhase::Whole;
  kms::Snapshot shown, before;
  try {
    if (iteration == latest)
      engine_->snapshot(shown);
    else
      engine_->snapshotAt(iteration, shown);
    if (phase != StepPhase::Whole) engine_->snapshotAt(iteration - 1, before);
  } catch (const std::exception& e) {
    fail(tr("Could not show iteration %1: %2").arg(iteration).arg(qs(e.what())),
         SessionState::Paused);
    return;
  }
  PhaseInfo info;
  info.phase = phase;
  info.previous = phase == StepPhase::Whole ? nullptr : &before;
  info.latestIteration = latest;
  const bool finished = iteration == latest && engine_->finished();
  mailbox_.postFrame(buildFrame(shown, context(), runId_, finished, {}, nullptr, &info));
  viewIteration_ = iteration;
  viewPhase_ = phase;
  frameClock_.start();
  if (mailbox_.claimWakeUp()) emit deliveryPending();
}

void SessionWorker::reset() {
  commandDone();
  stopRunning(state_);
  if (dataset_ && engine_ && state_ != SessionState::NoData) initializeRun();
}

void SessionWorker::setEngineFactory(const EngineFactory& factory) {
  commandDone();
  engineFactory_ = factory;
  factoryChanged_ = true;  // the next engine comes from it, even for the same backend
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

void SessionWorker::showStart(int start) {
  commandDone();
  if (running_ || indexOfStart(start) < 0) return;
  publishStart(start);
}

void SessionWorker::probeCuda() {
  commandDone();
  const kms::CudaStatus status = kms::cudaStatus();
  emit cudaProbed(status.available,
                  QString::fromStdString(status.available ? status.device : status.reason),
                  status.available ? status.device_count : 0);
}

bool SessionWorker::ensureEngine(kms::BackendKind kind) {
  if (engine_ && kind == engineKind_ && !factoryChanged_) return false;
  engineKind_ = kind;
  factoryChanged_ = false;  // a choice that failed is not retried on every command; a new one is
  try {
    kms::CreatedEngine created = engineFactory_ ? engineFactory_(kind) : kms::createEngine(kind);
    adoptEngine(std::move(created.engine));
    const kms::BackendInfo info = engine_->info();
    emit engineChanged({qs(info.backend), qs(info.device), qs(created.note)});
    return true;
  } catch (const std::exception& e) {
    // The backend asked for cannot run here: say so and keep (or fall back to) the CPU, so the
    // window stays usable.
    emit failed(tr("%1. Staying on the CPU.").arg(qs(e.what())));
    if (engine_) return false;
    adoptEngine(kms::createCpuEngine());
    const kms::BackendInfo info = engine_->info();
    emit engineChanged({qs(info.backend), qs(info.device), tr("CUDA unavailable")});
    return true;
  }
}

void SessionWorker::adoptEngine(std::unique_ptr<kms::Engine> engine) {
  engine_ = std::move(engine);
  engine_->setInterruptFlag(&stop_.flag());
}

bool SessionWorker::finishPendingInit() {
  if (!initPending_) return true;
  initializeRun();
  return initialized_;
}

void SessionWorker::initializeRun() {
  stopRunning(state_);
  finishBackgroundFrame();
  capturePending_ = false;
  ++runId_;
  mailbox_.clear();
  initialized_ = false;
  initPending_ = false;
  starts_.clear();
  startIterations_.clear();
  start_ = 0;
  if (!input_) return;
  setState(SessionState::Preparing);
  try {
    input_->checkK(settings_.config.k);
    kms::KMeansConfig config = settings_.config;
    // One start: every iteration's centroids are kept, to step back and scrub (k·d floats each).
    config.keep_history = settings_.restarts == 1;
    engine_->initialize(config);
  } catch (const kms::Interrupted&) {
    // A command that stops this (new data, settings, reset, closing) is next in the queue;
    // anything else sets the run up again first (finishPendingInit).
    initPending_ = true;
    return;
  } catch (const std::exception& e) {
    fail(qs(e.what()), SessionState::Invalid);
    return;
  }
  initialized_ = true;
  labelPool_->prepare(input_->rows(), 2);
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
  // Starts after the first of a best-of-N run go flat out whatever the pace.
  if (chain != sliceChain_ || !running_ || (pace_ > 0.0 && start_ == 0)) return;
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
  if (stepAndRecord(true) && start_ > 0) {  // the animated start ended: the rest flat out
    paceTimer_->stop();
    queueSlice(++sliceChain_);
  }
}

bool SessionWorker::stepAndRecord(bool forceFrame, bool publish) {
  // The run's clock starts with its first iteration, not when it was set up: time spent
  // waiting for Play is not iteration time.
  if (start_ > 0) return runLaterStarts();
  if (engine_->iteration() == 0) {
    runClock_.start();
    startClock_.start();
  }
  kms::IterationStats stats;
  const int before = engine_->iteration();
  try {
    stats = engine_->step();
  } catch (const kms::Interrupted&) {
    return false;  // the engine is as before the step; the command that stopped it comes next
  } catch (const kms::DeviceError& e) {
    // The GPU is gone for this process (a CUDA error loses the context): say so, and let the
    // window offer the CPU, which gives the same result.
    running_ = false;
    paceTimer_->stop();
    setState(SessionState::Paused);
    emit deviceFailed(
        tr("The GPU failed at iteration %1: %2").arg(engine_->iteration() + 1).arg(qs(e.what())));
    return false;
  } catch (const std::exception& e) {
    fail(
        tr("The engine failed at iteration %1: %2").arg(engine_->iteration() + 1).arg(qs(e.what())),
        SessionState::Paused);
    return false;
  }
  const bool finished = engine_->finished();
  if (engine_->iteration() == before) {
    // No iteration ran: the engine found its run over (a followed run that stopped before its
    // limit). Nothing to record; the newest frame shows where it ended.
    publishFrame();
    if (finished) stopRunning(SessionState::Finished);
    return false;
  }
  if (settings_.restarts > 1)
    startIterations_.push_back({0, start_, stats, double(startClock_.nsecsElapsed()) / 1e6});
  mailbox_.postRecord({runId_, 0, stats, double(runClock_.nsecsElapsed()) / 1e6});
  const bool frameDue =
      mailbox_.frameWanted() && double(frameClock_.nsecsElapsed()) / 1e6 >=
                                    std::max(frameIntervalMs_, kFrameCostRatio * lastFrameCostMs_);
  if (!publish) {
    if (mailbox_.claimWakeUp()) emit deliveryPending();
  } else if (finished || forceFrame) {
    publishFrame();
  } else {
    publishInBackground(frameDue);
    if (mailbox_.claimWakeUp()) emit deliveryPending();
  }
  if (finished && settings_.restarts > 1 && recordFirstStart()) {
    if (!running_) startRunning();  // a Step that ended the first start runs the rest
    return true;
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
  if (snapshot_.labels.capacity() < input_->rows())
    snapshot_.labels = labelPool_->take(input_->rows());
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
  backgroundFrame_ = QtConcurrent::run([this, captured, context = context(), runId = runId_] {
    mailbox_.postFrame(buildFrame(*captured, context, runId, false));
    if (mailbox_.claimWakeUp()) emit deliveryPending();
  });
}

void SessionWorker::finishBackgroundFrame() {
  if (backgroundFrame_.isRunning()) backgroundFrame_.waitForFinished();
}

void SessionWorker::publishFrame() {
  if (!engine_ || !dataset_ || !input_ || !initialized_) return;
  finishBackgroundFrame();  // the newest state must not be overtaken by an older frame
  capturePending_ = false;
  QElapsedTimer cost;
  cost.start();
  if (engine_->iteration() > 0 && snapshot_.labels.capacity() < input_->rows())
    snapshot_.labels = labelPool_->take(input_->rows());
  try {
    engine_->snapshot(snapshot_);
  } catch (const std::exception& e) {
    fail(tr("Could not read the engine's state: %1").arg(qs(e.what())), SessionState::Paused);
    return;
  }
  mailbox_.postFrame(buildFrame(snapshot_, context(), runId_, engine_->finished(), labelPool_));
  viewIteration_ = engine_->iteration();
  viewPhase_ = StepPhase::Whole;
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
