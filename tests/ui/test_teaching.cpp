// The teaching moves in the window: half-steps drawn in the 2-D view (rings on changed points,
// arrows on moved centroids), the timeline, and the step keys wherever the focus is.
#include <QLabel>
#include <QLineEdit>
#include <QSettings>
#include <QSlider>
#include <QSpinBox>
#include <QTest>

#include <gtest/gtest.h>

#include "controls_panel.h"
#include "main_window.h"
#include "studio_actions.h"
#include "ui_test_support.h"
#include "views/cluster_views.h"
#include "views/scatter_view.h"

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
