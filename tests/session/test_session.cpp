// SessionController headless: the engine thread, frame hand-over, pacing, cancellation.
#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTextStream>

#include <gtest/gtest.h>

#include <memory>

#include "kmeans/backend.h"
#include "session/session_controller.h"
#include "ui_test_support.h"

using kms::session::FramePtr;
using kms::session::IterationRecord;
using kms::session::RunSettings;
using kms::session::SessionController;
using kms::session::SessionState;
using kms::test::waitFor;

namespace {

/// Collects what the GUI would see, taking deliveries like the FramePump (no screen rate).
struct Observer {
  explicit Observer(SessionController& s) : session(s) {
    QObject::connect(&s, &SessionController::deliveryPending, &context, [this] { drain(); });
  }
  void drain() {
    auto d = session.mailbox().take();
    if (d.frame) frames.push_back(d.frame);
    for (const auto& r : d.records)
      records.push_back(r);
  }
  int lastIteration() const { return records.empty() ? 0 : records.back().stats.iteration; }
  SessionController& session;
  QObject context;
  std::vector<FramePtr> frames;
  std::vector<IterationRecord> records;
};

RunSettings settings(int k, int maxIterations = 100, double tolerance = 1e-4) {
  RunSettings s;
  s.config.k = k;
  s.config.max_iterations = maxIterations;
  s.config.tolerance = tolerance;
  s.backend = kms::BackendKind::Cpu;
  return s;
}

bool reaches(SessionController& s, SessionState state, int timeoutMs = 20000) {
  return waitFor([&] { return s.state() == state; }, timeoutMs);
}

}  // namespace

TEST(Session, RunsToConvergenceAndDeliversEveryIteration) {
  SessionController session;
  Observer seen(session);
  session.setSettings(settings(4));
  session.setDataset(kms::test::blobs(5000, 4));
  ASSERT_TRUE(reaches(session, SessionState::Ready));
  session.play();
  ASSERT_TRUE(reaches(session, SessionState::Finished));
  waitFor([&] { return !seen.frames.empty() && seen.frames.back()->finished; }, 5000);
  ASSERT_FALSE(seen.records.empty());
  for (std::size_t i = 0; i < seen.records.size(); ++i)
    EXPECT_EQ(seen.records[i].stats.iteration, int(i) + 1) << "no iteration skipped or repeated";
  const FramePtr last = seen.frames.back();
  EXPECT_TRUE(last->finished);
  EXPECT_EQ(last->iteration, seen.lastIteration());
  EXPECT_EQ(last->labels.size(), 5000u);
  EXPECT_EQ(last->shares.size(), 4u);
  EXPECT_TRUE(seen.records.back().stats.converged);
}

TEST(Session, StepRunsExactlyOneIteration) {
  SessionController session;
  Observer seen(session);
  session.setSettings(settings(12, 100, 0.0));
  session.setDataset(kms::test::uniform(3000));
  ASSERT_TRUE(reaches(session, SessionState::Ready));
  for (int i = 1; i <= 3; ++i) {
    session.step();
    ASSERT_TRUE(waitFor([&] {
      return seen.lastIteration() == i && !seen.frames.empty() &&
             seen.frames.back()->iteration == i;
    }));
  }
  kms::test::spin(100);
  EXPECT_EQ(seen.lastIteration(), 3);
  EXPECT_EQ(session.state(), SessionState::Paused);
}

TEST(Session, PauseStopsTheEngineAndPlayContinues) {
  SessionController session;
  Observer seen(session);
  session.setSettings(settings(48, 1000000, 0.0));  // hundreds of iterations to converge
  session.setDataset(kms::test::uniform(100000));
  ASSERT_TRUE(reaches(session, SessionState::Ready));
  session.play();
  ASSERT_TRUE(waitFor([&] { return seen.lastIteration() >= 5; }));
  session.pause();
  ASSERT_TRUE(reaches(session, SessionState::Paused, 2000));
  kms::test::spin(50);
  const int stoppedAt = seen.lastIteration();
  kms::test::spin(300);
  EXPECT_EQ(seen.lastIteration(), stoppedAt) << "no iterations after pause";
  ASSERT_FALSE(seen.frames.empty());
  EXPECT_EQ(seen.frames.back()->iteration, stoppedAt) << "the paused frame is the last iteration";
  session.play();
  ASSERT_TRUE(waitFor([&] { return seen.lastIteration() > stoppedAt + 3; }));
  session.pause();
  ASSERT_TRUE(reaches(session, SessionState::Paused, 2000));
}

