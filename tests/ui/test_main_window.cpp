// The whole window on the offscreen platform: samples run to convergence and reach every view
// and chart, run controls and shortcuts, exports that load back, bad files, closing mid-run.
#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QDropEvent>
#include <QFile>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QMenu>
#include <QMimeData>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include <gtest/gtest.h>

#include <memory>

#include "charts/convergence_chart.h"
#include "charts/timing_chart.h"
#include "controls_panel.h"
#include "data/frame_pump.h"
#include "data/run_history.h"
#include "data/sample_catalog.h"
#include "export_controller.h"
#include "failing_gpu_engine.h"
#include "io/load.h"
#include "main_window.h"
#include "studio_actions.h"
#include "ui_test_support.h"
#include "views/cluster_views.h"
#include "views/image_compare_view.h"
#include "views/image_panel.h"
#include "views/palette_strip.h"
#include "views/scatter_view.h"

#include <qcustomplot.h>
#include "widgets/message_bar.h"
#include "widgets/status_readout.h"

using kms::session::SessionState;
using kms::session::StepPhase;
using kms::test::waitFor;
using kms::ui::ClusterViews;
using kms::ui::ExportController;
using kms::ui::MainWindow;

namespace {

bool reaches(MainWindow& w, SessionState state, int timeoutMs = 60000) {
  return waitFor([&] { return w.session().state() == state; }, timeoutMs);
}

/// Opens a sample and waits until the engine is ready at iteration 0.
bool openSample(MainWindow& w, const QString& id) {
  QSignalSpy changed(&w.session(), &kms::session::SessionController::datasetChanged);
  if (!w.openSample(id)) return false;
  // Ready, and the initial centroids on screen (a frame not yet shown would be replaced by a
  // newer one once the run starts: the views only ever get the newest).
  return waitFor([&] { return changed.count() > 0; }, 30000) && reaches(w, SessionState::Ready) &&
         waitFor([&] { return w.views()->frame() && w.views()->frame()->iteration == 0; }, 10000);
}

/// The sample photo with tolerance 0 and no practical iteration limit: a run that lasts far
/// longer than any test, for testing what happens during one.
bool openEndlessPhoto(MainWindow& w) {
  if (!openSample(w, QStringLiteral("photo"))) return false;
  kms::session::RunSettings s = w.controls()->settings();
  s.config.tolerance = 0.0;
  s.config.max_iterations = 100000;
  w.controls()->setSettings(s);
  w.session().setSettings(s);
  return true;
}

/// Runs until the final frame has reached the views.
bool runToEnd(MainWindow& w) {
  w.actions().playPause->trigger();
  return reaches(w, SessionState::Finished, 120000) &&
         waitFor([&] { return w.views()->frame() && w.views()->frame()->finished; }, 10000);
}

/// A window; by default with the saved settings wiped, so tests do not see each other's.
std::unique_ptr<MainWindow> makeWindow(bool freshSettings = true) {
  if (freshSettings) QSettings().clear();
  auto w = std::make_unique<MainWindow>();
  w->resize(1280, 800);
  w->show();
  return w;
}

class SampleRun : public ::testing::TestWithParam<const char*> {};

}  // namespace

