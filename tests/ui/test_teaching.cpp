// The teaching moves in the window: half-steps drawn in the 2-D view (rings on changed points,
// arrows on moved centroids), the timeline, and the step keys wherever the focus is.
#include <qcustomplot.h>
#include <QLabel>
#include <QLineEdit>
#include <QProcess>
#include <QSettings>
#include <QSignalSpy>
#include <QSlider>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include <gtest/gtest.h>

#include "compare_dialog.h"
#include "controls_panel.h"
#include "core/cluster_input.h"
#include "kmeans/backend.h"
#include "main_window.h"
#include "studio_actions.h"
#include "sweep_dialog.h"
#include "ui_test_support.h"
#include "views/cluster_views.h"
#include "views/scatter_view.h"
#include "views/voronoi_layer.h"

using kms::session::SessionState;
using kms::session::StepPhase;
using kms::test::waitFor;
using kms::ui::MainWindow;

namespace {

std::unique_ptr<MainWindow> blobsWindow() {
  QSettings().clear();
  auto w = std::make_unique<MainWindow>();
  w->resize(1280, 800);
  w->show();
  EXPECT_TRUE(w->openSample(QStringLiteral("blobs")));
  EXPECT_TRUE(waitFor([&] { return w->session().state() == SessionState::Ready; }));
  // A random start that takes several iterations (greedy k-means++ finds these blobs at once).
  kms::session::RunSettings s = w->controls()->settings();
  s.config.init = kms::InitMethod::Random;
  s.config.seed = 30;
  s.config.tolerance = 0.0;
  w->controls()->setSettings(s);
  w->session().setSettings(s);
  EXPECT_TRUE(waitFor([&] {
    const auto& f = w->views()->frame();
    return w->session().state() == SessionState::Ready && f && f->iteration == 0 && f->runId > 1;
  }));
  return w;
}

bool shows(MainWindow& w, int iteration, StepPhase phase) {
  return waitFor([&] {
    const auto& f = w.views()->frame();
    return f && f->iteration == iteration && f->phase == phase;
  });
}

}  // namespace

TEST(Teaching, HalfStepsDrawRingsThenArrows) {
  auto w = blobsWindow();
  kms::ui::ScatterView* view = w->views()->scatter2d();
  w->views()->setCurrentTab(kms::ui::ClusterViews::Tab::Points2D);
  w->actions().stepWhole->trigger();
  ASSERT_TRUE(shows(*w, 1, StepPhase::Whole));
  w->actions().step->trigger();
  ASSERT_TRUE(shows(*w, 2, StepPhase::Assign));
  const auto& assign = w->views()->frame();
  EXPECT_EQ(view->ringedPoints(), std::min<std::size_t>(assign->changedRows.size(),
                                                        kms::ui::ScatterView::kMaxDrawnPoints));
  EXPECT_GT(view->ringedPoints(), 0u) << "iteration 2 of a fresh start moves some points";
  EXPECT_EQ(view->arrowsShown(), 0);
  EXPECT_TRUE(view->title().contains(QStringLiteral("assign"))) << view->title().toStdString();
  w->actions().step->trigger();
  ASSERT_TRUE(shows(*w, 2, StepPhase::Update));
  EXPECT_EQ(view->ringedPoints(), 0u);
  EXPECT_GT(view->arrowsShown(), 0) << "centroids moved: arrows from where they were";
  EXPECT_TRUE(view->title().contains(QStringLiteral("update"))) << view->title().toStdString();
}

