// Best of N (Engine::runStarts) on the CPU backend: every start as it runs alone, the observer,
// bad start numbers, the choice of the best start and the rule that ended a run.
#include <gtest/gtest.h>

#include <vector>

#include "kmeans/backend.h"
#include "kmeans/errors.h"
#include "support/compact_data.h"
#include "support/reference_kmeans.h"
#include "support/starts_check.h"

namespace kms {
namespace {

using test::upTo;

TEST(RunStarts, EveryStartAsItRunsAlone) {
  const auto points = test::blobPoints(3000, 3, 6, 5, 4.0f, 1.2f);
  const DataView view{points.data(), points.size() / 3, 3};
  auto batched = createCpuEngine(2);
  auto alone = createCpuEngine(1);
  batched->setData(view);
  alone->setData(view);
  KMeansConfig config;
  config.k = 9;
  config.seed = 40;
  for (const std::vector<int>& starts : {upTo(5), std::vector<int>{7, 2, 4}}) {
    const auto outcomes = batched->runStarts(config, starts);
    test::expectOutcomesMatchAlone(outcomes, starts, *alone, config, true);
  }
}

TEST(RunStarts, CountedRowsAsTheyRunAlone) {
  // Photo-like: few levels per channel, so rows repeat and the data go in with counts.
  const auto expanded = test::levelPoints(20000, 3, 9, 12);
  const test::CompactData data = test::compactOf(expanded, 3);
  auto batched = createCpuEngine(0);
  auto alone = createCpuEngine(0);
  batched->setData(data.view());
  alone->setData(data.view());
  KMeansConfig config;
  config.k = 12;
  const auto starts = upTo(4);
  const auto outcomes = batched->runStarts(config, starts);
  test::expectOutcomesMatchAlone(outcomes, starts, *alone, config, true);
  // Afterwards the engine takes a new run as usual.
  batched->initialize(config);
  EXPECT_GT(batched->step().inertia, 0.0);
}

TEST(RunStarts, ObserverHearsEachStartAndCanStopTheRun) {
  const auto points = test::uniformPoints(2000, 2, 3);
  auto engine = createCpuEngine(0);
  engine->setData(DataView{points.data(), 1000, 2});
  KMeansConfig config;
  config.k = 5;
  std::vector<int> told;
  const auto outcomes = engine->runStarts(config, upTo(3), [&](const StartOutcome& o) {
    told.push_back(o.start);
    EXPECT_FALSE(o.iterations.empty());
    return true;
  });
  EXPECT_EQ(told, (std::vector<int>{0, 1, 2}));
  told.clear();
  EXPECT_THROW(engine->runStarts(config, upTo(6),
                                 [&](const StartOutcome& o) {
                                   told.push_back(o.start);
                                   return told.size() < 2;
                                 }),
               Interrupted);
  EXPECT_EQ(told.size(), 2u);  // no start is told after the observer said stop
  // The engine is usable again.
  engine->initialize(config);
  engine->run();
  EXPECT_TRUE(engine->finished());
}

TEST(RunStarts, InterruptFlagStopsTheRun) {
  const auto points = test::uniformPoints(4000, 2, 8);
  auto engine = createCpuEngine(0);
  engine->setData(DataView{points.data(), 2000, 2});
  std::atomic<bool> flag{true};
  engine->setInterruptFlag(&flag);
  KMeansConfig config;
  config.k = 4;
  EXPECT_THROW(engine->runStarts(config, upTo(3)), Interrupted);
  engine->setInterruptFlag(nullptr);
}

TEST(RunStarts, BadStartsAndConfigsAreRejectedBeforeAnyRuns) {
  const auto points = test::uniformPoints(200, 2, 1);
  auto engine = createCpuEngine(0);
  engine->setData(DataView{points.data(), 100, 2});
  KMeansConfig config;
  config.k = 3;
  EXPECT_THROW(engine->runStarts(config, {0, -1}), InvalidArgument);
  config.k = 500;  // more clusters than points
  int told = 0;
  EXPECT_THROW(engine->runStarts(config, upTo(2), [&](const StartOutcome&) { return ++told > 0; }),
               InvalidArgument);
  EXPECT_EQ(told, 0);
  config.k = 3;
  EXPECT_TRUE(engine->runStarts(config, {}).empty());
}

TEST(RunStarts, BestIsTheLowestInertiaTiesToTheLowerStart) {
  std::vector<StartOutcome> outcomes(3);
  for (int i = 0; i < 3; ++i) {
    outcomes[std::size_t(i)].start = 5 - i;  // told out of order
    outcomes[std::size_t(i)].iterations.resize(1);
  }
  outcomes[0].iterations[0].inertia = 2.0;  // start 5
  outcomes[1].iterations[0].inertia = 1.0;  // start 4
  outcomes[2].iterations[0].inertia = 1.0;  // start 3: as low, lower number
  EXPECT_EQ(bestOutcome(outcomes), 2);
  EXPECT_EQ(bestOutcome({}), -1);
}

TEST(StopRules, SayWhichTestEndedTheRun) {
  IterationStats s;
  s.converged = false;
  EXPECT_EQ(stopRuleOf(s, false, 1000, 1e-2), StopRule::Running);
  EXPECT_EQ(stopRuleOf(s, true, 1000, 1e-2), StopRule::IterationLimit);
  s.converged = true;
  s.changed = 0;
  EXPECT_EQ(stopRuleOf(s, true, 1000, 1e-2), StopRule::NoChange);
  s.changed = 9;  // < 1 % of 1000
  EXPECT_EQ(stopRuleOf(s, true, 1000, 1e-2), StopRule::FewChanged);
  s.changed = 10;  // not below it: the centroids' shift passed
  EXPECT_EQ(stopRuleOf(s, true, 1000, 1e-2), StopRule::SmallShift);
  EXPECT_EQ(toString(StopRule::FewChanged), "few-changed");
  EXPECT_FALSE(describe(StopRule::IterationLimit).empty());
}

TEST(StopRules, EngineReportsTheRuleOfItsRun) {
  const auto points = test::blobPoints(2000, 2, 4, 2, 8.0f, 0.5f);
  auto engine = createCpuEngine(0);
  engine->setData(DataView{points.data(), 1000, 2});
  KMeansConfig config;
  config.k = 4;
  config.tolerance = 0;
  engine->initialize(config);
  EXPECT_EQ(engine->stopRule(1000), StopRule::Running);
  engine->run();
  EXPECT_EQ(engine->stopRule(1000), StopRule::NoChange);
  config.max_iterations = 1;
  engine->initialize(config);
  engine->step();
  EXPECT_EQ(engine->stopRule(1000), StopRule::IterationLimit);
}

}  // namespace
}  // namespace kms
