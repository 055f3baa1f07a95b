// Loads a file or runs a generator on the thread pool, so the GUI thread never waits on disk or
// on parsing. One job at a time: a new request cancels the one in flight (its result is
// dropped). Progress is polled from an atomic rather than signalled per call, so a chatty loader
// cannot flood the GUI's event queue.
#pragma once

#include <QFutureWatcher>
#include <QImage>
#include <QObject>
#include <QString>
#include <QTimer>

#include <atomic>
#include <memory>

#include "core/dataset.h"
#include "io/generators.h"

namespace kms::session {

/// What a finished job hands over: the data set and, for images, its picture (built on the
/// pool too, so a 16-megapixel photo costs the GUI thread nothing).
struct LoadedData {
  kms::app::DatasetPtr dataset;
  QImage original;
};

class DatasetLoader : public QObject {
  Q_OBJECT

 public:
  explicit DatasetLoader(QObject* parent = nullptr);
  /// Cancels without waiting: a job still decoding holds only its own shared state, so the
  /// window can close at once (the pool finishes it on its own and drops the result).
  ~DatasetLoader() override;

  void loadFile(const QString& path);
  /// Whether pictures are compacted on the GPU (when one answers; the result is the same).
  void setCompactOnDevice(bool onDevice) { compactOnDevice_ = onDevice; }
  void generate(const kms::app::GeneratorParams& params);
  /// Stops the job in flight (the loaders check the flag now and then); emits cancelled().
  void cancel();
  bool busy() const { return job_ != nullptr; }

 signals:
  void started(const QString& what);
  void progress(double fraction);
  void loaded(const kms::session::LoadedData& data, const QString& origin);
  void failed(const QString& origin, const QString& message);
  void cancelled(const QString& origin);

 private:
  struct Job;
  struct Result;
  void start(const QString& what, std::function<kms::app::DatasetPtr(Job&)> work);
  void finish(QFutureWatcher<std::shared_ptr<Result>>* watcher);

  std::shared_ptr<Job> job_;
  bool compactOnDevice_ = false;
  QFutureWatcher<std::shared_ptr<Result>>* watcher_ = nullptr;
  QTimer progressPoll_;
};

}  // namespace kms::session

Q_DECLARE_METATYPE(kms::session::LoadedData)