TEST(Teaching, TimelineScrubsBackToTheLabelsOfThatIteration) {
  auto w = blobsWindow();
  std::vector<std::vector<std::int32_t>> labels(1);
  for (int t = 1; t <= 5; ++t) {
    w->actions().stepWhole->trigger();
    ASSERT_TRUE(shows(*w, t, StepPhase::Whole));
    labels.push_back(w->views()->frame()->labels);
  }
  QSlider* timeline = w->controls()->timelineSlider();
  ASSERT_TRUE(waitFor([&] { return timeline->isEnabled() && timeline->maximum() == 5; }));
  for (const int t : {2, 4, 1}) {
    timeline->setValue(t);  // as a drag would
    ASSERT_TRUE(shows(*w, t, StepPhase::Whole)) << "iteration " << t;
    EXPECT_EQ(w->views()->frame()->labels, labels[std::size_t(t)]) << "iteration " << t;
    EXPECT_EQ(w->views()->frame()->latestIteration, 5);
  }
  EXPECT_EQ(w->views()->scatter2d()->trailLength(), 2u) << "trails end at the iteration shown";
}

TEST(Teaching, StepKeysWorkWithTheFocusInTheSettings) {
  auto w = blobsWindow();
  w->activateWindow();
  QSpinBox* k = w->controls()->findChild<QSpinBox*>(QStringLiteral("kSpin"));
  ASSERT_NE(k, nullptr);
  k->setFocus();
  ASSERT_TRUE(waitFor([&] { return k->hasFocus(); }));
  QLineEdit* editor = k->findChild<QLineEdit*>();
  ASSERT_NE(editor, nullptr);
  QTest::keyClick(editor, Qt::Key_Right);
  ASSERT_TRUE(shows(*w, 1, StepPhase::Assign)) << "→ steps with the focus in the k field";
  QTest::keyClick(editor, Qt::Key_Right, Qt::ShiftModifier);
  ASSERT_TRUE(shows(*w, 1, StepPhase::Update));
  QTest::keyClick(editor, Qt::Key_Left);
  ASSERT_TRUE(shows(*w, 1, StepPhase::Assign)) << "← steps back there too";
  // Typing into the field: the arrows move its cursor until Enter.
  QTest::keyClick(editor, Qt::Key_End);
  QTest::keyClick(editor, Qt::Key_Backspace);
  QTest::keyClicks(editor, QStringLiteral("6"));
  const int cursor = editor->cursorPosition();
  QTest::keyClick(editor, Qt::Key_Left);
  EXPECT_EQ(editor->cursorPosition(), cursor - 1) << "the arrow moved the cursor";
  kms::test::spin(200);
  EXPECT_EQ(w->views()->frame()->phase, StepPhase::Assign) << "and did not step";
  QTest::keyClick(editor, Qt::Key_Return);
  QTest::keyClick(editor, Qt::Key_Right);
  EXPECT_TRUE(waitFor([&] {
    const auto& f = w->views()->frame();
    return f && f->k == 6 && f->iteration == 1 && f->phase == StepPhase::Assign;
  })) << "after Enter the arrows step again, in the run with the new k";
}

