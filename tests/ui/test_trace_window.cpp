// File ▸ Open Trace…: a run traced elsewhere beside exact Lloyd on the window's data — the first
// divergence, the flipped points ringed, near ties, the float64 reference; a bad trace is an
// error naming its file and the window keeps its data.
#include <QAction>
#include <QFile>
#include <QSettings>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include <memory>

#include "core/trace_compare.h"
#include "export_controller.h"
#include "io/trace.h"
#include "kmeans/backend.h"
#include "kmeans/engine.h"
#include "main_window.h"
#include "sample_window.h"
#include "studio_actions.h"
#include "trace_opener.h"
#include "trace_window.h"
#include "ui_test_support.h"
#include "views/cluster_views.h"
#include "views/scatter_view.h"
#include "widgets/message_bar.h"

using kms::session::SessionState;
using kms::test::waitFor;
using kms::ui::MainWindow;
using kms::ui::TraceOpener;
using kms::ui::TraceWindow;

namespace {

std::unique_ptr<MainWindow> blobsWindow() {
  return kms::test::sampleWindow(QStringLiteral("blobs"));
}

/// Exact Lloyd on `data` from six of its rows for 10 iterations, except that iteration 3's
/// update moves one centroid by a tenth of the data's spread (a wrong update on purpose).
kms::app::RunTrace wrongAtThree(const kms::app::Dataset& data) {
  kms::app::RunTrace trace;
  trace.k = 6;
  trace.d = data.d;
  trace.n = data.n;
  trace.source = QStringLiteral("a test");
  std::vector<float> c(data.values.begin(), data.values.begin() + 6 * data.d);
  trace.centroids.push_back(c);
  auto engine = kms::createEngine(kms::BackendKind::Cpu).engine;
  engine->setData({data.values.data(), data.n, data.d});
  for (int t = 1; t <= 10; ++t) {
    kms::KMeansConfig config;
    config.k = 6;
    config.init = kms::InitMethod::Given;
    config.initial_centroids = c;
    config.max_iterations = 1;
    config.tolerance = 0;
    config.empty_clusters = kms::EmptyClusterPolicy::KeepCentroid;
    engine->initialize(config);
    engine->step();
    kms::Snapshot s;
    engine->snapshot(s);
    c = s.centroids;
    if (t == 3) c[0] += 0.1f;
    trace.centroids.push_back(c);
  }
  return trace;
}

}  // namespace

TEST(TraceWindow, ShowsWhereAndWhyATraceParts) {
  auto w = blobsWindow();
  QTemporaryDir dir;
  const QString folder = dir.filePath(QStringLiteral("run"));
  kms::app::writeTrace(folder, wrongAtThree(*w->session().dataset()));
  TraceOpener& opener = w->traceOpener();
  QSignalSpy opened(&opener, &TraceOpener::opened);
  w->openTrace(folder);
  ASSERT_TRUE(waitFor([&] { return opened.count() == 1; }, 60000));
  TraceWindow* window = opener.window();
  ASSERT_NE(window, nullptr);
  const auto& c = window->comparison();
  EXPECT_EQ(c.firstDivergence, 3);
  ASSERT_EQ(c.wrongUpdates.size(), 1u);
  EXPECT_EQ(c.wrongUpdates[0], 3);
  ASSERT_GT(c.firstFlip, 3);  // the labels part after the wrong update
  // The window opens where labels first differ, the flipped points ringed.
  EXPECT_EQ(window->iteration(), c.firstFlip);
  EXPECT_EQ(window->ringedPoints(),
            std::size_t(c.iterations[std::size_t(c.firstFlip) - 1].flipped));
  EXPECT_GT(window->ringedPoints(), 0u);
  window->showIteration(2);  // before the wrong update: nothing differs
  EXPECT_EQ(window->ringedPoints(), 0u);
  // Half-steps: the assign, then the update (the centroids moved), then the next assign.
  window->setHalfSteps(true);
  window->showIteration(4);
  window->step(+1);
  EXPECT_EQ(window->iteration(), 4);
  EXPECT_TRUE(window->showsUpdate());
  ASSERT_TRUE(window->view(0)->frame());
  EXPECT_EQ(window->view(0)->frame()->phase, kms::session::StepPhase::Update);
  EXPECT_FALSE(window->view(0)->frame()->movedFrom.empty());
  window->step(+1);
  EXPECT_EQ(window->iteration(), 5);
  EXPECT_FALSE(window->showsUpdate());
  window->step(-1);
  EXPECT_TRUE(window->showsUpdate());
  EXPECT_EQ(window->iteration(), 4);
  window->setHalfSteps(false);
  window->showIteration(c.firstFlip);
  window->setNearTies(true);
  // Every flipped point near a tie is among the near ties ringed now.
  EXPECT_GE(window->ringedPoints(),
            std::size_t(c.iterations[std::size_t(c.firstFlip) - 1].flippedNearTies));
  window->computeReference();
  ASSERT_TRUE(waitFor([&] { return window->referenceReady(); }, 60000));
  auto* table = window->findChild<QTableWidget*>();
  ASSERT_NE(table, nullptr);
  EXPECT_EQ(table->rowCount(), 10);
  EXPECT_EQ(table->columnCount(), 13);  // with the two float64 columns
  EXPECT_EQ(table->horizontalHeaderItem(11)->text(), QStringLiteral("Trace vs float64"));
  // Before the wrong update both runs sit within rounding of the float64 reference; at it, the
  // trace is the 0.1 it was moved away while the exact run stays close.
  EXPECT_LT(table->item(1, 11)->text().toDouble(), 1e-3);
  EXPECT_NEAR(table->item(2, 11)->text().toDouble(), 0.1, 1e-3);
  EXPECT_LT(table->item(2, 12)->text().toDouble(), 1e-3);
}

