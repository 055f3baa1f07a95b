// Moves what the worker posted into the GUI at most once per screen refresh.
//
// The worker sends one wake-up per batch (FrameMailbox::claimWakeUp); the pump answers it on a
// single-shot timer placed at least one refresh interval after its previous delivery, takes the
// newest frame and every pending record in one go and hands them to the views, which repaint
// once. So however fast the engine runs, the GUI does one delivery per screen frame, and when
// the engine is idle the pump does nothing at all.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>

#include <vector>

#include "session/session_types.h"

namespace kms::session {
class SessionController;
}

namespace kms::ui {

class FramePump : public QObject {
  Q_OBJECT

 public:
  explicit FramePump(session::SessionController& session, QObject* parent = nullptr);

  /// The refresh interval of the primary screen, in ms (60 Hz when unknown).
  static double screenFrameIntervalMs();
  double intervalMs() const { return intervalMs_; }
  /// Deliveries made (tests).
  std::uint64_t deliveries() const { return deliveries_; }

 signals:
  /// Records first (charts, status), then the newest frame if one came (views).
  void recordsArrived(const std::vector<kms::session::IterationRecord>& records);
  void frameArrived(const kms::session::FramePtr& frame);
  /// After both: a good moment to replot.
  void delivered();

 private:
  void schedule();
  void deliver();

  session::SessionController& session_;
  QTimer timer_;
  QElapsedTimer sinceLast_;
  double intervalMs_;
  std::uint64_t deliveries_ = 0;
};

}  // namespace kms::ui