TEST(Session, ResetStartsANewRunAtIterationZero) {
  SessionController session;
  Observer seen(session);
  session.setSettings(settings(12, 100, 0.0));
  session.setDataset(kms::test::uniform(2000));
  ASSERT_TRUE(reaches(session, SessionState::Ready));
  session.step();
  session.step();
  ASSERT_TRUE(waitFor([&] { return seen.lastIteration() == 2; }));
  const auto oldRun = seen.frames.back()->runId;
  session.reset();
  ASSERT_TRUE(waitFor([&] { return seen.frames.back()->runId != oldRun; }));
  EXPECT_EQ(seen.frames.back()->iteration, 0);
  EXPECT_TRUE(seen.frames.back()->labels.empty());
  ASSERT_TRUE(reaches(session, SessionState::Ready));
}

TEST(Session, NewSettingsRestartWithTheNewK) {
  SessionController session;
  Observer seen(session);
  session.setSettings(settings(3));
  session.setDataset(kms::test::blobs(2000, 3));
  ASSERT_TRUE(waitFor([&] { return !seen.frames.empty() && seen.frames.back()->k == 3; }));
  session.setSettings(settings(6));
  ASSERT_TRUE(waitFor([&] { return seen.frames.back()->k == 6; }));
  EXPECT_EQ(seen.frames.back()->iteration, 0);
  EXPECT_EQ(seen.frames.back()->centroids.size(), 12u);
}

TEST(Session, PacedModeFollowsTheRateAndShowsEveryIteration) {
  SessionController session;
  Observer seen(session);
  session.setSettings(settings(40, 100000, 0.0));
  session.setPace(20.0);
  session.setDataset(kms::test::uniform(20000));
  ASSERT_TRUE(reaches(session, SessionState::Ready));
  session.play();
  QElapsedTimer clock;
  clock.start();
  kms::test::spin(1000);
  session.pause();
  ASSERT_TRUE(reaches(session, SessionState::Paused, 2000));
  const int done = seen.lastIteration();
  EXPECT_GE(done, 10) << "20 it/s for a second";
  EXPECT_LE(done, 30);
  // Paced: a frame for every iteration (the observer takes faster than 20 Hz).
  int framed = 0;
  for (const auto& f : seen.frames)
    framed += f->iteration > 0 ? 1 : 0;
  EXPECT_GE(framed, done - 1);
}

TEST(Session, FlatOutBuildsFramesOnlyWhenWanted) {
  SessionController session;
  Observer seen(session);
  session.setFrameInterval(50.0);  // a 20 Hz "screen" makes the bound easy to see
  session.setSettings(settings(100, 100000, 0.0));
  session.setDataset(kms::test::uniform(30000));  // ms-fast iterations, many before convergence
  ASSERT_TRUE(reaches(session, SessionState::Ready));
  session.play();
  ASSERT_TRUE(reaches(session, SessionState::Finished, 60000));
  ASSERT_TRUE(waitFor([&] { return !seen.frames.empty() && seen.frames.back()->finished; }, 5000));
  const int iterations = seen.frames.back()->iteration;
  ASSERT_GE(iterations, 20) << "the data should take a while to converge";
  ASSERT_EQ(seen.records.size(), std::size_t(iterations)) << "every iteration's stats arrive";
  const double wallMs = seen.records.back().wallMs;
  const auto posted = session.mailbox().framesPosted();
  // Iteration 0, at most one per frame interval, and the final frame.
  EXPECT_LE(double(posted), wallMs / 50.0 + 3.0)
      << iterations << " iterations in " << wallMs << " ms";
  EXPECT_LT(posted, std::uint64_t(iterations)) << "flat out must not snapshot every iteration";
}

TEST(Session, InvalidSettingsAreReportedAndRecoverable) {
  SessionController session;
  QSignalSpy errors(&session, &SessionController::errorOccurred);
  session.setSettings(settings(2));
  session.setDataset(kms::test::blobs(20, 2));
  ASSERT_TRUE(reaches(session, SessionState::Ready));
  session.setSettings(settings(50));
  ASSERT_TRUE(reaches(session, SessionState::Invalid));
  ASSERT_TRUE(waitFor([&] { return errors.count() > 0; }));
  EXPECT_TRUE(errors.first().first().toString().contains(QStringLiteral("20")))
      << errors.first().first().toString().toStdString();
  session.setSettings(settings(2));
  EXPECT_TRUE(reaches(session, SessionState::Ready));
}