TEST_P(SampleRun, ConvergesAndEveryViewAndChartGetsFrames) {
  const QString id = QString::fromLatin1(GetParam());
  auto w = makeWindow();
  ASSERT_TRUE(openSample(*w, id));
  const kms::ui::Sample* sample = kms::ui::findSample(id);
  EXPECT_EQ(w->controls()->settings().config.k, sample->k) << "the sample's suggested k";
  ASSERT_TRUE(runToEnd(*w));
  const auto& frame = w->views()->frame();
  const auto& records = w->history().records();
  ASSERT_FALSE(records.empty());
  EXPECT_EQ(frame->iteration, records.back().stats.iteration);
  EXPECT_TRUE(records.back().stats.converged || records.back().stats.iteration == 100);
  EXPECT_EQ(w->timingChart()->iterationCount(), records.size());
  EXPECT_EQ(w->convergenceChart()->iterationCount(), records.size());
  EXPECT_EQ(w->views()->paletteStrip()->clusterCount(), sample->k);
  EXPECT_GT(w->pump().deliveries(), 0u);
  const auto data = w->session().dataset();
  if (id == QLatin1String("photo")) {
    EXPECT_EQ(w->views()->currentTab(), ClusterViews::Tab::Image);
    const auto* view = w->views()->imagePanel()->view();
    EXPECT_GT(view->quantisedUpdates(), 0u);
    EXPECT_EQ(view->quantised().size(), view->original().size());
  } else if (id == QLatin1String("blobs")) {
    EXPECT_EQ(w->views()->currentTab(), ClusterViews::Tab::Points2D);
    EXPECT_GT(w->views()->scatter2d()->framesShown(), 0u);
    EXPECT_GT(w->views()->scatter2d()->trailLength(), 1u) << "centroid trails";
  } else {
    EXPECT_EQ(w->views()->currentTab(), ClusterViews::Tab::Points3D);
    // Offscreen: no OpenGL, so the projection stands in for the 3-D scatter (and says why).
    ASSERT_EQ(w->views()->scatter3d(), nullptr);
    ASSERT_NE(w->views()->projection3d(), nullptr);
    EXPECT_GT(w->views()->projection3d()->framesShown(), 0u);
  }
  EXPECT_TRUE(w->readout().iterationText().contains(QString::number(frame->iteration)));
  EXPECT_FALSE(w->readout().backendText().isEmpty());
  EXPECT_FALSE(w->grabWindowImage().isNull());
}

INSTANTIATE_TEST_SUITE_P(Samples, SampleRun, ::testing::Values("photo", "blobs", "cloud"));

TEST(MainWindow, StepPauseAndResetFromActionsAndKeys) {
  auto w = makeWindow();
  ASSERT_TRUE(openEndlessPhoto(*w));
  ASSERT_TRUE(waitFor([&] { return w->session().state() == SessionState::Ready; }));
  const auto frameAt = [&](int iteration) {
    return waitFor(
        [&] { return w->views()->frame() && w->views()->frame()->iteration == iteration; });
  };
  const auto shows = [&](int iteration, StepPhase phase) {
    return waitFor([&] {
      const auto& f = w->views()->frame();
      return f && f->iteration == iteration && f->phase == phase;
    });
  };
  w->actions().stepWhole->trigger();
  ASSERT_TRUE(frameAt(1));
  w->activateWindow();
  QTest::keyClick(w.get(), Qt::Key_Right);
  ASSERT_TRUE(shows(2, StepPhase::Assign)) << "Right: the assign half of iteration 2";
  QTest::keyClick(w.get(), Qt::Key_Right);
  ASSERT_TRUE(shows(2, StepPhase::Update)) << "Right again: its update";
  EXPECT_EQ(w->history().records().size(), 2u);
  QTest::keyClick(w.get(), Qt::Key_Right, Qt::ShiftModifier);
  ASSERT_TRUE(shows(3, StepPhase::Whole)) << "Shift+Right: a whole iteration";
  QTest::keyClick(w.get(), Qt::Key_Left);
  ASSERT_TRUE(shows(3, StepPhase::Assign)) << "Left: back half an iteration";
  QTest::keyClick(w.get(), Qt::Key_Left);
  ASSERT_TRUE(shows(2, StepPhase::Update));
  EXPECT_EQ(w->history().records().size(), 3u) << "stepping back runs nothing";
  EXPECT_TRUE(w->statusBar()
                  ->findChild<QLabel*>(QStringLiteral("statusView"))
                  ->text()
                  .contains(QStringLiteral("Update")));

  QTest::keyClick(w.get(), Qt::Key_Space);
  ASSERT_TRUE(reaches(*w, SessionState::Running, 5000)) << "Space plays";
  EXPECT_EQ(w->actions().playPause->text().remove(QLatin1Char('&')), QStringLiteral("Pause"));
  ASSERT_TRUE(waitFor([&] { return w->history().records().size() > 4; }));
  w->actions().playPause->trigger();
  ASSERT_TRUE(reaches(*w, SessionState::Paused, 5000));
  kms::test::spin(200);
  const std::size_t paused = w->history().records().size();
  kms::test::spin(300);
  EXPECT_EQ(w->history().records().size(), paused);

  QTest::keyClick(w.get(), Qt::Key_R);
  ASSERT_TRUE(frameAt(0)) << "R resets";
  ASSERT_TRUE(reaches(*w, SessionState::Ready, 5000));
  EXPECT_TRUE(w->history().empty());
  EXPECT_EQ(w->timingChart()->iterationCount(), 0u);
  EXPECT_EQ(w->convergenceChart()->iterationCount(), 0u);
  EXPECT_FALSE(w->actions().exportLabels->isEnabled()) << "no labels at iteration 0";
}

