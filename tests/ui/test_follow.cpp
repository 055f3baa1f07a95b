// File ▸ Follow a Run… / kmeans-studio --follow: the window follows a run another process writes
// (kmeans-cli --live-report) through MainWindow::followRun — its data, its settings, every
// iteration in the charts with each rank's time — and opening other data ends the following.
#include <gtest/gtest.h>
#include <QSignalSpy>
#include <QTemporaryDir>

#include <memory>

#include "charts/timing_chart.h"
#include "controls_panel.h"
#include "io/live_report.h"
#include "io/load.h"
#include "kmeans/backend.h"
#include "main_window.h"
#include "ui_test_support.h"
#include "views/cluster_views.h"
#include "widgets/message_bar.h"

using kms::session::SessionState;
using kms::test::waitFor;
using kms::ui::MainWindow;

namespace {

/// A finished run on the sample point file, written as a live report of three "ranks".
QString writeLiveReport(const QString& path, int& iterations) {
  const QString data = QStringLiteral(KMS_RESOURCES_DIR "/samples/blobs-2d.csv");
  const kms::app::DatasetPtr set = kms::app::loadDataset(data);
  kms::KMeansConfig config;
  config.k = 4;
  config.seed = 9;
  config.keep_history = true;
  auto engine = kms::createCpuEngine(2);
  engine->setData(set->view());
  engine->initialize(config);
  engine->run();
  kms::app::LiveRunHeader h;
  h.input = data;
  h.n = set->n;
  h.d = set->d;
  h.k = config.k;
  h.ranks = 3;
  h.backend = QStringLiteral("cpu");
  h.device = QStringLiteral("CPU, 1 thread a rank, 3 ranks");
  h.config = config;
  kms::Snapshot s;
  engine->snapshotAt(0, s);
  h.centroids = s.centroids;
  kms::app::LiveReportWriter writer(path, h);
  iterations = engine->iteration();
  for (int t = 1; t <= iterations; ++t) {
    engine->snapshotAt(t, s);
    kms::IterationStats stats = s.stats;
    stats.rank_ms = {1.0, 2.0, 1.0};
    writer.iteration({stats, s.centroids});
  }
  writer.end({engine->converged(), QStringLiteral("no point changed cluster")});
  return data;
}

TEST(FollowRun, TheWindowPlaysAFollowedRunWithItsSettingsAndEachRanksTime) {
  QTemporaryDir dir;
  int iterations = 0;
  const QString path = dir.filePath(QStringLiteral("run.jsonl"));
  writeLiveReport(path, iterations);
  ASSERT_GT(iterations, 1);
  auto w = std::make_unique<MainWindow>();
  w->resize(1280, 800);
  w->show();
  QSignalSpy engines(&w->session(), &kms::session::SessionController::engineChanged);
  ASSERT_TRUE(w->followRun(path));
  ASSERT_TRUE(waitFor([&] { return w->session().state() == SessionState::Finished; }, 60000));
  ASSERT_TRUE(waitFor([&] { return w->views()->frame() && w->views()->frame()->finished; }));
  EXPECT_EQ(w->views()->frame()->iteration, iterations);
  EXPECT_EQ(w->controls()->settings().config.k, 4);
  EXPECT_EQ(w->controls()->settings().config.seed, 9u);
  EXPECT_TRUE(
      waitFor([&] { return w->timingChart()->iterationCount() == std::size_t(iterations); }));
  bool followed = false;
  for (const auto& call : engines)
    followed = followed || call.at(0).value<kms::session::EngineDescription>().device.contains(
                               QStringLiteral("followed from run.jsonl"));
  EXPECT_TRUE(followed);

  // Other data: the engines the settings choose again.
  engines.clear();
  ASSERT_TRUE(w->openSample(QStringLiteral("blobs")));
  ASSERT_TRUE(waitFor([&] { return w->session().state() == SessionState::Ready; }, 30000))
      << kms::session::toDisplayString(w->session().state()).toStdString() << "; "
      << w->messageBar()->text().toStdString();
  w->session().play();
  ASSERT_TRUE(waitFor([&] { return w->session().state() == SessionState::Finished; }, 60000));
  for (const auto& call : engines)
    EXPECT_FALSE(call.at(0).value<kms::session::EngineDescription>().device.contains(
        QStringLiteral("followed")));
}

TEST(FollowRun, AFileThatIsNotALiveReportIsNamedAndNothingChanges) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("notes.jsonl"));
  QFile file(path);
  ASSERT_TRUE(file.open(QIODevice::WriteOnly));
  file.write("{\"hello\": 1}\n");
  file.close();
  auto w = std::make_unique<MainWindow>();
  w->show();
  EXPECT_FALSE(w->followRun(path));
  EXPECT_TRUE(w->messageBar()->text().contains(QStringLiteral("not a live report")))
      << w->messageBar()->text().toStdString();
  EXPECT_EQ(w->session().state(), SessionState::NoData);
  const QString empty = dir.filePath(QStringLiteral("empty.jsonl"));
  QFile(empty).open(QIODevice::WriteOnly);
  EXPECT_FALSE(w->followRun(empty));
  EXPECT_TRUE(w->messageBar()->text().contains(QStringLiteral("has not written its first line")))
      << w->messageBar()->text().toStdString();
}

}  // namespace
