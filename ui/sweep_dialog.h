// "Which k?": the current data clustered for every k in a range (best of R starts each) on the
// thread pool, with progress and Cancel; inertia with its elbow and the silhouette plotted, all
// four measures in a table. Choosing a row sets k. (kmeans-cli --sweep does the same headless;
// both use app/core/sweep.)
#pragma once

#include <QDialog>
#include <QFutureWatcher>

#include <atomic>

#include "core/sweep.h"
#include "session/session_types.h"

class QCustomPlot;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace kms::ui {

class SweepDialog : public QDialog {
  Q_OBJECT

 public:
  /// Sweeps `dataset` with `settings` (backend, colour space, compaction, init, seed, limits).
  SweepDialog(kms::app::DatasetPtr dataset, const session::RunSettings& settings,
              QWidget* parent = nullptr);
  ~SweepDialog() override;

  void setRange(int from, int to, int restarts);
  /// Starts the sweep (the Run button).
  void start();
  /// Asks a running sweep to stop after the start in progress (the Cancel button).
  void cancel();
  bool running() const { return watcher_.isRunning(); }
  const kms::app::SweepResult& result() const { return result_; }
  QTableWidget* table() const { return table_; }

 signals:
  /// The user chose k from the sweep (double-click or "Use this k").
  void kChosen(int k);
  void finished();

 private:
  void showResult();

  kms::app::DatasetPtr dataset_;
  session::RunSettings settings_;
  QSpinBox* from_;
  QSpinBox* to_;
  QSpinBox* restarts_;
  QPushButton* run_;
  QPushButton* use_;
  QProgressBar* progress_;
  QLabel* summary_;
  QCustomPlot* plot_;
  QTableWidget* table_;
  QFutureWatcher<kms::app::SweepResult> watcher_;
  std::atomic<bool> cancel_{false};
  kms::app::SweepResult result_;
  QString error_;
};

}  // namespace kms::ui