TEST(Teaching, VoronoiRegionsFollowTheNearestCentroid) {
  // Known answer: two centres on a horizontal line split the plane at x = 0.5.
  const std::vector<QPointF> centres = {{0.0, 0.0}, {1.0, 0.0}};
  const std::vector<QColor> colours = {QColor(Qt::red), QColor(Qt::blue)};
  const QImage image =
      kms::ui::VoronoiLayer::render(centres, colours, QRectF(-1.0, -1.0, 3.0, 2.0), QSize(30, 20));
  ASSERT_EQ(image.size(), QSize(30, 20));
  for (int row = 0; row < 20; row += 3)
    for (int col = 0; col < 30; ++col) {
      const double x = -1.0 + (col + 0.5) * 0.1;
      const QColor c = QColor::fromRgba(qUnpremultiply(image.pixel(col, row)));
      if (std::abs(x - 0.5) < 0.11) continue;  // the boundary column is drawn darker
      EXPECT_EQ(x < 0.5 ? c.red() > c.blue() : c.blue() > c.red(), true) << col << ", " << row;
      EXPECT_GT(c.alpha(), 0);
    }

  // In the window: the 2-D view of the blobs shades a region around every centroid.
  auto w = blobsWindow();
  w->views()->setCurrentTab(kms::ui::ClusterViews::Tab::Points2D);
  w->views()->setRegionsVisible(true);
  w->actions().stepWhole->trigger();
  ASSERT_TRUE(shows(*w, 1, StepPhase::Whole));
  kms::ui::VoronoiLayer* regions = w->views()->scatter2d()->regions();
  ASSERT_NE(regions, nullptr);
  const int before = regions->computed();
  ASSERT_TRUE(waitFor([&] { return regions->computed() > before; }));
  const auto& frame = w->views()->frame();
  const QImage shaded = regions->image();
  const QRectF range = regions->imageRange();
  for (int c = 0; c < frame->k; ++c) {
    const double x = frame->centroids[std::size_t(c) * 2],
                 y = frame->centroids[std::size_t(c) * 2 + 1];
    if (!range.contains(x, y)) continue;
    const int col = int((x - range.left()) / range.width() * shaded.width());
    const int row = int((range.bottom() - y) / range.height() * shaded.height());
    const QColor got = QColor::fromRgba(qUnpremultiply(shaded.pixel(col, row)));
    // Light shading rounds the colour (alpha 46): the nearest cluster colour must be its own.
    int nearest = 0;
    double best = 1e18;
    const auto& colours = w->views()->colours();
    for (std::size_t j = 0; j < colours.size(); ++j) {
      const double dr = got.red() - colours[j].red(), dg = got.green() - colours[j].green(),
                   db = got.blue() - colours[j].blue();
      if (dr * dr + dg * dg + db * db < best) {
        best = dr * dr + dg * dg + db * db;
        nearest = int(j);
      }
    }
    EXPECT_EQ(nearest, c) << "centroid " << c << " lies in its own region";
  }
}

