#include "session/dataset_loader.h"

#include <QFileInfo>
#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <new>

#include "io/load.h"
#include "session/frame_builder.h"

namespace kms::session {

struct DatasetLoader::Job {
  QString origin;  // file path or generator description: what errors name
  std::atomic<bool> cancel{false};
  std::atomic<int> permille{0};
};

struct DatasetLoader::Result {
  LoadedData data;
  QString error;
  bool cancelled = false;
};

DatasetLoader::DatasetLoader(QObject* parent) : QObject(parent) {
  qRegisterMetaType<LoadedData>();
  progressPoll_.setInterval(50);
  connect(&progressPoll_, &QTimer::timeout, this, [this] {
    if (job_) emit progress(job_->permille.load(std::memory_order_relaxed) / 1000.0);
  });
}

DatasetLoader::~DatasetLoader() {
  cancel();
}

void DatasetLoader::loadFile(const QString& path) {
  start(path, [path, onDevice = compactOnDevice_](Job& job) {
    kms::app::LoadOptions options;
    options.compactOnDevice = onDevice;
    options.cancel = &job.cancel;
    options.progress = [&job](double f) {
      job.permille.store(int(std::clamp(f, 0.0, 1.0) * 1000.0), std::memory_order_relaxed);
    };
    return kms::app::loadDataset(path, options);
  });
}

void DatasetLoader::generate(const kms::app::GeneratorParams& params) {
  const QString what =
      tr("generated %1 (%2 points)").arg(kms::app::toString(params.kind)).arg(qulonglong(params.n));
  start(what, [params](Job&) { return kms::app::generateDataset(params); });
}

void DatasetLoader::start(const QString& what, std::function<kms::app::DatasetPtr(Job&)> work) {
  cancel();  // the previous job's result, if it still comes, is dropped by finish()
  auto job = std::make_shared<Job>();
  job->origin = what;
  job_ = job;
  watcher_ = new QFutureWatcher<std::shared_ptr<Result>>(this);
  auto* watcher = watcher_;
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher] { finish(watcher); });
  watcher_->setFuture(QtConcurrent::run([job, work = std::move(work)] {
    auto result = std::make_shared<Result>();
    try {
      result->data.dataset = work(*job);
      if (result->data.dataset) result->data.original = originalImage(*result->data.dataset);
    } catch (const kms::app::LoadError& e) {
      result->error = e.message();
    } catch (const std::bad_alloc&) {
      result->error = tr("%1: not enough memory to load this data").arg(job->origin);
    } catch (const std::exception& e) {
      result->error = tr("%1: %2").arg(job->origin, QString::fromUtf8(e.what()));
    }
    result->cancelled = job->cancel.load();
    return result;
  }));
  progressPoll_.start();
  emit started(what);
}

void DatasetLoader::finish(QFutureWatcher<std::shared_ptr<Result>>* watcher) {
  watcher->deleteLater();
  if (watcher != watcher_) return;  // an older, cancelled job
  watcher_ = nullptr;
  const auto job = std::exchange(job_, nullptr);
  progressPoll_.stop();
  const std::shared_ptr<Result> result = watcher->result();
  if (result->cancelled) return;  // cancel() already said so
  if (result->data.dataset) {
    emit progress(1.0);
    emit loaded(result->data, job->origin);
  } else {
    emit failed(job->origin, result->error.isEmpty()
                                 ? tr("%1: could not be loaded").arg(job->origin)
                                 : result->error);
  }
}

void DatasetLoader::cancel() {
  if (!job_) return;
  job_->cancel.store(true);
  const QString origin = job_->origin;
  job_.reset();
  watcher_ = nullptr;  // its finished() is ignored; it deletes itself then
  progressPoll_.stop();
  emit cancelled(origin);
}

}  // namespace kms::session