// Data of more than three dimensions on their principal axes: the 2-D and 3-D views draw
// PC1–PC3 (named with their shares), the frames' centroids projected the same way; centroids
// are not placed there; off again, the raw dimensions come back.
TEST(MainWindow, PrincipalAxesShowHighDimensionalPoints) {
  auto w = makeWindow();
  kms::app::GeneratorParams blobs;
  blobs.n = 6000;
  blobs.d = 12;
  blobs.groups = 6;
  QSignalSpy changed(&w->session(), &kms::session::SessionController::datasetChanged);
  w->generate(blobs, 6);
  ASSERT_TRUE(waitFor([&] { return changed.count() > 0; }, 30000));
  ASSERT_TRUE(reaches(*w, SessionState::Ready));
  ASSERT_TRUE(
      waitFor([&] { return w->views()->frame() && w->views()->frame()->iteration == 0; }, 10000));
  ASSERT_TRUE(runToEnd(*w));
  ClusterViews* views = w->views();
  views->setCurrentTab(ClusterViews::Tab::Points2D);
  views->setPrincipalAxes(true);
  ASSERT_TRUE(views->principalAxes());
  const auto shown = views->shownDataset();
  ASSERT_NE(shown, nullptr);
  EXPECT_EQ(shown->d, 3);
  EXPECT_TRUE(shown->displayOnly);
  EXPECT_TRUE(views->scatter2d()->plot()->xAxis->label().startsWith(QStringLiteral("PC1 (")));
  EXPECT_FALSE(views->scatter2d()->editable()) << "no centroids placed in a projection";
  auto* place = views->findChild<QToolButton*>(QStringLiteral("placeCentroids"));
  ASSERT_NE(place, nullptr);
  EXPECT_FALSE(place->isEnabled());
  const std::uint64_t before = views->scatter2d()->framesShown();
  views->setCurrentTab(ClusterViews::Tab::Points3D);
  views->setCurrentTab(ClusterViews::Tab::Points2D);
  EXPECT_GT(views->scatter2d()->framesShown(), before) << "the projected frame is drawn";
  views->setPrincipalAxes(false);
  EXPECT_EQ(views->shownDataset()->d, 12);
  EXPECT_EQ(views->scatter2d()->plot()->xAxis->label(), QStringLiteral("x"));
  EXPECT_TRUE(place->isEnabled());
}