#ifdef KMS_CLI_PATH
TEST(Teaching, CentroidsPlacedByClicksGiveTheSameRunAsTheCli) {
  auto w = blobsWindow();
  w->views()->setCurrentTab(kms::ui::ClusterViews::Tab::Points2D);
  kms::ui::ScatterView* view = w->views()->scatter2d();
  QCustomPlot* plot = view->plot();
  auto* place = w->views()->findChild<QToolButton*>(QStringLiteral("placeCentroids"));
  ASSERT_NE(place, nullptr);
  place->click();
  ASSERT_TRUE(view->placing());
  const auto pixelOf = [&](double x, double y) {
    return QPoint(int(plot->xAxis->coordToPixel(x)), int(plot->yAxis->coordToPixel(y)));
  };
  // Three centroids placed badly: two in one corner, one far away.
  const QPointF where[3] = {{-1.5, 1.2}, {-1.2, 1.3}, {1.4, -1.3}};
  for (int i = 0; i < 3; ++i) {
    QTest::mouseClick(plot, Qt::LeftButton, {}, pixelOf(where[i].x(), where[i].y()));
    ASSERT_TRUE(waitFor([&] {
      const auto& f = w->views()->frame();
      return f && f->k == i + 1 && f->iteration == 0;
    })) << "click "
        << i + 1 << " adds a centroid and starts from them";
  }
  // A fourth, then right-click removes it again.
  QTest::mouseClick(plot, Qt::LeftButton, {}, pixelOf(0.0, 0.0));
  ASSERT_TRUE(waitFor([&] { return w->views()->frame()->k == 4; }));
  QTest::mouseClick(plot, Qt::RightButton, {}, pixelOf(0.0, 0.0));
  ASSERT_TRUE(waitFor([&] { return w->views()->frame()->k == 3; }));
  const kms::session::RunSettings s = w->controls()->settings();
  EXPECT_EQ(s.config.init, kms::InitMethod::Given);
  ASSERT_EQ(s.config.initial_centroids.size(), 6u);
  for (int i = 0; i < 3; ++i) {  // where the clicks were, to a pixel
    const double pixel = plot->xAxis->pixelToCoord(1) - plot->xAxis->pixelToCoord(0);
    EXPECT_NEAR(s.config.initial_centroids[std::size_t(i) * 2], where[i].x(), 2 * std::abs(pixel));
  }
  // Run it in the window ... once Play is enabled: the frame of k = 3 can arrive before the
  // session's Ready state has reached the actions, and a disabled action ignores trigger()
  // (seen once under ASan on a loaded machine: the run never started).
  ASSERT_TRUE(waitFor([&] { return w->actions().playPause->isEnabled(); }));
  w->actions().playPause->trigger();
  ASSERT_TRUE(waitFor([&] {
    const auto& f = w->views()->frame();
    return w->session().state() == SessionState::Finished && f && f->finished;
  }));
  const std::vector<std::int32_t> labels = w->views()->frame()->labels;
  // ... and in kmeans-cli from the same centroids.
  QTemporaryDir dir;
  QFile start(dir.filePath(QStringLiteral("start.csv")));
  ASSERT_TRUE(start.open(QIODevice::WriteOnly));
  for (int i = 0; i < 3; ++i)
    start.write(QStringLiteral("%1,%2\n")
                    .arg(double(s.config.initial_centroids[std::size_t(i) * 2]), 0, 'g', 9)
                    .arg(double(s.config.initial_centroids[std::size_t(i) * 2 + 1]), 0, 'g', 9)
                    .toUtf8());
  start.close();
  QProcess cli;
  cli.start(QStringLiteral(KMS_CLI_PATH),
            {w->session().dataset()->source, "--init-centroids", start.fileName(), "--tol", "0",
             "--max-iter", QString::number(s.config.max_iterations), "--backend", "cpu", "--quiet",
             "--out-labels", dir.filePath(QStringLiteral("labels.csv"))});
  ASSERT_TRUE(cli.waitForFinished(60000));
  ASSERT_EQ(cli.exitCode(), 0) << cli.readAllStandardError().toStdString();
  QFile out(dir.filePath(QStringLiteral("labels.csv")));
  ASSERT_TRUE(out.open(QIODevice::ReadOnly));
  out.readLine();  // index,label
  std::vector<std::int32_t> cliLabels;
  while (!out.atEnd())
    cliLabels.push_back(QString::fromUtf8(out.readLine()).trimmed().section(',', 1).toInt());
  EXPECT_EQ(cliLabels, labels) << "the same run";

  // Dragging a centroid while paused starts again from the edited state.
  place->click();
  ASSERT_FALSE(view->placing());
  const kms::session::FramePtr before = w->views()->frame();
  const QPoint from = pixelOf(before->centroids[0], before->centroids[1]);
  const QPoint to = from + QPoint(40, 25);
  QTest::mousePress(plot, Qt::LeftButton, {}, from);
  QMouseEvent move(QEvent::MouseMove, QPointF(to), plot->mapToGlobal(QPointF(to)), Qt::NoButton,
                   Qt::LeftButton, Qt::NoModifier);
  QCoreApplication::sendEvent(plot, &move);
  QTest::mouseRelease(plot, Qt::LeftButton, {}, to);
  ASSERT_TRUE(waitFor([&] {
    const auto& f = w->views()->frame();
    return f && f->iteration == 0 && f->k == 3 && f->runId != before->runId;
  }));
  EXPECT_NEAR(w->views()->frame()->centroids[0], plot->xAxis->pixelToCoord(to.x()), 1e-3);
}
#endif