TEST(Session, NewDataWithFewerPointsThanKLowersK) {
  SessionController session;
  QSignalSpy changed(&session, &SessionController::settingsChanged);
  session.setSettings(settings(16));
  changed.clear();
  session.setDataset(kms::test::blobs(10, 2));
  ASSERT_EQ(changed.count(), 1);
  EXPECT_EQ(session.settings().config.k, 10);
  EXPECT_TRUE(reaches(session, SessionState::Ready));
}

TEST(Session, UnavailableCudaFallsBackWithAMessage) {
  if (kms::cudaStatus().available) GTEST_SKIP() << "a CUDA device is present";
  SessionController session;
  QSignalSpy errors(&session, &SessionController::errorOccurred);
  RunSettings s = settings(3);
  s.backend = kms::BackendKind::Cuda;
  session.setSettings(s);
  session.setDataset(kms::test::blobs(1000, 3));
  ASSERT_TRUE(reaches(session, SessionState::Ready));
  ASSERT_TRUE(waitFor([&] { return errors.count() > 0; }));
  EXPECT_TRUE(errors.first().first().toString().contains(QStringLiteral("CPU")));
  EXPECT_EQ(session.engine().backend, QStringLiteral("cpu"));
}

TEST(Session, BadFileLeavesTheDataAsItWas) {
  SessionController session;
  session.setSettings(settings(3));
  session.setDataset(kms::test::blobs(1000, 3));
  const auto before = session.dataset();
  QTemporaryDir dir;
  const QString bad = dir.filePath(QStringLiteral("broken.csv"));
  QFile file(bad);
  ASSERT_TRUE(file.open(QIODevice::WriteOnly));
  file.write("x,y\n1,2\nthree,four\n");
  file.close();
  QSignalSpy failed(&session, &SessionController::loadFailed);
  session.openFile(bad);
  ASSERT_TRUE(waitFor([&] { return failed.count() == 1; }));
  EXPECT_TRUE(failed.first().at(1).toString().contains(QStringLiteral("broken.csv")));
  EXPECT_EQ(session.dataset(), before);
  session.openFile(dir.filePath(QStringLiteral("missing.png")));
  ASSERT_TRUE(waitFor([&] { return failed.count() == 2; }));
  EXPECT_TRUE(failed.last().at(1).toString().contains(QStringLiteral("missing.png")));
  EXPECT_EQ(session.dataset(), before);
}

TEST(Session, CancelledLoadChangesNothing) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("big.csv"));
  {
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    QTextStream out(&file);
    out << "x,y,z\n";
    for (int i = 0; i < 400000; ++i)
      out << i * 0.001 << ',' << (i % 97) * 0.5 << ',' << (i % 13) << '\n';
  }
  SessionController session;
  session.setDataset(kms::test::blobs(1000, 3));
  const auto before = session.dataset();
  QSignalSpy changed(&session, &SessionController::datasetChanged);
  QSignalSpy cancelled(&session, &SessionController::loadCancelled);
  session.openFile(path);
  EXPECT_TRUE(session.loading());
  session.cancelLoad();
  EXPECT_EQ(cancelled.count(), 1);
  EXPECT_FALSE(session.loading());
  kms::test::spin(1500);
  EXPECT_EQ(changed.count(), 0);
  EXPECT_EQ(session.dataset(), before);
}

TEST(Session, DestroyingMidRunReturnsPromptly) {
  auto session = std::make_unique<SessionController>();
  Observer seen(*session);
  session->setSettings(settings(64, 1000000, 0.0));
  session->setDataset(kms::test::uniform(300000));
  ASSERT_TRUE(reaches(*session, SessionState::Ready, 30000));
  session->play();
  ASSERT_TRUE(waitFor([&] { return seen.lastIteration() >= 2; }, 30000));
  QElapsedTimer clock;
  clock.start();
  session.reset();
  EXPECT_LT(clock.elapsed(), 5000) << "shutdown waits for at most the iteration in flight";
}

TEST(Session, ShutdownDuringLoadReturnsPromptly) {
  auto session = std::make_unique<SessionController>();
  kms::app::GeneratorParams params;
  params.n = 2000000;
  session->generate(params);
  QElapsedTimer clock;
  clock.start();
  session.reset();
  EXPECT_LT(clock.elapsed(), 10000);
}