TEST(TraceWindow, ABadTraceIsNamedAndTheDataStays) {
  auto w = blobsWindow();
  const auto data = w->session().dataset();
  QTemporaryDir dir;
  kms::app::RunTrace trace = wrongAtThree(*data);
  for (auto& c : trace.centroids)
    c.resize(5 * 2);  // k = 5 in the arrays, 6 in the header
  trace.k = 5;
  trace.n = data->n + 1;  // and another number of rows
  const QString folder = dir.filePath(QStringLiteral("other"));
  kms::app::writeTrace(folder, trace);
  QSignalSpy failed(&w->traceOpener(), &TraceOpener::failed);
  w->openTrace(folder);
  ASSERT_TRUE(waitFor([&] { return failed.count() == 1; }, 30000));
  EXPECT_TRUE(failed.first().first().toString().contains(QStringLiteral("other")))
      << failed.first().first().toString().toStdString();
  EXPECT_EQ(w->session().dataset(), data);
  w->openTrace(dir.filePath(QStringLiteral("missing")));
  ASSERT_TRUE(waitFor([&] { return failed.count() == 2; }, 30000));
  EXPECT_TRUE(failed.last().first().toString().contains(QStringLiteral("missing")))
      << failed.last().first().toString().toStdString();
  EXPECT_EQ(w->traceOpener().window(), nullptr);
}

TEST(TraceWindow, TheWindowWritesTheTraceOfItsOwnRun) {
  auto w = blobsWindow();
  w->actions().playPause->trigger();
  ASSERT_TRUE(waitFor([&] { return w->session().state() == SessionState::Finished; }, 120000));
  ASSERT_TRUE(waitFor([&] { return w->views()->frame() && w->views()->frame()->finished; }, 10000));
  kms::ui::ExportController& exporter = w->exporter();
  ASSERT_TRUE(exporter.available(kms::ui::ExportController::Kind::Trace));
  QTemporaryDir dir;
  const QString folder = dir.filePath(QStringLiteral("own"));
  QSignalSpy done(&exporter, &kms::ui::ExportController::exported);
  QSignalSpy failed(&exporter, &kms::ui::ExportController::failed);
  exporter.exportTo(kms::ui::ExportController::Kind::Trace, folder);
  ASSERT_TRUE(waitFor([&] { return done.count() + failed.count() > 0; }, 60000));
  ASSERT_EQ(failed.count(), 0) << failed.first().first().toString().toStdString();
  const kms::app::RunTrace trace = kms::app::readTrace(folder);
  EXPECT_EQ(trace.iterations(), w->views()->frame()->iteration);
  EXPECT_EQ(trace.centroids.back(), w->views()->frame()->centroids);  // the run shown, to the bit
  EXPECT_TRUE(trace.source.startsWith(QStringLiteral("kmeans-studio")));
  // Its own trace is exact Lloyd, as the comparison says.
  EXPECT_TRUE(
      kms::app::compareTrace(*w->session().dataset(), trace, QStringLiteral("own")).identical);
}