TEST(MainWindow, ExportsWriteFilesThatLoadBack) {
  auto w = makeWindow();
  ASSERT_TRUE(openSample(*w, QStringLiteral("photo")));
  ASSERT_TRUE(runToEnd(*w));
  QTemporaryDir dir;
  ExportController& exporter = w->exporter();
  QSignalSpy done(&exporter, &ExportController::exported);
  QSignalSpy failed(&exporter, &ExportController::failed);
  using K = ExportController::Kind;
  const std::pair<K, QString> jobs[] = {
      {K::QuantisedImage, dir.filePath("q.png")}, {K::Palette, dir.filePath("p.gpl")},
      {K::Palette, dir.filePath("p.txt")},        {K::Labels, dir.filePath("labels.csv")},
      {K::Centroids, dir.filePath("c.csv")},      {K::Report, dir.filePath("r.json")},
      {K::TimingChart, dir.filePath("t.png")},    {K::ConvergenceChart, dir.filePath("cv.png")},
      {K::Window, dir.filePath("w.png")}};
  for (const auto& [kind, path] : jobs) {
    EXPECT_TRUE(exporter.available(kind));
    exporter.exportTo(kind, path);
  }
  ASSERT_TRUE(
      waitFor([&] { return done.count() + failed.count() == int(std::size(jobs)); }, 60000));
  ASSERT_EQ(failed.count(), 0) << failed.first().first().toString().toStdString();

  const auto data = w->session().dataset();
  const auto frame = w->views()->frame();
  const QImage quantised(dir.filePath("q.png"));
  EXPECT_EQ(quantised.size(), QSize(data->width, data->height));
  // The exported picture is the frame the window shows.
  EXPECT_EQ(quantised.convertToFormat(QImage::Format_RGB32),
            frame->quantized.convertToFormat(QImage::Format_RGB32));
  QFile gpl(dir.filePath("p.gpl"));
  ASSERT_TRUE(gpl.open(QIODevice::ReadOnly));
  EXPECT_TRUE(gpl.readLine().startsWith("GIMP Palette"));
  QFile hex(dir.filePath("p.txt"));
  ASSERT_TRUE(hex.open(QIODevice::ReadOnly));
  EXPECT_EQ(QString::fromLatin1(hex.readAll()).split('\n', Qt::SkipEmptyParts).size(), frame->k);
  const auto labels = kms::app::loadDataset(dir.filePath("labels.csv"));
  EXPECT_EQ(labels->n, data->itemCount());  // one label per pixel, not per distinct colour
  const auto centroids = kms::app::loadDataset(dir.filePath("c.csv"));
  EXPECT_EQ(int(centroids->n), frame->k);
  QFile report(dir.filePath("r.json"));
  ASSERT_TRUE(report.open(QIODevice::ReadOnly));
  const QJsonObject json = QJsonDocument::fromJson(report.readAll()).object();
  EXPECT_EQ(json.value("iterations").toArray().size(), int(w->history().records().size()));
  EXPECT_EQ(json.value("settings").toObject().value("k").toInt(), frame->k);
  for (const char* chart : {"t.png", "cv.png", "w.png"})
    EXPECT_FALSE(QImage(dir.filePath(chart)).isNull()) << chart;
}

TEST(MainWindow, BadFileShowsAnErrorAndKeepsTheData) {
  auto w = makeWindow();
  ASSERT_TRUE(openSample(*w, QStringLiteral("blobs")));
  const auto before = w->session().dataset();
  w->actions().stepWhole->trigger();
  ASSERT_TRUE(waitFor([&] { return w->views()->frame() && w->views()->frame()->iteration == 1; }));
  QTemporaryDir dir;
  const QString bad = dir.filePath(QStringLiteral("not-a-picture.png"));
  QFile file(bad);
  ASSERT_TRUE(file.open(QIODevice::WriteOnly));
  file.write("this is not a PNG file");
  file.close();
  QSignalSpy failed(&w->session(), &kms::session::SessionController::loadFailed);
  w->openFile(bad);
  ASSERT_TRUE(waitFor([&] { return failed.count() == 1; }));
  EXPECT_TRUE(w->messageBar()->isVisible());
  EXPECT_TRUE(w->messageBar()->text().contains(QStringLiteral("not-a-picture.png")))
      << w->messageBar()->text().toStdString();
  EXPECT_EQ(w->messageBar()->level(), kms::ui::MessageBar::Level::Error);
  EXPECT_EQ(w->session().dataset(), before);
  EXPECT_EQ(w->views()->frame()->iteration, 1) << "the views still show the previous run";
  // Still usable.
  w->actions().stepWhole->trigger();
  EXPECT_TRUE(waitFor([&] { return w->views()->frame()->iteration == 2; }));
}

TEST(MainWindow, AGpuFailureOffersTheCpuAndTheRunFinishesThere) {
  auto w = makeWindow();
  w->session().setEngineFactory(
      [](kms::BackendKind kind) { return kms::test::failingGpuFactory(kind, 2); });
  kms::session::RunSettings settings = w->session().settings();
  settings.backend = kms::BackendKind::Cuda;
  settings.config.max_iterations = 25;
  w->session().setSettings(settings);
  ASSERT_TRUE(openSample(*w, QStringLiteral("blobs")));
  EXPECT_EQ(w->session().engine().backend, QStringLiteral("cuda"));
  w->actions().playPause->trigger();
  ASSERT_TRUE(waitFor([&] { return w->messageBar()->actionButton()->isVisible(); }));
  EXPECT_EQ(w->messageBar()->level(), kms::ui::MessageBar::Level::Error);
  EXPECT_TRUE(w->messageBar()->text().contains(QStringLiteral("The GPU failed at iteration 2")))
      << w->messageBar()->text().toStdString();
  EXPECT_EQ(w->messageBar()->actionButton()->text(), QStringLiteral("Continue on the CPU"));
  EXPECT_EQ(w->session().state(), kms::session::SessionState::Paused);
  QTest::mouseClick(w->messageBar()->actionButton(), Qt::LeftButton);
  EXPECT_FALSE(w->messageBar()->isVisible());
  ASSERT_TRUE(
      waitFor([&] { return w->session().state() == kms::session::SessionState::Finished; }, 30000));
  EXPECT_EQ(w->session().engine().backend, QStringLiteral("cpu"));
  EXPECT_EQ(w->session().settings().backend, kms::BackendKind::Cpu);
}

