// StopRequest: the flag stays raised until the last command that raised it has run, and a
// CPU engine step running on another thread stops when it is raised (ThreadSanitizer stage).
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "kmeans/backend.h"
#include "kmeans/errors.h"
#include "session/stop_request.h"

namespace kms::session {
namespace {

TEST(StopRequest, StaysRaisedUntilTheLastRaiseIsLowered) {
  StopRequest stop;
  EXPECT_FALSE(stop.flag().load());
  stop.raise();
  stop.raise();
  stop.lower();
  EXPECT_TRUE(stop.flag().load()) << "a second command is still on its way";
  stop.lower();
  EXPECT_FALSE(stop.flag().load());
  stop.lower();  // more lowers than raises change nothing
  EXPECT_FALSE(stop.flag().load());
}

TEST(StopRequest, RaisesAndLowersFromTwoThreadsBalanceOut) {
  StopRequest stop;
  const auto commands = [&] {
    for (int i = 0; i < 5000; ++i) {
      stop.raise();
      stop.lower();
    }
  };
  std::thread other(commands);
  commands();
  other.join();
  EXPECT_FALSE(stop.flag().load());
}

TEST(StopRequest, StopsACpuStepRunningOnAnotherThread) {
  std::vector<float> points(400000 * 3);
  for (std::size_t i = 0; i < points.size(); ++i)
    points[i] = float((i * 2654435761u) % 1000) / 1000.0f;
  auto engine = createCpuEngine(2);
  StopRequest stop;
  engine->setInterruptFlag(&stop.flag());
  engine->setData(DataView{points.data(), points.size() / 3, 3});
  KMeansConfig config;
  config.k = 64;
  config.init = InitMethod::Random;
  engine->initialize(config);
  bool interrupted = false;
  stop.raise();  // before the step: it cannot finish first
  std::thread worker([&] {
    try {
      engine->step();
    } catch (const Interrupted&) {
      interrupted = true;
    }
  });
  worker.join();
  stop.lower();
  EXPECT_TRUE(interrupted);
  EXPECT_EQ(engine->iteration(), 0);
  EXPECT_EQ(engine->step().iteration, 1) << "the step runs once the flag is down";
}

}  // namespace
}  // namespace kms::session
