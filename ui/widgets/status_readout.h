// The status bar: backend and device, state, iteration, inertia, points changed, ms per
// iteration and iterations per second. Updated once per delivery, never per iteration.
#pragma once

#include <QObject>

#include "session/session_types.h"

class QLabel;
class QStatusBar;

namespace kms::ui {

class RunHistory;

class StatusReadout : public QObject {
  Q_OBJECT

 public:
  StatusReadout(QStatusBar* bar, const RunHistory& history);

  void setEngine(const session::EngineDescription& engine);
  void setState(session::SessionState state, double pace);
  /// Half-steps and history: says which part of which iteration the views show (nothing for a
  /// whole, newest iteration).
  void showView(const session::Frame& frame);
  void setDatasetSize(std::size_t n);
  void setMaxIterations(int maxIterations);
  /// After a delivery: the newest record's figures and the rate.
  void refresh();
  void clearRun();

  QString backendText() const;
  QString iterationText() const;
  QString rateText() const;

 private:
  QLabel* add(QStatusBar* bar, const QString& tip, int minWidth, bool permanent = true);

  const RunHistory& history_;
  QLabel* state_;
  QLabel* view_;
  QLabel* backend_;
  QLabel* iteration_;
  QLabel* inertia_;
  QLabel* changed_;
  QLabel* ms_;
  QLabel* rate_;
  std::size_t n_ = 0;
  int maxIterations_ = 0;
};

}  // namespace kms::ui