TEST(MainWindow, DroppedFileOpensAndIsRemembered) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("dropped.csv"));
  QFile file(path);
  ASSERT_TRUE(file.open(QIODevice::WriteOnly));
  file.write("a,b,c\n");
  for (int i = 0; i < 300; ++i)
    file.write(QStringLiteral("%1,%2,%3\n").arg(i % 7).arg(i % 5).arg(i % 3).toLatin1());
  file.close();
  auto w = makeWindow();
  QSignalSpy changed(&w->session(), &kms::session::SessionController::datasetChanged);
  QMimeData mime;
  mime.setUrls({QUrl::fromLocalFile(path)});
  // Qt delivers a Drop only during a real drag, so the handler's logic is driven directly.
  EXPECT_TRUE(MainWindow::acceptsDrop(&mime));
  QMimeData text;
  text.setText(QStringLiteral("not a file"));
  EXPECT_FALSE(MainWindow::acceptsDrop(&text));
  ASSERT_TRUE(w->openDropped(&mime));
  ASSERT_TRUE(waitFor([&] { return changed.count() == 1; }))
      << w->messageBar()->text().toStdString();
  EXPECT_EQ(w->session().dataset()->n, 300u);
  EXPECT_EQ(w->session().dataset()->d, 3);
  EXPECT_EQ(w->controls()->settings().config.k, 5) << "points get k = 5 by default";
  bool listed = false;
  for (QAction* a : w->actions().recentMenu->actions())
    listed |= a->toolTip().endsWith("dropped.csv");
  EXPECT_TRUE(listed) << "the file is in Open Recent";
}

TEST(MainWindow, ClosingDuringARunExitsPromptly) {
  auto w = makeWindow();
  ASSERT_TRUE(openEndlessPhoto(*w));
  w->actions().playPause->trigger();
  ASSERT_TRUE(reaches(*w, SessionState::Running, 30000));
  ASSERT_TRUE(waitFor([&] { return w->history().records().size() >= 2; }, 30000));
  QElapsedTimer clock;
  clock.start();
  w->close();
  w.reset();
  EXPECT_LT(clock.elapsed(), 5000);
}

TEST(MainWindow, SettingsPersistAcrossWindows) {
  {
    auto w = makeWindow();
    kms::session::RunSettings s = w->controls()->settings();
    s.config.k = 7;
    s.config.seed = 42;
    s.clustering.colourSpace = kms::app::ColourSpace::Oklab;
    s.clustering.compaction = kms::app::Compaction::Never;
    s.restarts = 3;
    w->controls()->setSettings(s);
    w->views()->imagePanel()->setDitherMethod(kms::app::DitherMode::Ordered);
    w->controls()->setPace(5.0);
    w->close();
  }
  auto w = makeWindow(false);
  EXPECT_EQ(w->controls()->settings().config.k, 7);
  EXPECT_EQ(w->controls()->settings().config.seed, 42u);
  EXPECT_EQ(w->controls()->settings().clustering.colourSpace, kms::app::ColourSpace::Oklab);
  EXPECT_EQ(w->controls()->settings().clustering.compaction, kms::app::Compaction::Never);
  EXPECT_EQ(w->controls()->settings().restarts, 3);
  EXPECT_EQ(w->views()->imagePanel()->ditherMethod(), kms::app::DitherMode::Ordered);
  EXPECT_NEAR(w->controls()->pace(), 5.0, 1.0);
  w->close();
}

