#include "session/session_controller.h"

#include "session/frame_builder.h"
#include "session/session_worker.h"

namespace kms::session {

SessionController::SessionController(QObject* parent) : QObject(parent) {
  registerSessionMetaTypes();
  thread_.setObjectName(QStringLiteral("kms-session"));
  worker_ = new SessionWorker(mailbox_, pendingCommands_, stop_);
  worker_->moveToThread(&thread_);
  connect(&thread_, &QThread::finished, worker_, &QObject::deleteLater);

  connect(worker_, &SessionWorker::stateChanged, this, [this](SessionState state) {
    state_ = state;
    emit stateChanged(state);
  });
  connect(worker_, &SessionWorker::engineChanged, this, [this](const EngineDescription& engine) {
    engine_ = engine;
    emit engineChanged(engine);
  });
  connect(worker_, &SessionWorker::deliveryPending, this, &SessionController::deliveryPending);
  connect(worker_, &SessionWorker::failed, this, &SessionController::errorOccurred);
  connect(worker_, &SessionWorker::deviceFailed, this, &SessionController::deviceFailed);
  connect(worker_, &SessionWorker::startProgress, this, &SessionController::startProgress);
  connect(worker_, &SessionWorker::cudaProbed, this,
          [this](bool available, const QString& text, int gpus) {
            cudaAvailable_ = available;
            cudaDescription_ = text;
            loader_.setCompactOnDevice(available && settings_.backend != kms::BackendKind::Cpu);
            emit cudaProbed(available, text, gpus);
          });

  connect(&loader_, &DatasetLoader::started, this, &SessionController::loadStarted);
  connect(&loader_, &DatasetLoader::progress, this, &SessionController::loadProgress);
  connect(&loader_, &DatasetLoader::loaded, this,
          [this](const LoadedData& data, const QString& origin) {
            adopt(data, origin);
            emit loadFinished();
          });
  connect(&loader_, &DatasetLoader::failed, this,
          [this](const QString& origin, const QString& message) {
            pendingK_.reset();
            emit loadFailed(origin, message);
          });
  connect(&loader_, &DatasetLoader::cancelled, this, [this](const QString& origin) {
    pendingK_.reset();
    emit loadCancelled(origin);
  });
  thread_.start();
  command([w = worker_] { w->probeCuda(); });
}

SessionController::~SessionController() {
  shutdown();
}

template <typename F>
void SessionController::command(F&& f) {
  if (shutDown_) return;
  // Raised before queueing so a running slice on the worker ends at its next iteration; the
  // worker lowers it when the command runs.
  pendingCommands_.fetch_add(1, std::memory_order_acq_rel);
  QMetaObject::invokeMethod(worker_, std::forward<F>(f), Qt::QueuedConnection);
}

template <typename F>
void SessionController::stoppingCommand(F&& f) {
  if (shutDown_) return;
  stop_.raise();
  command([stop = &stop_, f = std::forward<F>(f)]() mutable {
    stop->lower();
    f();
  });
}

void SessionController::openFile(const QString& path, std::optional<int> k) {
  if (shutDown_) return;
  pendingK_ = k;
  loader_.loadFile(path);
}

void SessionController::generate(const kms::app::GeneratorParams& params, std::optional<int> k) {
  if (shutDown_) return;
  pendingK_ = k;
  loader_.generate(params);
}

void SessionController::setDataset(kms::app::DatasetPtr dataset, std::optional<int> k) {
  if (shutDown_ || !dataset) return;
  loader_.cancel();
  pendingK_ = k;
  adopt({dataset, kms::session::originalImage(*dataset)}, dataset->source);
}

void SessionController::cancelLoad() {
  loader_.cancel();
}

void SessionController::adopt(const LoadedData& data, const QString& origin) {
  dataset_ = data.dataset;
  original_ = data.original;
  const int before = settings_.config.k;
  if (pendingK_) settings_.config.k = *pendingK_;
  pendingK_.reset();
  // k cannot exceed the number of rows: a tiny file or a picture of few colours gets k = n
  // rather than an error, and is told why.
  QString lowered;
  if (std::size_t(settings_.config.k) > dataset_->n) {
    const int wanted = settings_.config.k;
    settings_.config.k = int(dataset_->n);
    const QString what = dataset_->isImage()
                             ? (dataset_->isCompact() ? tr("distinct colours") : tr("pixels"))
                             : tr("points");
    lowered = tr("%1 has only %2 %3, so k = %4 became k = %2.")
                  .arg(dataset_->displayName)
                  .arg(dataset_->n)
                  .arg(what)
                  .arg(wanted);
  }
  if (settings_.config.k != before) emit settingsChanged(settings_);
  // Queued before anyone hears of the new data, so commands they send in response (settings,
  // play) reach the worker after it has the data.
  stoppingCommand([w = worker_, d = dataset_, s = settings_] { w->setDataset(d, s); });
  emit datasetChanged(dataset_, origin);
  if (!lowered.isEmpty()) emit notice(lowered);
}

void SessionController::setSettings(const RunSettings& settings) {
  settings_ = settings;
  loader_.setCompactOnDevice(cudaAvailable_ && settings_.backend != kms::BackendKind::Cpu);
  emit settingsChanged(settings_);
  stoppingCommand([w = worker_, s = settings] { w->applySettings(s); });
}

void SessionController::showStart(int start) {
  command([w = worker_, start] { w->showStart(start); });
}

void SessionController::play() {
  command([w = worker_] { w->play(); });
}

void SessionController::pause() {
  // Only a running iteration is stopped: a pause while the run is being set up lets it finish.
  if (state_ == SessionState::Running)
    stoppingCommand([w = worker_] { w->pause(); });
  else
    command([w = worker_] { w->pause(); });
}

void SessionController::togglePlay() {
  if (state_ == SessionState::Running)
    pause();
  else
    play();
}

void SessionController::step() {
  command([w = worker_] { w->stepOnce(); });
}

void SessionController::stepHalf() {
  command([w = worker_] { w->stepHalf(); });
}

void SessionController::stepBack() {
  command([w = worker_] { w->stepBack(); });
}

void SessionController::showIteration(int iteration) {
  command([w = worker_, iteration] { w->showIteration(iteration); });
}

void SessionController::setEngineFactory(EngineFactory factory) {
  command([w = worker_, f = std::move(factory)] { w->setEngineFactory(f); });
}

void SessionController::reset() {
  stoppingCommand([w = worker_] { w->reset(); });
}

void SessionController::setPace(double iterationsPerSecond) {
  pace_ = iterationsPerSecond;
  command([w = worker_, p = iterationsPerSecond] { w->setPace(p); });
}

void SessionController::setFrameInterval(double ms) {
  command([w = worker_, ms] { w->setFrameInterval(ms); });
}

void SessionController::shutdown() {
  if (shutDown_) return;
  shutDown_ = true;
  loader_.cancel();  // a decode in flight finishes on the pool and its result is dropped
  // Ends a running slice at its next iteration, and an iteration or initialisation in progress
  // within one chunk (CPU; a CUDA step takes milliseconds); quit() then ends the event loop and
  // the worker (with its engine) is deleted on its own thread.
  stop_.raise();
  pendingCommands_.fetch_add(1, std::memory_order_acq_rel);
  thread_.quit();
  thread_.wait();
  worker_ = nullptr;
  mailbox_.clear();
}

}  // namespace kms::session
