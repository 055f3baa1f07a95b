// kmeans-studio driven from the command line on the offscreen platform: it opens, runs,
// screenshots, writes the report and exits by itself (what the GPU machine will do).
#include <QFileInfo>
#include <QImage>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <gtest/gtest.h>

#include <set>
#include <string_view>

#include "support/sanitizers.h"

namespace {

struct Result {
  int exitCode = -1;
  bool finished = false;
  QString output;
};

/// Runs kmeans-studio on the offscreen platform, or under `wrapper` (xvfb-run) with X11.
Result runStudio(const QStringList& arguments, int timeoutMs = 90000, const QString& wrapper = {}) {
  QProcess process;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  if (wrapper.isEmpty()) {
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
  } else {
    env.remove(QStringLiteral("QT_QPA_PLATFORM"));
#if defined(KMS_TEST_ASAN)
    // Mesa unloads its software driver before LeakSanitizer looks: its leaks would have no
    // library name, and tests/sanitizers/lsan.supp could not name them. Preloaded, it stays.
    const QString driver = QStringLiteral("/usr/lib/x86_64-linux-gnu/dri/swrast_dri.so");
    if (QFileInfo::exists(driver)) {
      env.insert(QStringLiteral("LD_PRELOAD"), driver);
      env.insert(QStringLiteral("ASAN_OPTIONS"), env.value(QStringLiteral("ASAN_OPTIONS")) +
                                                     QStringLiteral(":verify_asan_link_order=0"));
    }
#endif
  }
  process.setProcessEnvironment(env);
  process.setProcessChannelMode(QProcess::MergedChannels);
  const QStringList studio =
      QStringList{QStringLiteral(KMS_STUDIO_PATH), "--no-persist"} + arguments;
  if (wrapper.isEmpty())
    process.start(studio.first(), studio.mid(1));
  else
    process.start(wrapper, QStringList{"-a", "-s", "-screen 0 1600x1200x24"} + studio);
  Result result;
  result.finished = process.waitForFinished(timeoutMs);
  if (!result.finished) process.kill(), process.waitForFinished(5000);
  result.exitCode = process.exitCode();
  result.output = QString::fromUtf8(process.readAll());
  return result;
}

}  // namespace

TEST(StudioCli, RunsScreenshotsReportsAndExits) {
  QTemporaryDir dir;
  const QString shot = dir.filePath(QStringLiteral("shot.png"));
  const QString report = dir.filePath(QStringLiteral("report.json"));
  const Result r =
      runStudio({"--generate", "blobs", "--points", "5000", "--groups", "4", "--k", "4",
                 "--backend", "cpu", "--run", "--screenshot", shot, "--report", report,
                 "--quit-when-finished", "--print-stats", "--size", "1200x800"});
  ASSERT_TRUE(r.finished) << r.output.toStdString();
  EXPECT_EQ(r.exitCode, 0) << r.output.toStdString();
  EXPECT_TRUE(r.output.contains(QStringLiteral("it/s"))) << r.output.toStdString();
  const QImage image(shot);
  EXPECT_EQ(image.size(), QSize(1200, 800));
  QFile file(report);
  ASSERT_TRUE(file.open(QIODevice::ReadOnly));
  const QJsonObject json = QJsonDocument::fromJson(file.readAll()).object();
  EXPECT_EQ(json.value("settings").toObject().value("k").toInt(), 4);
  EXPECT_GT(json.value("iteration_count").toInt(), 0);
}

TEST(StudioCli, ScreenshotAfterADelayWhileRunning) {
  QTemporaryDir dir;
  const QString shot = dir.filePath(QStringLiteral("mid.png"));
  const Result r =
      runStudio({"--sample", "blobs", "--tolerance", "0", "--max-iterations", "1000000", "--speed",
                 "10", "--run", "--screenshot", shot, "--screenshot-after-ms", "700"});
  ASSERT_TRUE(r.finished) << r.output.toStdString();
  EXPECT_EQ(r.exitCode, 0) << r.output.toStdString();
  EXPECT_FALSE(QImage(shot).isNull());
}

TEST(StudioCli, BadArgumentsAndFilesFailWithAMessage) {
  const Result unknown = runStudio({"--sample", "nope", "--screenshot", "/tmp/never.png"});
  ASSERT_TRUE(unknown.finished);
  EXPECT_NE(unknown.exitCode, 0);
  EXPECT_TRUE(unknown.output.contains(QStringLiteral("nope"))) << unknown.output.toStdString();
  const Result missing = runStudio({"--open", "/no/such/file.csv", "--quit-when-finished"});
  ASSERT_TRUE(missing.finished);
  EXPECT_NE(missing.exitCode, 0);
  EXPECT_TRUE(missing.output.contains(QStringLiteral("file.csv"))) << missing.output.toStdString();
  const Result badK = runStudio({"--k", "zero"});
  ASSERT_TRUE(badK.finished);
  EXPECT_EQ(badK.exitCode, 2);
}

TEST(StudioCli, OpenGLViewUnderXvfbRendersAndExits) {
  // The real 3-D path (Q3DScatter with Mesa's software OpenGL), which the offscreen tests
  // cannot reach.
  const QString xvfb = QStandardPaths::findExecutable(QStringLiteral("xvfb-run"));
  if (xvfb.isEmpty()) GTEST_SKIP() << "xvfb-run is not installed";
  QTemporaryDir dir;
  const QString shot = dir.filePath(QStringLiteral("3d.png"));
  const Result r = runStudio(
      {"--sample", "cloud", "--view", "3d", "--run", "--screenshot", shot, "--size", "1000x700"},
      120000, xvfb);
  ASSERT_TRUE(r.finished) << r.output.toStdString();
  EXPECT_EQ(r.exitCode, 0) << r.output.toStdString();
  const QImage image(shot);
  ASSERT_EQ(image.size(), QSize(1000, 700));
  // The 3-D scene is painted into the grab: the view area is not one flat colour.
  const QImage view = image.copy(QRect(400, 150, 400, 300)).convertToFormat(QImage::Format_RGB32);
  std::set<QRgb> colours;
  for (int y = 0; y < view.height(); y += 7)
    for (int x = 0; x < view.width(); x += 7)
      colours.insert(view.pixel(x, y));
  EXPECT_GT(colours.size(), 20u);
}

TEST(StudioCli, HelpAndVersionNeedNoDisplay) {
  for (const char* option : {"--help", "--version"}) {
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char* name : {"QT_QPA_PLATFORM", "DISPLAY", "WAYLAND_DISPLAY"})
      env.remove(QString::fromLatin1(name));
    process.setProcessEnvironment(env);
    process.start(QStringLiteral(KMS_STUDIO_PATH), {QString::fromLatin1(option)});
    ASSERT_TRUE(process.waitForFinished(30000)) << option;
    EXPECT_EQ(process.exitStatus(), QProcess::NormalExit) << option;
    EXPECT_EQ(process.exitCode(), 0) << option;
    const QString out = QString::fromUtf8(process.readAllStandardOutput());
    EXPECT_TRUE(out.contains(option == std::string_view("--help")
                                 ? QStringLiteral("--sample")
                                 : QStringLiteral("kmeans-studio ")))
        << option << ": " << out.toStdString();
  }
}
