#include "trace_opener.h"

#include <QDir>
#include <QFileInfo>
#include <QtConcurrent/QtConcurrentRun>

#include "core/trace_compare.h"
#include "io/trace.h"
#include "trace_window.h"

namespace kms::ui {

struct TraceOpener::Result {
  kms::app::DatasetPtr data;
  kms::app::RunTrace trace;
  kms::app::TraceComparison comparison;
  QString name;
  QString error;
};

TraceOpener::TraceOpener(QWidget* windowParent)
    : QObject(windowParent), windowParent_(windowParent) {
  connect(&watcher_, &QFutureWatcherBase::finished, this, [this] {
    const std::shared_ptr<Result> r = watcher_.result();
    if (!r) return;
    if (!r->error.isEmpty()) {
      emit failed(r->error);
      return;
    }
    auto* window = new TraceWindow(r->data, std::move(r->trace), std::move(r->comparison), r->name,
                                   windowParent_);
    window_ = window;
    window->show();
    emit opened(window);
  });
}

TraceOpener::~TraceOpener() {
  watcher_.waitForFinished();
}

void TraceOpener::open(const QString& folder, kms::app::DatasetPtr data) {
  const QString name = QFileInfo(QDir::cleanPath(folder)).fileName();
  if (!data || data->isImage()) {
    emit failed(tr("%1: a trace is compared with a point set; open the points the run clustered "
                   "first")
                    .arg(name));
    return;
  }
  watcher_.setFuture(QtConcurrent::run([folder, name, data]() {
    auto r = std::make_shared<Result>();
    r->data = data;
    r->name = name;
    try {
      r->trace = kms::app::readTrace(folder);
      kms::app::CompareOptions options;
      options.keepRuns = true;
      r->comparison = kms::app::compareTrace(*data, r->trace, name, options);
    } catch (const kms::app::LoadError& e) {
      r->error = e.message();
    } catch (const std::exception& e) {
      r->error = QStringLiteral("%1: %2").arg(name, QString::fromUtf8(e.what()));
    }
    return r;
  }));
}

}  // namespace kms::ui