namespace {

/// A compact picture: `colours` distinct greys over width × height pixels.
kms::app::DatasetPtr compactPicture(int width, int height, int colours) {
  auto data = std::make_shared<kms::app::Dataset>();
  data->kind = kms::app::DatasetKind::Image;
  data->width = width;
  data->height = height;
  data->d = 3;
  data->n = std::size_t(colours);
  for (int c = 0; c < colours; ++c)
    for (int j = 0; j < 3; ++j)
      data->values.push_back(float((c * 37 + j * 11) % 256) / 255.0f);
  data->counts.assign(std::size_t(colours), 0);
  for (int i = 0; i < width * height; ++i) {
    const auto row = std::uint32_t((i * 7 + i / width) % colours);
    data->index.push_back(row);
    ++data->counts[row];
  }
  data->dimensionNames = {"R", "G", "B"};
  return data;
}

}  // namespace

TEST(Session, PicturesClusterTheirDistinctColoursAndFramesCarryLabelsPerColour) {
  SessionController session;
  Observer seen(session);
  session.setSettings(settings(5, 30, 0.0));
  const auto picture = compactPicture(40, 30, 60);
  session.setDataset(picture);
  ASSERT_TRUE(reaches(session, SessionState::Ready));
  session.play();
  ASSERT_TRUE(reaches(session, SessionState::Finished));
  ASSERT_TRUE(waitFor([&] { return !seen.frames.empty() && seen.frames.back()->finished; }));
  const FramePtr last = seen.frames.back();
  EXPECT_EQ(last->labels.size(), 60u);  // one per distinct colour
  EXPECT_EQ(last->palette.size(), 5u);
  EXPECT_EQ(last->quantized.size(), QSize(40, 30));
  EXPECT_TRUE(last->quality.valid());
  EXPECT_TRUE(last->quality.deltaEExact) << "the finished frame measures ΔE exactly";
  EXPECT_EQ(seen.records.front().stats.changed, 1200u) << "changed counts pixels";
  // The same run pixel by pixel: the same frame, labels per colour included.
  SessionController perPixel;
  Observer seen2(perPixel);
  RunSettings s = settings(5, 30, 0.0);
  s.clustering.compaction = kms::app::Compaction::Never;
  perPixel.setSettings(s);
  perPixel.setDataset(picture);
  ASSERT_TRUE(reaches(perPixel, SessionState::Ready));
  // Both start from the same centroids only with a given start; k-means++ draws differ between
  // the two forms, so compare a given start.
  RunSettings given = s;
  given.config.init = kms::InitMethod::Given;
  given.config.initial_centroids = {0.1f, 0.2f, 0.3f, 0.9f, 0.1f, 0.5f, 0.5f, 0.5f,
                                    0.5f, 0.2f, 0.8f, 0.2f, 0.7f, 0.7f, 0.1f};
  perPixel.setSettings(given);
  given.clustering.compaction = kms::app::Compaction::Auto;
  session.setSettings(given);
  ASSERT_TRUE(reaches(perPixel, SessionState::Ready));
  ASSERT_TRUE(reaches(session, SessionState::Ready));
  seen.frames.clear();
  seen2.frames.clear();
  session.play();
  perPixel.play();
  ASSERT_TRUE(reaches(session, SessionState::Finished));
  ASSERT_TRUE(reaches(perPixel, SessionState::Finished));
  ASSERT_TRUE(waitFor([&] {
    return !seen.frames.empty() && seen.frames.back()->finished && !seen2.frames.empty() &&
           seen2.frames.back()->finished;
  }));
  EXPECT_EQ(seen.frames.back()->labels, seen2.frames.back()->labels);
  EXPECT_EQ(seen.frames.back()->centroids, seen2.frames.back()->centroids);
  EXPECT_EQ(seen.frames.back()->quantized, seen2.frames.back()->quantized);
}

