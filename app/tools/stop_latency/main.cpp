// kms-stop-latency: how long Pause, Reset and closing take while one CPU iteration takes
// seconds. Drives the same SessionController the window uses (headless), on a file clustered
// per item (no compaction), and prints each latency:
//   kms-stop-latency FILE [K] [SECONDS_RUNNING]
// Pause: from pause() until the worker reports Paused. Reset: from reset() until it reports
// Preparing (the run stopped, a new one being set up), and until Ready (random initial
// centroids, so seeding is short; the first frame of the new run built). Close: shutdown(), which
// the window's close runs, until the worker thread has ended.
#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>

#include <cstdio>

#include "session/session_controller.h"

using kms::session::SessionController;
using kms::session::SessionState;

namespace {

/// Runs the event loop until the session reports `wanted` (or `timeoutMs` pass); returns the
/// milliseconds waited, or -1 on timeout.
double waitFor(SessionController& session, SessionState wanted, int timeoutMs = 600000) {
  QElapsedTimer clock;
  clock.start();
  if (session.state() == wanted) return 0.0;
  QEventLoop loop;
  QObject::connect(&session, &SessionController::stateChanged, &loop, [&](SessionState state) {
    if (state == wanted) loop.quit();
  });
  QObject::connect(&session, &SessionController::errorOccurred, &loop, [&](const QString& m) {
    std::fprintf(stderr, "error: %s\n", m.toUtf8().constData());
    loop.quit();
  });
  QTimer::singleShot(timeoutMs, &loop, &QEventLoop::quit);
  loop.exec();
  return session.state() == wanted ? double(clock.nsecsElapsed()) / 1e6 : -1.0;
}

void runFor(int ms) {
  QEventLoop loop;
  QTimer::singleShot(ms, &loop, &QEventLoop::quit);
  loop.exec();
}

}  // namespace

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  const QStringList args = app.arguments();
  if (args.size() < 2) {
    std::fprintf(stderr, "usage: kms-stop-latency FILE [K] [SECONDS_RUNNING]\n");
    return 1;
  }
  const int k = args.size() > 2 ? args[2].toInt() : 256;
  const int runningMs = int((args.size() > 3 ? args[3].toDouble() : 3.0) * 1000.0);

  SessionController session;
  kms::session::RunSettings settings = session.settings();
  settings.backend = kms::BackendKind::Cpu;
  settings.config.k = k;
  settings.config.init = kms::InitMethod::Random;
  settings.clustering.compaction = kms::app::Compaction::Never;
  session.setSettings(settings);
  if (qEnvironmentVariableIsSet("KMS_TRACE_STATES"))
    QObject::connect(&session, &SessionController::stateChanged, [](SessionState state) {
      std::printf("  state: %s\n", kms::session::toDisplayString(state).toUtf8().constData());
    });
  QElapsedTimer clock;
  clock.start();
  session.openFile(args[1], k);
  if (waitFor(session, SessionState::Ready) < 0) return 2;
  std::printf("loaded and set up in %.0f ms (%s, k = %d, every item on its own, CPU)\n",
              double(clock.nsecsElapsed()) / 1e6, args[1].toUtf8().constData(), k);

  // Iteration times, from the records the worker posts (as the window's charts read them).
  double lastIterationMs = 0.0;
  int iterations = 0;
  QObject::connect(&session, &SessionController::deliveryPending, [&] {
    for (const kms::session::IterationRecord& record : session.mailbox().take().records) {
      lastIterationMs = record.stats.ms.computeMs();
      ++iterations;
    }
  });
  session.mailbox().take();  // the set-up's frame: later ones wake the handler above again
  const auto measure = [&](const char* what, auto stop, SessionState until) {
    iterations = 0;
    session.play();
    runFor(runningMs);
    clock.restart();
    stop();
    const double ms = until == SessionState::NoData ? double(clock.nsecsElapsed()) / 1e6
                                                    : waitFor(session, until);
    std::printf("%-6s after %.1f s running (%d iterations, the last took %.0f ms): %.1f ms\n", what,
                runningMs / 1000.0, iterations, lastIterationMs, ms);
    return ms;
  };
  const double pauseMs = measure(
      "pause", [&] { session.pause(); }, SessionState::Paused);
  // Reset goes through Preparing (new random centroids) to Ready.
  const double resetMs = measure(
      "reset", [&] { session.reset(); }, SessionState::Preparing);
  const double readyMs = resetMs + waitFor(session, SessionState::Ready);
  std::printf("       the reset run's iteration 0 built and posted (Ready): %.1f ms\n", readyMs);
  // Closing the window runs shutdown(): it returns once the worker thread has ended.
  const double closeMs = measure(
      "close", [&] { session.shutdown(); }, SessionState::NoData);
  return pauseMs >= 0 && resetMs >= 0 && closeMs >= 0 ? 0 : 2;
}