TEST(Teaching, TeachingSamplesSayWhatKMeansMakesOfThem) {
  QSettings().clear();
  auto w = std::make_unique<MainWindow>();
  w->resize(1280, 800);
  w->show();
  for (const char* id :
       {"moons", "anisotropic", "unequal-variances", "unequal-sizes", "rings", "uniform"}) {
    ASSERT_TRUE(w->openSample(QString::fromLatin1(id))) << id;
    ASSERT_TRUE(waitFor([&] {
      const auto& data = w->session().dataset();
      return data && data->source.contains(QString::fromLatin1(id)) &&
             w->session().state() == SessionState::Ready;
    })) << id;
    auto* note = w->views()->scatter2d()->findChild<QLabel*>(QStringLiteral("viewNote"));
    ASSERT_NE(note, nullptr);
    EXPECT_TRUE(note->isVisibleTo(w.get())) << id;
    EXPECT_FALSE(note->text().isEmpty()) << id;
  }
  ASSERT_TRUE(w->openSample(QStringLiteral("blobs")));
  ASSERT_TRUE(waitFor(
      [&] { return w->session().dataset() && w->session().dataset()->source.endsWith(".csv"); }));
  EXPECT_FALSE(
      w->views()->scatter2d()->findChild<QLabel*>(QStringLiteral("viewNote"))->isVisibleTo(w.get()))
      << "plain blobs need no warning";
}

TEST(Teaching, SweepDialogFindsTheFiveBlobsAndSetsK) {
  auto w = blobsWindow();
  kms::ui::SweepDialog* dialog = w->showSweepDialog();
  ASSERT_NE(dialog, nullptr);
  dialog->setRange(2, 8, 2);
  QSignalSpy done(dialog, &kms::ui::SweepDialog::finished);
  dialog->start();
  ASSERT_TRUE(waitFor([&] { return done.count() == 1; }, 60000));
  const kms::app::SweepResult& result = dialog->result();
  ASSERT_EQ(result.rows.size(), 7u);
  EXPECT_FALSE(result.cancelled);
  EXPECT_EQ(result.elbowK, 5);
  // The same numbers as the sweep run directly on the same data and settings.
  const auto input = kms::app::ClusteringInput::build(w->session().dataset(),
                                                      w->controls()->settings().clustering);
  auto engine = kms::createCpuEngine(2);
  engine->setData(input->view());
  kms::app::SweepOptions options;
  options.kFrom = 2;
  options.kTo = 8;
  options.restarts = 2;
  options.base = w->controls()->settings().config;
  const kms::app::SweepResult direct = kms::app::runSweep(*engine, input->view(), options);
  for (std::size_t i = 0; i < direct.rows.size(); ++i) {
    EXPECT_EQ(result.rows[i].inertia, direct.rows[i].inertia) << "k = " << direct.rows[i].k;
    EXPECT_EQ(result.rows[i].silhouette, direct.rows[i].silhouette) << "k = " << direct.rows[i].k;
  }
  // Choosing a row sets k in the window.
  dialog->table()->selectRow(3);  // k = 5
  emit dialog->table()->cellDoubleClicked(3, 0);
  EXPECT_TRUE(waitFor([&] { return w->views()->frame() && w->views()->frame()->k == 5; }));
  EXPECT_EQ(w->controls()->settings().config.k, 5);
}

TEST(Teaching, SweepCanBeCancelled) {
  auto w = blobsWindow();
  kms::ui::SweepDialog* dialog = w->showSweepDialog();
  ASSERT_NE(dialog, nullptr);
  dialog->setRange(2, 256, 4);
  QSignalSpy done(dialog, &kms::ui::SweepDialog::finished);
  dialog->start();
  ASSERT_TRUE(dialog->running());
  dialog->cancel();
  ASSERT_TRUE(waitFor([&] { return done.count() == 1; }, 10000)) << "stops after one start";
  EXPECT_TRUE(dialog->result().cancelled);
  EXPECT_LT(dialog->result().rows.size(), 255u);
}

TEST(Teaching, PresentationModeDrawsLarger) {
  auto w = blobsWindow();
  const double before = w->font().pointSizeF();
  w->actions().presentation->setChecked(true);
  EXPECT_EQ(w->views()->scatter2d()->drawingScale(), 1.8);
  EXPECT_GT(w->font().pointSizeF(), before * 1.3);
  w->actions().presentation->setChecked(false);
  EXPECT_EQ(w->views()->scatter2d()->drawingScale(), 1.0);
  EXPECT_EQ(w->font().pointSizeF(), before);
}