TEST(Session, BestOfNKeepsTheLowestInertiaAndShowsAnyStart) {
  SessionController session;
  Observer seen(session);
  RunSettings s = settings(6, 60, 0.0);
  s.restarts = 4;
  s.config.init = kms::InitMethod::Random;
  session.setSettings(s);
  session.setDataset(kms::test::uniform(3000));
  ASSERT_TRUE(reaches(session, SessionState::Ready));
  QSignalSpy progress(&session, &SessionController::startProgress);
  session.play();
  ASSERT_TRUE(reaches(session, SessionState::Finished));
  ASSERT_TRUE(
      waitFor([&] { return !seen.frames.empty() && !seen.frames.back()->startSummaries.empty(); }));
  ASSERT_EQ(progress.count(), 4) << "1, 2, 3 and 4 starts done";
  const FramePtr best = seen.frames.back();
  ASSERT_EQ(best->startSummaries.size(), 4u);
  int done = 0;
  for (const QList<QVariant>& args : progress) {
    EXPECT_LT(args.at(0).toULongLong(), best->runId) << "progress is older than the result";
    EXPECT_EQ(args.at(1).toInt(), ++done);
    EXPECT_EQ(args.at(2).toInt(), 4);
  }
  int lowest = 0;
  for (int i = 1; i < 4; ++i) {
    EXPECT_EQ(best->startSummaries[std::size_t(i)].seed, s.config.seed + std::uint64_t(i));
    if (best->startSummaries[std::size_t(i)].inertia <
        best->startSummaries[std::size_t(lowest)].inertia)
      lowest = i;
  }
  EXPECT_EQ(best->bestStart, lowest);
  EXPECT_EQ(best->start, lowest);
  EXPECT_EQ(best->stats.inertia, best->startSummaries[std::size_t(lowest)].inertia);
  EXPECT_EQ(seen.records.back().stats.inertia, best->stats.inertia) << "the best start's records";
  // Showing another start: its frame and its records.
  const int other = (lowest + 1) % 4;
  seen.records.clear();
  session.showStart(other);
  ASSERT_TRUE(waitFor([&] { return seen.frames.back()->start == other; }));
  EXPECT_EQ(seen.frames.back()->stats.inertia, best->startSummaries[std::size_t(other)].inertia);
  ASSERT_TRUE(waitFor([&] { return !seen.records.empty(); }));
  EXPECT_EQ(seen.records.back().stats.inertia, seen.frames.back()->stats.inertia);
}

TEST(Session, BestOfNPausedBetweenStartsGoesOnWithTheStartsLeft) {
  const auto finalSummaries = [](bool pauseMidway) {
    SessionController session;
    Observer seen(session);
    RunSettings s = settings(12, 80, 0.0);
    s.restarts = 8;
    session.setSettings(s);
    session.setDataset(kms::test::uniform(60000));
    EXPECT_TRUE(reaches(session, SessionState::Ready));
    QSignalSpy progress(&session, &SessionController::startProgress);
    session.play();
    if (pauseMidway) {
      EXPECT_TRUE(waitFor([&] { return progress.count() >= 3; }));
      session.pause();
      EXPECT_TRUE(reaches(session, SessionState::Paused));
      const int heard = int(progress.count());
      QTest::qWait(50);
      EXPECT_EQ(progress.count(), heard) << "no start runs while paused";
      session.play();
    }
    // Eight starts of 60,000 rows: tens of seconds under a sanitizer with another test beside it.
    EXPECT_TRUE(reaches(session, SessionState::Finished, 90000));
    EXPECT_TRUE(waitFor(
        [&] { return !seen.frames.empty() && seen.frames.back()->startSummaries.size() == 8u; }));
    return seen.frames.empty() ? std::vector<kms::app::StartSummary>{}
                               : seen.frames.back()->startSummaries;
  };
  const auto straight = finalSummaries(false);
  const auto paused = finalSummaries(true);
  ASSERT_EQ(straight.size(), 8u);
  ASSERT_EQ(paused.size(), 8u);
  for (std::size_t i = 0; i < 8; ++i) {
    EXPECT_EQ(paused[i].start, int(i)) << "every start once, in order";
    EXPECT_EQ(paused[i].inertia, straight[i].inertia) << "start " << i;
    EXPECT_EQ(paused[i].iterations, straight[i].iterations) << "start " << i;
  }
}

TEST(Session, KAboveTheDistinctColoursIsLoweredWithANotice) {
  SessionController session;
  QSignalSpy notices(&session, &SessionController::notice);
  session.setSettings(settings(16));
  session.setDataset(compactPicture(10, 10, 5), 16);
  ASSERT_TRUE(reaches(session, SessionState::Ready));
  EXPECT_EQ(session.settings().config.k, 5);
  ASSERT_EQ(notices.count(), 1);
  EXPECT_TRUE(notices.first().first().toString().contains(QStringLiteral("5 distinct colours")));
}
