// FollowedRunEngine: a run written to a live report by another process, followed as an engine —
// iterations as they arrive, the labels those iterations assigned, the wait interruptible.
#include <gtest/gtest.h>

#include <QTemporaryDir>

#include <atomic>
#include <chrono>
#include <thread>

#include "io/live_report.h"
#include "kmeans/backend.h"
#include "kmeans/errors.h"
#include "session/followed_run_engine.h"
#include "support/reference_kmeans.h"

namespace kms::session {
namespace {

struct WrittenRun {
  std::vector<float> points;
  int d = 2;
  KMeansConfig config;
  std::vector<kms::Snapshot> iterations;  ///< 0 … t, with labels
};

WrittenRun referenceRun() {
  WrittenRun run;
  run.points = kms::test::blobPoints(12000, run.d, 5, 17, 3.0f, 1.4f);
  run.config.k = 5;
  run.config.keep_history = true;
  auto engine = kms::createCpuEngine(2);
  engine->setData({run.points.data(), run.points.size() / 2, run.d});
  engine->initialize(run.config);
  engine->run();
  for (int t = 0; t <= engine->iteration(); ++t) {
    kms::Snapshot s;
    engine->snapshotAt(t, s);
    run.iterations.push_back(s);
  }
  return run;
}

app::LiveRunHeader headerOf(const WrittenRun& run) {
  app::LiveRunHeader h;
  h.input = QStringLiteral("/data/points.npy");
  h.n = run.points.size() / 2;
  h.d = run.d;
  h.k = run.config.k;
  h.ranks = 3;
  h.backend = QStringLiteral("cpu");
  h.device = QStringLiteral("CPU, 1 thread a rank, 3 ranks");
  h.config = run.config;
  h.centroids = run.iterations[0].centroids;
  return h;
}

app::LiveIteration iterationOf(const WrittenRun& run, std::size_t t) {
  app::LiveIteration it{run.iterations[t].stats, run.iterations[t].centroids};
  it.stats.rank_ms = {1.0, 2.0, 1.5};
  return it;
}

TEST(FollowedRun, ShowsEveryIterationOfTheRunWithTheLabelsItAssigned) {
  const WrittenRun run = referenceRun();
  ASSERT_GT(run.iterations.size(), 4u);
  QTemporaryDir dir;
  const QString path = dir.filePath("live.jsonl");
  {
    app::LiveReportWriter writer(path, headerOf(run));
    for (std::size_t t = 1; t < run.iterations.size(); ++t)
      writer.iteration(iterationOf(run, t));
    writer.end({true, QStringLiteral("no point changed cluster")});
  }
  FollowedRunEngine engine(path, 5);
  EXPECT_NE(engine.info().device.find("3 ranks, followed from live.jsonl"), std::string::npos)
      << engine.info().device;
  engine.setData({run.points.data(), run.points.size() / 2, run.d});
  engine.initialize(run.config);
  kms::Snapshot s;
  engine.snapshot(s);
  EXPECT_TRUE(s.labels.empty());
  EXPECT_EQ(s.centroids, run.iterations[0].centroids);
  std::size_t t = 0;
  while (!engine.finished()) {
    const kms::IterationStats stats = engine.step();
    ++t;
    ASSERT_LT(t, run.iterations.size());
    EXPECT_EQ(stats.iteration, int(t));
    EXPECT_EQ(stats.changed, run.iterations[t].stats.changed);
    EXPECT_EQ(stats.rank_ms.size(), 3u);
    engine.snapshot(s);
    EXPECT_EQ(s.centroids, run.iterations[t].centroids) << "iteration " << t;
    EXPECT_EQ(s.labels, run.iterations[t].labels) << "iteration " << t;
  }
  EXPECT_EQ(t + 1, run.iterations.size());
  EXPECT_TRUE(engine.converged());
}

TEST(FollowedRun, WaitsForIterationsAsTheyAreWrittenAndStopsWaitingWhenAsked) {
  const WrittenRun run = referenceRun();
  QTemporaryDir dir;
  const QString path = dir.filePath("live.jsonl");
  auto writer = std::make_unique<app::LiveReportWriter>(path, headerOf(run));
  FollowedRunEngine engine(path, 5);
  engine.setData({run.points.data(), run.points.size() / 2, run.d});
  engine.initialize(run.config);
  // Iterations 1 and 2 arrive while the engine waits for them.
  std::thread later([&] {
    for (std::size_t t = 1; t <= 2; ++t) {
      std::this_thread::sleep_for(std::chrono::milliseconds(40));
      writer->iteration(iterationOf(run, t));
    }
  });
  EXPECT_EQ(engine.step().iteration, 1);
  EXPECT_EQ(engine.step().iteration, 2);
  later.join();
  // Iteration 3 never comes: raising the flag ends the wait, and the engine stays at 2.
  std::atomic<bool> stop{false};
  engine.setInterruptFlag(&stop);
  std::thread raise([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
    stop = true;
  });
  const auto waited = std::chrono::steady_clock::now();
  EXPECT_THROW(engine.step(), kms::Interrupted);
  EXPECT_LT(std::chrono::steady_clock::now() - waited, std::chrono::seconds(2));
  raise.join();
  EXPECT_EQ(engine.iteration(), 2);
  // A run that ends unconverged ends the followed one there too.
  stop = false;
  writer->end({false, QStringLiteral("stopped")});
  engine.step();  // no iteration 3 comes: none runs, and the run is over
  EXPECT_EQ(engine.iteration(), 2);
  EXPECT_TRUE(engine.finished());
  EXPECT_FALSE(engine.converged());
}

TEST(FollowedRun, RefusesDataOrKThatAreNotTheRuns) {
  const WrittenRun run = referenceRun();
  QTemporaryDir dir;
  const QString path = dir.filePath("live.jsonl");
  app::LiveReportWriter writer(path, headerOf(run));
  FollowedRunEngine engine(path, 5);
  engine.setData({run.points.data(), run.points.size() / 2 - 1, run.d});
  KMeansConfig config = run.config;
  EXPECT_THROW(engine.initialize(config), kms::InvalidArgument);
  engine.setData({run.points.data(), run.points.size() / 2, run.d});
  config.k = 4;
  try {
    engine.initialize(config);
    ADD_FAILURE() << "no error";
  } catch (const kms::InvalidArgument& e) {
    EXPECT_STREQ(e.what(), "The followed run has k = 5, not 4.");
  }
}

}  // namespace
}  // namespace kms::session
