#include "data/frame_pump.h"

#include <QGuiApplication>
#include <QScreen>

#include <algorithm>
#include <cmath>

#include "session/session_controller.h"

namespace kms::ui {

FramePump::FramePump(session::SessionController& session, QObject* parent)
    : QObject(parent), session_(session), intervalMs_(screenFrameIntervalMs()) {
  timer_.setSingleShot(true);
  timer_.setTimerType(Qt::PreciseTimer);
  connect(&timer_, &QTimer::timeout, this, &FramePump::deliver);
  connect(&session_, &session::SessionController::deliveryPending, this, &FramePump::schedule);
  session_.setFrameInterval(intervalMs_);
}

double FramePump::screenFrameIntervalMs() {
  const QScreen* screen = QGuiApplication::primaryScreen();
  const double hz = screen ? screen->refreshRate() : 60.0;
  return 1000.0 / std::clamp(std::isfinite(hz) && hz > 1.0 ? hz : 60.0, 20.0, 240.0);
}

void FramePump::schedule() {
  if (timer_.isActive()) return;
  const double since = sinceLast_.isValid() ? double(sinceLast_.nsecsElapsed()) / 1e6 : 1e9;
  timer_.start(int(std::max(0.0, std::ceil(intervalMs_ - since))));
}

void FramePump::deliver() {
  sinceLast_.start();
  session::FrameMailbox::Delivery delivery = session_.mailbox().take();
  if (delivery.empty()) return;
  ++deliveries_;
  if (!delivery.records.empty()) emit recordsArrived(delivery.records);
  if (delivery.frame) emit frameArrived(delivery.frame);
  emit delivered();
}

}  // namespace kms::ui
