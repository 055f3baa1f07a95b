// The GPU failing mid-run (a CUDA error, injected with a stand-in engine): the run pauses with
// the message, nothing hangs, and switching to the CPU runs it again to the same result.
#include <QSignalSpy>

#include <gtest/gtest.h>

#include "failing_gpu_engine.h"
#include "session/session_controller.h"
#include "ui_test_support.h"

using kms::session::RunSettings;
using kms::session::SessionController;
using kms::session::SessionState;
using kms::test::waitFor;

namespace {

double finalInertiaOnTheCpu(const kms::app::DatasetPtr& data, const kms::KMeansConfig& config) {
  auto engine = kms::createCpuEngine();
  engine->setData(kms::DataView{data->values.data(), data->n, data->d});
  engine->initialize(config);
  return engine->run().inertia;
}

TEST(DeviceFaults, AGpuFailureMidRunPausesWithTheMessageAndTheCpuTakesOver) {
  SessionController session;
  session.setEngineFactory(
      [](kms::BackendKind kind) { return kms::test::failingGpuFactory(kind, 4); });
  RunSettings s;
  s.config.k = 6;
  s.config.max_iterations = 30;
  s.config.tolerance = 0;
  s.backend = kms::BackendKind::Cuda;
  session.setSettings(s);
  const auto data = kms::test::uniform(5000);
  session.setDataset(data);
  ASSERT_TRUE(waitFor([&] { return session.state() == SessionState::Ready; }));
  EXPECT_EQ(session.engine().backend, QStringLiteral("cuda"));

  QSignalSpy deviceFailed(&session, &SessionController::deviceFailed);
  double lastInertia = 0.0;
  int lastIteration = 0;
  QObject context;
  QObject::connect(&session, &SessionController::deliveryPending, &context, [&] {
    for (const auto& record : session.mailbox().take().records) {
      lastInertia = record.stats.inertia;
      lastIteration = record.stats.iteration;
    }
  });
  session.mailbox().take();
  session.play();
  ASSERT_TRUE(waitFor([&] { return deviceFailed.count() == 1; }));
  const QString message = deviceFailed.first().first().toString();
  EXPECT_TRUE(message.startsWith(QStringLiteral("The GPU failed at iteration 4: ")))
      << message.toStdString();
  EXPECT_TRUE(message.contains(QStringLiteral("unspecified launch failure")));
  EXPECT_TRUE(waitFor([&] { return session.state() == SessionState::Paused; }));
  EXPECT_EQ(lastIteration, 3);

  // Play again on the broken GPU: the same message, still no hang.
  session.play();
  ASSERT_TRUE(waitFor([&] { return deviceFailed.count() == 2; }));

  // On request, the CPU: the run starts again there and ends as a CPU run does.
  s.backend = kms::BackendKind::Cpu;
  session.setSettings(s);
  ASSERT_TRUE(waitFor([&] { return session.state() == SessionState::Ready; }));
  EXPECT_EQ(session.engine().backend, QStringLiteral("cpu"));
  session.play();
  ASSERT_TRUE(waitFor([&] { return session.state() == SessionState::Finished; }));
  waitFor([&] { return lastIteration == 30; }, 2000);
  EXPECT_EQ(lastIteration, 30);
  EXPECT_EQ(lastInertia, finalInertiaOnTheCpu(data, s.config));
}

}  // namespace
