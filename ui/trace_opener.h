// File ▸ Open Trace…: reads a trace folder (io/trace.h) and compares it with exact Lloyd on the
// window's data (core/trace_compare.h) on the thread pool, then opens a TraceWindow. A bad or
// mismatched trace is a message naming the file and the problem; the window keeps its data.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QPointer>

#include <memory>

#include "core/dataset.h"
#include "trace_window.h"

namespace kms::ui {

class TraceOpener : public QObject {
  Q_OBJECT

 public:
  explicit TraceOpener(QWidget* windowParent);
  ~TraceOpener() override;

  /// Compares the trace in `folder` with exact Lloyd on `data` (points); emits opened() or
  /// failed(). A second call while one is under way replaces it.
  void open(const QString& folder, kms::app::DatasetPtr data);
  bool busy() const { return watcher_.isRunning(); }
  /// The window opened last, while it is open.
  TraceWindow* window() const { return window_; }

 signals:
  void opened(kms::ui::TraceWindow* window);
  void failed(const QString& message);

 private:
  struct Result;
  QWidget* windowParent_;
  QFutureWatcher<std::shared_ptr<Result>> watcher_;
  QPointer<TraceWindow> window_;
};

}  // namespace kms::ui