TEST(Teaching, EmptyClustersAreMarkedOnTheTimelineAndInTheView) {
  auto w = blobsWindow();
  // A centroid far outside the data gets no points in the first iteration.
  w->startFromCentroids({-0.5f, 1.0f, 0.5f, -0.5f, 40.0f, 40.0f});
  ASSERT_TRUE(waitFor([&] {
    const auto& f = w->views()->frame();
    return f && f->k == 3 && f->iteration == 0;
  }));
  w->actions().stepWhole->trigger();
  ASSERT_TRUE(shows(*w, 1, StepPhase::Whole));
  EXPECT_EQ(w->views()->frame()->stats.empty_clusters, 1);
  EXPECT_TRUE(w->views()->scatter2d()->title().contains(QStringLiteral("went empty")))
      << w->views()->scatter2d()->title().toStdString();
  QLabel* marks = w->controls()->timelineMarks();
  ASSERT_TRUE(waitFor([&] { return marks->isVisibleTo(w.get()); }));
  EXPECT_TRUE(marks->text().contains(QStringLiteral("iteration 1"))) << marks->text().toStdString();
}

TEST(Teaching, CompareStepsTwoInitialisationsTogether) {
  auto w = blobsWindow();
  kms::ui::CompareDialog* compare = w->showCompareDialog();
  ASSERT_NE(compare, nullptr);
  compare->setSide(0, kms::InitMethod::KMeansPlusPlus, 2);
  compare->setSide(1, kms::InitMethod::Random, 30);
  const auto at = [&](int side, int iteration, StepPhase phase) {
    return waitFor([&] {
      const auto& f = compare->frame(side);
      return f && f->iteration == iteration && f->phase == phase;
    });
  };
  ASSERT_TRUE(at(0, 0, StepPhase::Whole) && at(1, 0, StepPhase::Whole));
  for (int t = 1; t <= 3; ++t) {
    compare->stepWhole();
    ASSERT_TRUE(at(0, t, StepPhase::Whole)) << "A, iteration " << t;
    ASSERT_TRUE(at(1, t, StepPhase::Whole)) << "B, iteration " << t;
  }
  compare->stepBack();
  ASSERT_TRUE(at(0, 3, StepPhase::Assign) && at(1, 3, StepPhase::Assign)) << "back together";
  EXPECT_TRUE(
      waitFor([&] { return compare->curvePoints(0) == 3 && compare->curvePoints(1) == 3; }));
  // Each side is the run it would be alone.
  const auto& data = w->session().dataset();
  const std::pair<kms::InitMethod, std::uint64_t> setups[2] = {{kms::InitMethod::KMeansPlusPlus, 2},
                                                               {kms::InitMethod::Random, 30}};
  for (int side = 0; side < 2; ++side) {
    auto engine = kms::createCpuEngine(1);
    engine->setData(data->view());
    kms::KMeansConfig config = w->controls()->settings().config;
    config.init = setups[side].first;
    config.seed = setups[side].second;
    engine->initialize(config);
    kms::IterationStats stats;
    for (int t = 0; t < 3; ++t)
      stats = engine->step();
    EXPECT_EQ(compare->frame(side)->stats.inertia, stats.inertia) << "side " << side;
  }
  EXPECT_NE(compare->frame(0)->stats.inertia, compare->frame(1)->stats.inertia)
      << "two different starts";
  // Linked views: panning A moves B.
  QCustomPlot* a = compare->view(0)->plot();
  QCustomPlot* b = compare->view(1)->plot();
  a->xAxis->setRange(-0.5, 0.25);
  EXPECT_EQ(b->xAxis->range().lower, -0.5);
  EXPECT_EQ(b->xAxis->range().upper, 0.25);
  compare->close();
}
