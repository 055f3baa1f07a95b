// The teaching moves of a session: half-steps (assign, then update), stepping back and showing
// any earlier iteration again — labels recomputed exactly from the engine's history.
#include <gtest/gtest.h>

#include <memory>

#include "session/session_controller.h"
#include "ui_test_support.h"

using kms::session::FramePtr;
using kms::session::RunSettings;
using kms::session::SessionController;
using kms::session::SessionState;
using kms::session::StepPhase;
using kms::test::waitFor;

namespace {

struct Frames {
  explicit Frames(SessionController& s) : session(s) {
    QObject::connect(&s, &SessionController::deliveryPending, &context, [this] {
      if (auto d = session.mailbox().take(); d.frame) all.push_back(d.frame);
    });
  }
  /// Waits for a frame of `iteration` in `phase` newer than the `count` seen so far.
  FramePtr next(std::size_t count, int iteration, StepPhase phase) {
    FramePtr found;
    waitFor([&] {
      for (std::size_t i = count; i < all.size(); ++i)
        if (all[i]->iteration == iteration && all[i]->phase == phase) found = all[i];
      return bool(found);
    });
    return found;
  }
  SessionController& session;
  QObject context;
  std::vector<FramePtr> all;
};

RunSettings teaching(int k) {
  RunSettings s;
  s.config.k = k;
  s.config.init = kms::InitMethod::Random;
  s.config.seed = 4;
  s.config.tolerance = 0.0;
  s.config.max_iterations = 30;
  s.backend = kms::BackendKind::Cpu;
  return s;
}

/// Whole steps 1..n with one session: the reference frames, by iteration.
std::vector<FramePtr> wholeSteps(const kms::app::DatasetPtr& data, const RunSettings& s, int n) {
  SessionController session;
  Frames seen(session);
  session.setSettings(s);
  session.setDataset(data);
  std::vector<FramePtr> byIteration(1);
  byIteration[0] = seen.next(0, 0, StepPhase::Whole);
  for (int t = 1; t <= n; ++t) {
    const std::size_t count = seen.all.size();
    session.step();
    byIteration.push_back(seen.next(count, t, StepPhase::Whole));
  }
  return byIteration;
}

}  // namespace

TEST(SessionHistory, HalfStepsShowAssignThenUpdate) {
  const auto data = kms::test::blobs(4000, 5);
  const RunSettings s = teaching(5);
  const auto whole = wholeSteps(data, s, 3);
  for (const auto& f : whole)
    ASSERT_TRUE(f);

  SessionController session;
  Frames seen(session);
  session.setSettings(s);
  session.setDataset(data);
  ASSERT_TRUE(seen.next(0, 0, StepPhase::Whole));
  for (int t = 1; t <= 3; ++t) {
    std::size_t count = seen.all.size();
    session.stepHalf();
    const FramePtr assign = seen.next(count, t, StepPhase::Assign);
    ASSERT_TRUE(assign) << "iteration " << t;
    EXPECT_EQ(assign->labels, whole[t]->labels) << "new labels";
    EXPECT_EQ(assign->centroids, whole[t - 1]->centroids) << "centroids not moved yet";
    if (t >= 2) {
      std::vector<std::uint32_t> changed;
      for (std::uint32_t i = 0; i < whole[t]->labels.size(); ++i)
        if (whole[t]->labels[i] != whole[t - 1]->labels[i]) changed.push_back(i);
      EXPECT_EQ(assign->changedRows, changed) << "points that changed cluster are marked";
    }
    count = seen.all.size();
    session.stepHalf();
    const FramePtr update = seen.next(count, t, StepPhase::Update);
    ASSERT_TRUE(update) << "iteration " << t;
    EXPECT_EQ(update->labels, whole[t]->labels);
    EXPECT_EQ(update->centroids, whole[t]->centroids) << "moved to the means";
    EXPECT_EQ(update->movedFrom, whole[t - 1]->centroids) << "arrows start where they were";
  }
  EXPECT_EQ(session.state(), SessionState::Paused);
}

TEST(SessionHistory, SteppingBackAndScrubbingShowTheLabelsOfThatIteration) {
  const auto data = kms::test::blobs(3000, 4);
  const RunSettings s = teaching(4);
  const auto whole = wholeSteps(data, s, 6);

  SessionController session;
  Frames seen(session);
  session.setSettings(s);
  session.setDataset(data);
  ASSERT_TRUE(seen.next(0, 0, StepPhase::Whole));
  for (int t = 1; t <= 6; ++t) {  // whole steps, as a flat-out run would leave it
    const std::size_t count = seen.all.size();
    session.step();
    ASSERT_TRUE(seen.next(count, t, StepPhase::Whole));
  }
  // ← from the end of iteration 6: its assign, then the end of iteration 5, ...
  std::size_t count = seen.all.size();
  session.stepBack();
  FramePtr f = seen.next(count, 6, StepPhase::Assign);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->labels, whole[6]->labels);
  EXPECT_EQ(f->centroids, whole[5]->centroids);
  EXPECT_EQ(f->latestIteration, 6);
  count = seen.all.size();
  session.stepBack();
  f = seen.next(count, 5, StepPhase::Update);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->labels, whole[5]->labels);
  EXPECT_EQ(f->centroids, whole[5]->centroids);
  // The timeline: any iteration as a whole, labels identical to those captured then.
  for (const int t : {2, 0, 4, 1, 6}) {
    count = seen.all.size();
    session.showIteration(t);
    f = seen.next(count, t, StepPhase::Whole);
    ASSERT_TRUE(f) << "iteration " << t;
    EXPECT_EQ(f->labels, whole[t]->labels) << "iteration " << t;
    EXPECT_EQ(f->centroids, whole[t]->centroids) << "iteration " << t;
    EXPECT_EQ(f->stats.inertia, whole[t]->stats.inertia) << "iteration " << t;
  }
  // Forward again from iteration 1: history first, then new iterations from the engine.
  count = seen.all.size();
  session.showIteration(1);
  ASSERT_TRUE(seen.next(count, 1, StepPhase::Whole));
  count = seen.all.size();
  session.step();
  f = seen.next(count, 2, StepPhase::Whole);
  ASSERT_TRUE(f);
  EXPECT_EQ(f->labels, whole[2]->labels);
  count = seen.all.size();
  session.showIteration(6);
  ASSERT_TRUE(seen.next(count, 6, StepPhase::Whole));
  count = seen.all.size();
  session.stepHalf();
  f = seen.next(count, 7, StepPhase::Assign);
  ASSERT_TRUE(f) << "the engine runs iteration 7";
  EXPECT_EQ(f->centroids, whole[6]->centroids);
}
