// Every iteration record of the current run, as the GUI received them (in batches). Feeds the
// status bar's rate, the run report and any chart that needs to redraw from scratch.
#pragma once

#include <QObject>

#include <vector>

#include "session/session_types.h"

namespace kms::ui {

class RunHistory : public QObject {
  Q_OBJECT

 public:
  using QObject::QObject;

  /// Starts a new run when `runId` differs from the current one (emits runStarted first).
  void observeRun(std::uint64_t runId);
  /// Appends records (any that belong to a new run start it).
  void append(const std::vector<session::IterationRecord>& records);

  std::uint64_t runId() const { return runId_; }
  const std::vector<session::IterationRecord>& records() const { return records_; }
  bool empty() const { return records_.empty(); }
  /// Iterations per second over the last second of worker time (0 with fewer than 2 records).
  double iterationsPerSecond() const;
  /// Median of the last `window` iterations' stage totals, in ms.
  double recentMedianMs(std::size_t window = 15) const;

 signals:
  void runStarted(std::uint64_t runId);

 private:
  std::uint64_t runId_ = 0;
  std::vector<session::IterationRecord> records_;
};

/// Sum of every stage of one iteration, including the copy-out.
double totalMs(const kms::IterationStats& stats);

}  // namespace kms::ui
