// File ▸ Export ▸ Animation…: the shown run (the start picked, at its settings) as a clip; the
// dialog's progress and Cancel.
#include <QAction>
#include <QImageReader>
#include <QSettings>
#include <QSignalSpy>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include <memory>

#include "clip/clip_run.h"
#include "clip_dialog.h"
#include "controls_panel.h"
#include "export_controller.h"
#include "main_window.h"
#include "sample_window.h"
#include "studio_actions.h"
#include "ui_test_support.h"
#include "views/cluster_views.h"

using kms::session::SessionState;
using kms::test::waitFor;
using kms::ui::ClipDialog;
using kms::ui::ExportController;
using kms::ui::MainWindow;

namespace {

std::unique_ptr<MainWindow> blobsWindow(int restarts) {
  auto w = kms::test::sampleWindow(QStringLiteral("blobs"));
  kms::session::RunSettings s = w->controls()->settings();
  s.restarts = restarts;
  s.config.init = kms::InitMethod::Random;
  s.config.k = 5;
  w->controls()->setSettings(s);
  w->session().setSettings(s);
  EXPECT_TRUE(waitFor([&] { return w->session().state() == SessionState::Ready; }, 60000));
  w->actions().playPause->trigger();
  EXPECT_TRUE(waitFor([&] { return w->session().state() == SessionState::Finished; }, 120000));
  EXPECT_TRUE(waitFor([&] { return w->views()->frame() && w->views()->frame()->finished; }, 10000));
  return w;
}

int framesIn(const QString& path) {
  QImageReader reader(path);
  int frames = 0;
  while (reader.canRead() && !reader.read().isNull())
    ++frames;
  return frames;
}

}  // namespace

TEST(ClipExport, TheShownStartBecomesTheClip) {
  auto w = blobsWindow(3);
  QTemporaryDir dir;
  ExportController& exporter = w->exporter();
  ASSERT_TRUE(exporter.available(ExportController::Kind::Animation));
  ASSERT_TRUE(w->actions().exportAnimation->isEnabled());
  // Another start than the best: the clip replays that one (seed S + start), not the best.
  const auto frame = w->views()->frame();
  const int other = (frame->bestStart + 1) % 3;
  w->session().showStart(other);
  ASSERT_TRUE(waitFor([&] { return w->views()->frame()->start == other; }, 20000));
  const int iterations = w->views()->frame()->iteration;
  QSignalSpy done(&exporter, &ExportController::exported);
  QSignalSpy failed(&exporter, &ExportController::failed);
  kms::app::clip::ClipOptions options;
  options.size = QSize(320, 240);
  exporter.setClipOptions(options);
  exporter.exportTo(ExportController::Kind::Animation, dir.filePath("start.gif"));
  ASSERT_TRUE(waitFor([&] { return done.count() + failed.count() > 0; }, 60000));
  ASSERT_EQ(failed.count(), 0) << failed.first().first().toString().toStdString();
  EXPECT_EQ(framesIn(dir.filePath("start.gif")), iterations + 1);
  // That start, replayed from the window's settings and seed S + start, ends on the centroids
  // the window shows, bit for bit; the best start would not.
  const auto shown = w->views()->frame();
  kms::KMeansConfig config = w->session().settings().config;
  config.seed += std::uint64_t(other);
  const kms::app::clip::ClipRun run(shown->input, config, kms::BackendKind::Cpu);
  EXPECT_EQ(run.iterations(), iterations);
  EXPECT_EQ(run.centroidsAfter(run.iterations()), shown->centroids);
  config.seed = w->session().settings().config.seed + std::uint64_t(frame->bestStart);
  const kms::app::clip::ClipRun best(shown->input, config, kms::BackendKind::Cpu);
  EXPECT_NE(best.centroidsAfter(best.iterations()), shown->centroids);
}

TEST(ClipExport, TheDialogShowsProgressAndCancelLeavesNoFile) {
  auto w = blobsWindow(1);
  QTemporaryDir dir;
  ExportController& exporter = w->exporter();
  QSignalSpy done(&exporter, &ExportController::exported);
  w->actions().exportAnimation->trigger();
  QPointer<ClipDialog> dialog = exporter.clipDialog();
  ASSERT_TRUE(dialog);
  EXPECT_TRUE(dialog->isVisible());
  EXPECT_TRUE(dialog->path().endsWith(QStringLiteral(".gif"))) << dialog->path().toStdString();

  // Cancel during a long export: the dialog closes, nothing is written.
  const QString cancelled = dir.filePath("cancelled.gif");
  dialog->setPath(cancelled);
  kms::app::clip::ClipOptions big;
  big.size = QSize(1920, 1080);
  big.halfSteps = true;
  dialog->setOptions(big);
  dialog->startExport();
  ASSERT_TRUE(dialog->running());
  if (qEnvironmentVariableIsSet("KMS_SCREENSHOT_DIR")) {
    waitFor([&] { return false; }, 400);
    dialog->grab().save(qEnvironmentVariable("KMS_SCREENSHOT_DIR") + "/animation-dialog.png");
  }
  dialog->reject();
  ASSERT_TRUE(waitFor([&] { return !dialog || !dialog->isVisible(); }, 20000));
  EXPECT_FALSE(QFile::exists(cancelled));
  EXPECT_EQ(done.count(), 0);

  // Export: the dialog closes and the window hears of the file.
  w->actions().exportAnimation->trigger();
  dialog = exporter.clipDialog();
  ASSERT_TRUE(dialog);
  const QString path = dir.filePath("run.webp");
  dialog->setPath(path);
  kms::app::clip::ClipOptions small;
  small.size = QSize(320, 240);
  dialog->setOptions(small);
  dialog->startExport();
  ASSERT_TRUE(waitFor([&] { return done.count() == 1; }, 60000));
  EXPECT_EQ(done.first().at(1).toString(), path);
  EXPECT_EQ(framesIn(path), w->views()->frame()->iteration + 1);
  ASSERT_TRUE(waitFor([&] { return !dialog || !dialog->isVisible(); }, 5000));
}