TEST(MainWindow, DitheredModeShowsAndExportsTheDitheredPicture) {
  auto w = makeWindow();
  ASSERT_TRUE(openSample(*w, QStringLiteral("photo")));
  kms::ui::ImagePanel* panel = w->views()->imagePanel();
  panel->view()->setMode(kms::ui::ImageCompareView::Mode::Dithered);
  panel->setDitherMethod(kms::app::DitherMode::Ordered);
  ASSERT_TRUE(runToEnd(*w));
  ASSERT_TRUE(waitFor([&] { return !panel->view()->dithered().isNull(); }, 30000));
  const QImage dithered = panel->view()->dithered();
  EXPECT_EQ(dithered.size(), panel->view()->quantised().size());
  EXPECT_NE(dithered, panel->view()->quantised());
  EXPECT_EQ(panel->shownDithering(), kms::app::DitherMode::Ordered);
  // The export is what the view shows: the dithered picture, as a palette PNG.
  QTemporaryDir dir;
  QSignalSpy done(&w->exporter(), &ExportController::exported);
  w->exporter().exportTo(ExportController::Kind::QuantisedImage, dir.filePath("d.png"));
  ASSERT_TRUE(waitFor([&] { return done.count() == 1; }, 30000));
  EXPECT_EQ(QImage(dir.filePath("d.png")).convertToFormat(QImage::Format_RGB32),
            dithered.convertToFormat(QImage::Format_RGB32));
}

TEST(MainWindow, BestOfNOffersEveryStart) {
  auto w = makeWindow();
  ASSERT_TRUE(openSample(*w, QStringLiteral("blobs")));
  auto* spin = w->controls()->findChild<QSpinBox*>(QStringLiteral("restartsSpin"));
  ASSERT_NE(spin, nullptr);
  EXPECT_EQ(spin->text(), QStringLiteral("1 start"));
  kms::session::RunSettings s = w->controls()->settings();
  s.restarts = 3;
  s.config.init = kms::InitMethod::Random;
  w->controls()->setSettings(s);
  EXPECT_EQ(spin->text(), QStringLiteral("3 starts"));
  w->session().setSettings(s);
  ASSERT_TRUE(runToEnd(*w));
  QComboBox* starts = w->controls()->startCombo();
  ASSERT_TRUE(waitFor([&] { return starts->count() == 3; }, 20000));
  EXPECT_TRUE(starts->isVisibleTo(w.get()));
  const int best = w->views()->frame()->bestStart;
  EXPECT_TRUE(starts->itemText(starts->currentIndex()).contains(QStringLiteral("(best)")));
  // Progress of the starts can arrive after their result (it does not pass the frame pump):
  // it must not hide the result's start picker.
  emit w->session().startProgress(w->views()->frame()->runId - 1, 2, 3);
  QCoreApplication::processEvents();
  EXPECT_TRUE(starts->isVisibleTo(w.get()));
  const int other = (best + 1) % 3;
  w->session().showStart(other);
  ASSERT_TRUE(waitFor([&] { return w->views()->frame()->start == other; }, 20000));
}

TEST(MainWindow, UnknownSampleIsAnErrorInTheWindow) {
  auto w = makeWindow();
  EXPECT_FALSE(w->openSample(QStringLiteral("no-such-sample")));
  EXPECT_TRUE(w->messageBar()->text().contains(QStringLiteral("no-such-sample")));
}

TEST(MainWindow, ActionsAreDisabledWhenTheyCannotApply) {
  auto w = makeWindow();
  EXPECT_FALSE(w->actions().playPause->isEnabled());
  EXPECT_FALSE(w->actions().step->isEnabled());
  EXPECT_FALSE(w->actions().exportImage->isEnabled());
  ASSERT_TRUE(openSample(*w, QStringLiteral("blobs")));
  EXPECT_TRUE(w->actions().playPause->isEnabled());
  EXPECT_FALSE(w->actions().exportImage->isEnabled()) << "points have no picture";
  EXPECT_FALSE(w->views()->tabEnabled(ClusterViews::Tab::Image));
  EXPECT_FALSE(w->views()->tabEnabled(ClusterViews::Tab::Points3D)) << "2-D data";
}
