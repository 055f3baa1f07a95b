// kmeans-cli end to end: the sample photo, point files, generated data, every exit code.
#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>

#include <set>

#include "cli_support.h"
#include "kmeans/backend.h"
#include "test_support.h"

namespace kms::app::test {
namespace {

TEST(Cli, QuantisesTheSamplePhotoTo16Colours) {
  const TempFiles files;
  const CliRun run =
      runCli({sample("tulip-field.png"), "-k", "16", "--seed", "3", "--backend", "cpu",
              "--max-iter", "12", "--out-image", files.path("q.png"), "--out-palette",
              files.path("palette.gpl"), "--report", files.path("report.json")});
  ASSERT_EQ(run.exitCode, 0) << run.err.toStdString();
  const QImage original(sample("tulip-field.png"));
  const QImage quantised(files.path("q.png"));
  ASSERT_FALSE(quantised.isNull());
  EXPECT_EQ(quantised.size(), original.size());
  std::set<QRgb> colours;
  for (int y = 0; y < quantised.height(); ++y)
    for (int x = 0; x < quantised.width(); ++x)
      colours.insert(quantised.pixel(x, y));
  EXPECT_LE(colours.size(), 16u);
  EXPECT_GE(colours.size(), 8u);
  EXPECT_EQ(countLines(files.path("palette.gpl")), 4 + 16);

  const QJsonObject report = readJson(files.path("report.json"));
  EXPECT_EQ(report["settings"]["k"].toInt(), 16);
  EXPECT_EQ(report["settings"]["seed"].toInt(), 3);
  EXPECT_EQ(report["settings"]["backend"].toString(), QStringLiteral("cpu"));
  EXPECT_EQ(report["n"].toInteger(), original.width() * original.height());
  EXPECT_GE(report["iteration_count"].toInt(), 1);
  EXPECT_LE(report["iteration_count"].toInt(), 12);
  EXPECT_TRUE(run.out.contains(QStringLiteral("backend: cpu")));
  EXPECT_TRUE(run.out.contains(QStringLiteral("wrote ") + files.path("q.png")));
}

TEST(Cli, QuantisesAGeneratedPhoto) {
  const TempFiles files;
  const CliRun run = runCli({"--generate", "photo", "--points", "40000", "-k", "8", "--backend",
                             "cpu", "--out-image", files.path("synthetic.png")});
  ASSERT_EQ(run.exitCode, 0) << run.err.toStdString();
  const QImage quantised(files.path("synthetic.png"));
  ASSERT_EQ(quantised.size(), QSize(200, 200));
  std::set<QRgb> colours;
  for (int y = 0; y < quantised.height(); ++y)
    for (int x = 0; x < quantised.width(); ++x)
      colours.insert(quantised.pixel(x, y));
  EXPECT_LE(colours.size(), 8u);
  EXPECT_GE(colours.size(), 4u);
}

/// A 64 × 48 picture of smooth gradients with repeated colours, saved as PNG.
QString gradientPicture(const TempFiles& files) {
  QImage image(64, 48, QImage::Format_RGB32);
  for (int y = 0; y < 48; ++y)
    for (int x = 0; x < 64; ++x)
      image.setPixel(x, y, qRgb((x * 4) & 0xfc, (y * 5) & 0xf8, ((x + y) * 2) & 0xf0));
  const QString path = files.path("gradient.png");
  EXPECT_TRUE(image.save(path));
  return path;
}

TEST(Cli, WritesPalettePngsWithEveryOptionAndReportsQualityAndStarts) {
  const TempFiles files;
  const QString input = gradientPicture(files);
  for (const char* space : {"srgb", "linear", "lab", "oklab"})
    for (const char* dither : {"none", "fs", "ordered"}) {
      const QString out = files.path(QStringLiteral("q-%1-%2.png").arg(space, dither));
      const CliRun run = runCli({input, "-k", "5", "--backend", "cpu", "--colour-space", space,
                                 "--dither", dither, "--restarts", "3", "--out-image", out,
                                 "--report", files.path("r.json"), "--quiet"});
      ASSERT_EQ(run.exitCode, 0) << space << " " << dither << ": " << run.err.toStdString();
      QFile png(out);
      ASSERT_TRUE(png.open(QIODevice::ReadOnly));
      const QByteArray head = png.read(32);
      EXPECT_EQ(int(uchar(head[24])), 4) << "5 colours fit in 4 bits per pixel";
      EXPECT_EQ(int(uchar(head[25])), 3) << "a palette PNG";
      const QJsonObject report = readJson(files.path("r.json"));
      EXPECT_EQ(report["settings"]["colour_space"].toString(), QString::fromLatin1(space));
      EXPECT_EQ(report["settings"]["dither"].toString(), QString::fromLatin1(dither));
      EXPECT_EQ(report["settings"]["restarts"].toInt(), 3);
      const QJsonArray starts = report["starts"].toArray();
      ASSERT_EQ(starts.size(), 3);
      // The best start is the one with the lowest inertia, and the iterations are its own.
      int best = 0;
      for (int s = 1; s < 3; ++s)
        if (starts[s]["inertia"].toDouble() < starts[best]["inertia"].toDouble()) best = s;
      EXPECT_EQ(report["best_start"].toInt(), best);
      EXPECT_EQ(report["final_inertia"].toDouble(), starts[best]["inertia"].toDouble());
      EXPECT_EQ(report["iteration_count"].toInt(), starts[best]["iterations"].toInt());
      EXPECT_EQ(starts[1]["seed"].toInt(), 2);
      EXPECT_GT(report["quality"]["psnr"].toDouble(), 15.0);
      EXPECT_GT(report["quality"]["delta_e"].toDouble(), 0.0);
      EXPECT_FALSE(report["iterations"][0].toObject().contains("psnr"))
          << "per-iteration measures only with --track-quality";
      EXPECT_FALSE(report["stop_rule"].toString().isEmpty());
      EXPECT_EQ(report["stop_rule"].toString(), starts[best]["stop_rule"].toString());
      const QJsonArray phases = report["phases"].toArray();
      ASSERT_FALSE(phases.isEmpty());
      EXPECT_EQ(phases.first()["phase"].toString(), "reading");
      EXPECT_EQ(phases.last()["phase"].toString(), "outputs");
      EXPECT_LT(report["rows"].toInt(), report["n"].toInt()) << "distinct colours, not pixels";
    }
}

TEST(Cli, RefineIsReportedAndNeverRaisesTheInertia) {
  const TempFiles files;
  const QString input = gradientPicture(files);
  const QString report = files.path("r.json");
  const auto run = [&](const QStringList& extra) {
    const CliRun r = runCli(QStringList{input, "-k", "7", "--backend", "cpu", "--restarts", "2",
                                        "--report", report, "--quiet"} +
                            extra);
    EXPECT_EQ(r.exitCode, 0) << r.err.toStdString();
    return readJson(report);
  };
  const QJsonObject plain = run({});
  const QJsonObject refined = run({"--refine"});
  EXPECT_FALSE(plain.contains("refine"));
  const QJsonObject r = refined["refine"].toObject();
  for (const char* key : {"passes", "moves", "sse_before", "sse_after", "lloyd_iterations",
                          "inertia_before", "inertia_after", "kept"})
    EXPECT_TRUE(r.contains(QLatin1String(key))) << key;
  EXPECT_EQ(r["inertia_before"].toDouble(), plain["final_inertia"].toDouble());
  EXPECT_LE(refined["final_inertia"].toDouble(), plain["final_inertia"].toDouble());
  EXPECT_LE(r["sse_after"].toDouble(), r["sse_before"].toDouble());
  // The best start's entry is the refined run's: its inertia is the result's.
  const int best = refined["best_start"].toInt();
  EXPECT_EQ(refined["starts"][best]["inertia"].toDouble(), refined["final_inertia"].toDouble());
  if (r["kept"].toBool())
    EXPECT_LT(refined["final_inertia"].toDouble(), plain["final_inertia"].toDouble());
  else
    EXPECT_EQ(refined["final_inertia"].toDouble(), plain["final_inertia"].toDouble());
}

TEST(Cli, TrackQualityMeasuresEveryIterationOfEveryStart) {
  const TempFiles files;
  const QString input = gradientPicture(files);
  const QString report = files.path("r.json");
  const auto run = [&](const QStringList& extra) {
    const CliRun r = runCli(QStringList{input, "-k", "6", "--backend", "cpu", "--restarts", "3",
                                        "--report", report, "--quiet"} +
                            extra);
    EXPECT_EQ(r.exitCode, 0) << r.err.toStdString();
    return readJson(report);
  };
  const QJsonObject plain = run({});
  const QJsonObject tracked = run({"--track-quality"});
  const QJsonArray iterations = tracked["iterations"].toArray();
  ASSERT_FALSE(iterations.isEmpty());
  for (const QJsonValue& it : iterations)
    EXPECT_TRUE(it["psnr"].isDouble() && it["delta_e"].isDouble());
  for (const QJsonValue& start : tracked["starts"].toArray())
    EXPECT_TRUE(start["psnr"].isDouble());
  // Measuring changes nothing else: the same starts, the same best, the same result.
  EXPECT_EQ(tracked["best_start"], plain["best_start"]);
  EXPECT_EQ(tracked["final_inertia"], plain["final_inertia"]);
  EXPECT_EQ(tracked["quality"]["psnr"], plain["quality"]["psnr"]);
  for (int s = 0; s < 3; ++s)
    EXPECT_EQ(tracked["starts"][s]["inertia"], plain["starts"][s]["inertia"]);
}

TEST(Cli, RunsIterateUpTo300AndSayWhatStoppedThem) {
  const TempFiles files;
  const QString input = gradientPicture(files);
  const QString report = files.path("r.json");
  ASSERT_EQ(runCli({input, "-k", "4", "--backend", "cpu", "--report", report, "--quiet"}).exitCode,
            0);
  const QJsonObject r = readJson(report);
  EXPECT_EQ(r["settings"]["max_iterations"].toInt(), 300);
  EXPECT_TRUE(r["converged"].toBool());
  EXPECT_TRUE(
      QStringList({"no-change", "few-changed", "small-shift"}).contains(r["stop_rule"].toString()))
      << r["stop_rule"].toString().toStdString();
  // --max-iter given: kept, and a run it cuts short says so.
  ASSERT_EQ(runCli({input, "-k", "4", "--backend", "cpu", "--max-iter", "1", "--report", report,
                    "--quiet"})
                .exitCode,
            0);
  EXPECT_EQ(readJson(report)["stop_rule"].toString(), "iteration-limit");
  const CliRun shown = runCli({input, "-k", "4", "--backend", "cpu"});
  EXPECT_TRUE(shown.out.contains("converged after")) << shown.out.toStdString();
  EXPECT_TRUE(shown.out.contains("phases: reading")) << shown.out.toStdString();
}

TEST(Cli, RestartsOutOfRangeAndKAtTheColourCount) {
  const TempFiles files;
  const QString input = gradientPicture(files);
  for (const char* restarts : {"0", "100000"}) {
    const CliRun run = runCli({input, "-k", "4", "--backend", "cpu", "--restarts", restarts});
    EXPECT_NE(run.exitCode, 0) << restarts;
    EXPECT_TRUE(run.err.contains("--restarts")) << run.err.toStdString();
  }
  // k = the number of distinct colours: every colour its own cluster, a lossless picture.
  QImage four(8, 8, QImage::Format_RGB32);
  const QRgb colours[] = {qRgb(10, 20, 30), qRgb(200, 10, 10), qRgb(0, 255, 0), qRgb(9, 9, 250)};
  for (int y = 0; y < 8; ++y)
    for (int x = 0; x < 8; ++x)
      four.setPixel(x, y, colours[(x / 2 + y) % 4]);
  const QString path = files.path("four.png");
  ASSERT_TRUE(four.save(path));
  const QString out = files.path("four-k4.png");
  const CliRun run = runCli(
      {path, "-k", "4", "--backend", "cpu", "--restarts", "5", "--out-image", out, "--quiet"});
  ASSERT_EQ(run.exitCode, 0) << run.err.toStdString();
  EXPECT_EQ(QImage(out).convertToFormat(QImage::Format_RGB32), four);
}

TEST(Cli, CompactionModesSayWhatTheyCluster) {
  // (That both forms give the same result from the same start is checked in
  // test_cluster_input.cpp; here, that the CLI passes the choice through and reports it.)
  const TempFiles files;
  const QString input = gradientPicture(files);
  const struct {
    QStringList arguments;
    const char* rowsAre;
    bool fewerRows;
  } cases[] = {
      {{input, "--per-pixel"}, "pixels", false},
      {{input}, "distinct colours", true},
      {{files.write("dup.csv", "x,y\n1,2\n1,2\n3,4\n1,2\n"), "--dedupe"}, "distinct points", true},
      {{files.write("same.csv", "x,y\n1,2\n1,2\n3,4\n1,2\n")}, "points", false}};
  for (const auto& c : cases) {
    const CliRun run = runCli(
        c.arguments + QStringList{"-k", "2", "--backend", "cpu", "--report", files.path("r.json")});
    ASSERT_EQ(run.exitCode, 0) << run.err.toStdString();
    const QJsonObject report = readJson(files.path("r.json"));
    EXPECT_EQ(report["settings"]["rows_are"].toString(), QString::fromLatin1(c.rowsAre));
    EXPECT_EQ(report["rows"].toInt() < report["n"].toInt(), c.fewerRows) << c.rowsAre;
    EXPECT_TRUE(run.out.contains(QString::fromLatin1(c.rowsAre))) << run.out.toStdString();
  }
}

TEST(Cli, KAboveTheDistinctColoursIsAClearError) {
  const TempFiles files;
  QImage image(10, 10, QImage::Format_RGB32);
  for (int y = 0; y < 10; ++y)
    for (int x = 0; x < 10; ++x)
      image.setPixel(x, y, qRgb(60 * (x % 5), 10, 10));
  const QString path = files.path("five.png");
  ASSERT_TRUE(image.save(path));
  const CliRun run = runCli({path, "-k", "16", "--backend", "cpu"});
  EXPECT_EQ(run.exitCode, 2);
  EXPECT_TRUE(run.err.contains(QStringLiteral(
      "five.png: k = 16 is larger than the number of distinct colours (5). Choose k ≤ 5.")))
      << run.err.toStdString();
  const CliRun one = runCli({files.write("one.png", QByteArray()), "-k", "1"});
  EXPECT_EQ(one.exitCode, 2);
}

TEST(Cli, ClustersAPointFileWithOneLinePerIteration) {
  const TempFiles files;
  const CliRun run =
      runCli({sample("blobs-2d.csv"), "-k", "5", "--backend", "cpu", "--out-labels",
              files.path("labels.csv"), "--out-centroids", files.path("centroids.csv")});
  ASSERT_EQ(run.exitCode, 0) << run.err.toStdString();
  // stdout is a pipe here: one progress line per iteration, then the summary.
  EXPECT_TRUE(run.out.contains(QRegularExpression(QStringLiteral(
      "iter +1  inertia [0-9.e+-]+  changed 5,000 \\(100\\.00%\\)  shift [0-9.e+-]+  [0-9.]+ ms"))))
      << run.out.toStdString();
  EXPECT_TRUE(run.out.contains(QStringLiteral("converged after")));
  EXPECT_TRUE(run.out.contains(QStringLiteral("final inertia")));
  EXPECT_EQ(countLines(files.path("labels.csv")), 1 + 5000);
  const DatasetPtr centroids = loadOrFail(files.path("centroids.csv"));
  ASSERT_TRUE(centroids);
  EXPECT_EQ(centroids->n, 5u);
  EXPECT_EQ(centroids->dimensionNames, (QStringList{"cluster", "x", "y", "share"}));
}

TEST(Cli, ClustersTheSampleCloudAndAGeneratedSet) {
  const TempFiles files;
  CliRun run = runCli({sample("cloud-3d.ply"), "-k", "6", "--backend", "cpu", "--quiet"});
  EXPECT_EQ(run.exitCode, 0) << run.err.toStdString();
  EXPECT_TRUE(run.out.isEmpty()) << "--quiet printed: " << run.out.toStdString();

  run = runCli({"--generate", "moons", "--points", "3000", "--noise", "0.1", "-k", "2", "--seed",
                "5", "--report", files.path("moons.json")});
  ASSERT_EQ(run.exitCode, 0) << run.err.toStdString();
  const QJsonObject report = readJson(files.path("moons.json"));
  EXPECT_TRUE(report["input"].toString().startsWith(QStringLiteral("generator:moons points=3000")));
  EXPECT_EQ(report["n"].toInt(), 3000);
  EXPECT_EQ(report["settings"]["seed"].toInt(), 5);
  EXPECT_TRUE(run.out.contains(QStringLiteral("Moons — 3,000 points")));
}

TEST(Cli, SameSeedGivesIdenticalLabels) {
  const TempFiles files;
  for (const char* name : {"a.csv", "b.csv"})
    ASSERT_EQ(runCli({"--generate", "blobs", "--points", "4000", "--dims", "3", "-k", "4", "--init",
                      "random", "--seed", "11", "--threads", "2", "--quiet", "--out-labels",
                      files.path(QString::fromLatin1(name))})
                  .exitCode,
              0);
  QFile a(files.path("a.csv")), b(files.path("b.csv"));
  ASSERT_TRUE(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
  EXPECT_EQ(a.readAll(), b.readAll());
}

TEST(Cli, InitCentroidsReplaysAGivenStart) {
  const TempFiles files;
  const QString csv = sample("blobs-2d.csv");
  // Three centroids placed badly by hand, as a plain CSV with a header.
  const QString start = files.write("start.csv", "x,y\n-1.5,1.5\n-1.4,1.45\n1.5,-1.5\n");
  for (const char* name : {"a.csv", "b.csv"}) {
    const CliRun run =
        runCli({csv, "--init-centroids", start, "--quiet", "--report", files.path("report.json"),
                "--out-labels", files.path(QString::fromLatin1(name))});
    ASSERT_EQ(run.exitCode, 0) << run.err.toStdString();
  }
  QFile a(files.path("a.csv")), b(files.path("b.csv"));
  ASSERT_TRUE(a.open(QIODevice::ReadOnly) && b.open(QIODevice::ReadOnly));
  EXPECT_EQ(a.readAll(), b.readAll()) << "the same start gives the same run";
  const QJsonObject report = readJson(files.path("report.json"));
  EXPECT_EQ(report.value("settings").toObject().value("k").toInt(), 3) << "k from the file";
  EXPECT_EQ(report.value("settings").toObject().value("init").toString(), "given");
  // Round trip: a run's exported centroids as the start of the next one: nothing moves.
  ASSERT_EQ(runCli({csv, "-k", "5", "--quiet", "--out-centroids", files.path("end.csv")}).exitCode,
            0);
  const CliRun again = runCli({csv, "--init-centroids", files.path("end.csv"), "-k", "5",
                               "--report", files.path("again.json"), "--quiet"});
  ASSERT_EQ(again.exitCode, 0) << again.err.toStdString();
  const QJsonArray iterations = readJson(files.path("again.json")).value("iterations").toArray();
  ASSERT_FALSE(iterations.isEmpty());
  EXPECT_EQ(iterations.size(), 1) << "converged from its own result at once";
  // Not exactly 0: exported centroids are in data units, the engine centres them again, and
  // (c + mid) − mid may differ from c in the last bit.
  EXPECT_LT(iterations.last().toObject().value("max_shift").toDouble(), 1e-6);
  // Mistakes are named.
  const CliRun wrongD = runCli({csv, "--init-centroids", files.write("3d.csv", "1,2,3\n4,5,6\n")});
  EXPECT_EQ(wrongD.exitCode, 2);
  EXPECT_TRUE(wrongD.err.contains("3d.csv") && wrongD.err.contains("d = 2"))
      << wrongD.err.toStdString();
  const CliRun wrongK = runCli({csv, "--init-centroids", start, "-k", "4"});
  EXPECT_EQ(wrongK.exitCode, 1);
  EXPECT_TRUE(wrongK.err.contains("3 centroids")) << wrongK.err.toStdString();
  EXPECT_EQ(runCli({csv, "--init-centroids", start, "--init", "random"}).exitCode, 1);
}

TEST(Cli, SweepReportsEveryKAndTheElbow) {
  const TempFiles files;
  const CliRun run = runCli({sample("blobs-2d.csv"), "--sweep", "2..8", "--restarts", "2",
                             "--backend", "cpu", "--report", files.path("sweep.json")});
  ASSERT_EQ(run.exitCode, 0) << run.err.toStdString();
  EXPECT_TRUE(run.out.contains("elbow: k = 5")) << run.out.toStdString();
  const QJsonObject report = readJson(files.path("sweep.json"));
  EXPECT_EQ(report.value("kind").toString(), "sweep");
  const QJsonArray rows = report.value("rows").toArray();
  ASSERT_EQ(rows.size(), 7);
  EXPECT_EQ(rows.first().toObject().value("k").toInt(), 2);
  EXPECT_EQ(report.value("elbow").toObject().value("k").toInt(), 5);
  EXPECT_FALSE(report.value("elbow").toObject().value("rule").toString().isEmpty());
  EXPECT_FALSE(report.value("silhouette").toObject().value("sampled").toBool());
  EXPECT_EQ(runCli({sample("blobs-2d.csv"), "--sweep", "8..2"}).exitCode, 1);
  EXPECT_EQ(runCli({sample("blobs-2d.csv"), "--sweep", "2..4", "-k", "3"}).exitCode, 1);
  EXPECT_EQ(runCli({sample("blobs-2d.csv"), "--sweep", "2..4", "--out-labels", "x.csv"}).exitCode,
            1);
}

TEST(Cli, GpusAskedForByNumberDoNotFallBackToTheCpu) {
  if (kms::cudaStatus().available) GTEST_SKIP() << "a CUDA device is present";
  const CliRun run = runCli({sample("blobs-2d.csv"), "-k", "3", "--devices", "0,1"});
  EXPECT_EQ(run.exitCode, 3) << run.err.toStdString();
  EXPECT_TRUE(run.err.contains(QStringLiteral("CUDA backend unavailable")))
      << run.err.toStdString();
}

TEST(Cli, BadArgumentsExitWithOne) {
  const QString csv = sample("blobs-2d.csv");
  const std::vector<std::pair<QStringList, const char*>> cases = {
      {{csv}, "missing -k"},
      {{csv, "-k", "zero"}, "-k needs an integer ≥ 1, not 'zero'"},
      {{csv, "-k", "0"}, "needs an integer ≥ 1"},
      {{csv, "-k", "3", "--init", "magic"}, "--init needs greedy, kmeans++, kmeans|| or random"},
      {{csv, "-k", "3", "--backend", "tpu"}, "--backend needs auto, cuda, cuda-all or cpu"},
      {{csv, "-k", "3", "--devices", "0,0"}, "--devices: GPU 0 is listed twice."},
      {{csv, "-k", "3", "--devices", "one"}, "--devices: \"one\" is not a GPU number"},
      {{csv, "-k", "3", "--backend", "cpu", "--devices", "0"},
       "--devices chooses GPUs, but --backend is cpu"},
      {{csv, "-k", "3", "--tol", "-1"}, "--tol needs a number ≥ 0"},
      {{csv, "-k", "3", "--frobnicate"}, "Unknown option 'frobnicate'"},
      {{"-k", "3"}, "missing INPUT"},
      {{csv, "-k", "3", "--generate", "blobs"}, "either INPUT or --generate"},
      {{"--generate", "spirals", "-k", "3"},
       "--generate needs blobs, rings, moons, uniform, anisotropic"},
      {{"--generate", "blobs", "-k", "3", "--out-image", "x.png"}, "need an image input"},
      {{"--generate", "rings", "--points", "3", "--groups", "5", "-k", "2"},
       "more groups than points"},
      {{csv, "-k", "3", "--out-image", "x.png"},
       "blobs-2d.csv: --out-image and --out-palette need an image input"},
  };
  for (const auto& [arguments, message] : cases) {
    const CliRun run = runCli(arguments);
    EXPECT_EQ(run.exitCode, 1) << arguments.join(' ').toStdString();
    EXPECT_TRUE(run.err.contains(QString::fromUtf8(message)))
        << arguments.join(' ').toStdString() << " → " << run.err.toStdString();
  }
}

TEST(Cli, BadInputExitsWithTwoAndNamesTheFile) {
  const TempFiles files;
  CliRun run = runCli({files.path("missing.png"), "-k", "4"});
  EXPECT_EQ(run.exitCode, 2);
  EXPECT_EQ(run.err, QStringLiteral("kmeans-cli: missing.png: file does not exist\n"));

  run = runCli({files.write("ragged.csv", "x,y\n1,2\n3\n"), "-k", "2"});
  EXPECT_EQ(run.exitCode, 2);
  EXPECT_TRUE(run.err.contains(QStringLiteral("ragged.csv: line 3 has 1 values, expected 2")))
      << run.err.toStdString();

  run = runCli({files.write("three.csv", "x,y\n1,2\n3,4\n5,6\n"), "-k", "10"});
  EXPECT_EQ(run.exitCode, 2);
  EXPECT_TRUE(run.err.contains(QStringLiteral("three.csv: "))) << run.err.toStdString();
  EXPECT_TRUE(run.err.contains(QStringLiteral("k = 10"))) << run.err.toStdString();
}

TEST(Cli, UnwritableOutputExitsWithFour) {
  const TempFiles files;
  const CliRun run = runCli({sample("blobs-2d.csv"), "-k", "3", "--quiet", "--out-labels",
                             files.path("no/such/dir/labels.csv")});
  EXPECT_EQ(run.exitCode, 4);
  EXPECT_TRUE(run.err.startsWith(QStringLiteral("kmeans-cli: labels.csv: cannot create the file")))
      << run.err.toStdString();
}

TEST(Cli, ADeviceOutputFailsWithFourAndStaysADevice) {
  const CliRun run = runCli({sample("tulip-field.png"), "-k", "4", "--out-image", "/dev/full"});
  EXPECT_EQ(run.exitCode, 4);
  EXPECT_FALSE(run.out.contains(QStringLiteral("wrote"))) << run.out.toStdString();
  EXPECT_EQ(
      run.err,
      QStringLiteral("kmeans-cli: /dev/full: cannot write the file: No space left on device\n"));
  EXPECT_TRUE(QFileInfo("/dev/full").exists() && !QFileInfo("/dev/full").isFile());
}

TEST(Cli, DashWritesToStandardOutputAndMessagesGoToStandardError) {
  QProcess process;
  process.start(QStringLiteral(KMS_CLI_PATH),
                {sample("tulip-field.png"), "-k", "4", "--out-image", "-"});
  ASSERT_TRUE(process.waitForFinished(60000));
  EXPECT_EQ(process.exitCode(), 0);
  const QImage image = QImage::fromData(process.readAllStandardOutput(), "PNG");
  EXPECT_EQ(image.size(), QSize(768, 512));
  EXPECT_EQ(image.colorCount(), 4);
  const QString err = QString::fromUtf8(process.readAllStandardError());
  EXPECT_TRUE(err.contains(QStringLiteral("converged after"))) << err.toStdString();
  EXPECT_TRUE(err.contains(QStringLiteral("wrote -"))) << err.toStdString();

  const CliRun palette = runCli({sample("tulip-field.png"), "-k", "3", "-q", "--out-palette", "-"});
  EXPECT_EQ(palette.exitCode, 0);
  EXPECT_EQ(
      palette.out.count(QRegularExpression("^#[0-9a-f]{6}$", QRegularExpression::MultilineOption)),
      3)
      << palette.out.toStdString();
  EXPECT_EQ(runCli({sample("tulip-field.png"), "-k", "3", "--out-palette", "-", "--report", "-"})
                .exitCode,
            1);
}

TEST(Cli, SeveralInputsGoOnAfterAFailureAndSayWhichFailed) {
  const TempFiles files;
  const QString photo = files.path("photo.png");
  ASSERT_TRUE(QFile::copy(sample("tulip-field.png"), photo));
  const QString broken = files.write("broken.png", "not a picture");
  const QString points = files.path("points.csv");
  ASSERT_TRUE(QFile::copy(sample("blobs-2d.csv"), points));
  const QString out = files.path("out/nested");
  CliRun run = runCli({photo, broken, points, "-k", "4", "--out-dir", out});
  EXPECT_EQ(run.exitCode, 2);
  EXPECT_TRUE(run.err.contains(QStringLiteral("broken.png: ")));
  EXPECT_TRUE(run.err.endsWith(QStringLiteral("kmeans-cli: 1 of 3 files failed: broken.png\n")))
      << run.err.toStdString();
  EXPECT_TRUE(run.out.contains(QStringLiteral("[3/3] ") + points)) << run.out.toStdString();
  EXPECT_EQ(QDir(out).entryList(QDir::Files),
            (QStringList{"photo-k4.png", "points-k4-labels.csv"}));
  EXPECT_EQ(QImage(out + "/photo-k4.png").colorCount(), 4);
  EXPECT_EQ(countLines(out + "/points-k4-labels.csv"), 5001);

  // Name patterns: {name} is each input's name; without it several inputs are refused.
  run = runCli({photo, photo, "-k", "2", "-q", "--out-palette", files.path("{name}.gpl")});
  EXPECT_EQ(run.exitCode, 0) << run.err.toStdString();
  EXPECT_TRUE(QFileInfo::exists(files.path("photo.gpl")));
  run = runCli({photo, points, "-k", "2", "--out-centroids", files.path("c.csv")});
  EXPECT_EQ(run.exitCode, 1);
  EXPECT_TRUE(run.err.contains(QStringLiteral("would be overwritten by each")));
  EXPECT_EQ(runCli({photo, points, "-k", "2", "-q", "--out-dir", out}).exitCode, 0);
}

TEST(Cli, ATerminalGetsProgressBarsAPipeGetsLines) {
  // script(1) gives kmeans-cli a pseudo-terminal, as an interactive shell would.
  const QString script = QStandardPaths::findExecutable(QStringLiteral("script"));
  if (script.isEmpty()) GTEST_SKIP() << "script (bsdutils) is not installed";
  const QString command = QStringLiteral("%1 --generate photo --points 4000000 -k 8 --max-iter 5")
                              .arg(QStringLiteral(KMS_CLI_PATH));
  QProcess process;
  process.start(script, {"-qec", command, "/dev/null"});
  ASSERT_TRUE(process.waitForFinished(60000));
  const QString terminal = QString::fromUtf8(process.readAllStandardOutput());
  EXPECT_EQ(process.exitCode(), 0) << terminal.toStdString();
  EXPECT_TRUE(terminal.contains(QStringLiteral("\r[")) &&
              terminal.contains(QStringLiteral("] 5/5")))
      << "no progress bar redrawn in place: " << terminal.toStdString();
  EXPECT_FALSE(terminal.contains(QStringLiteral("iter   1  inertia")));
  const CliRun piped =
      runCli({"--generate", "photo", "--points", "40000", "-k", "8", "--max-iter", "5"});
  EXPECT_TRUE(piped.out.contains(QStringLiteral("iter   1  inertia"))) << piped.out.toStdString();
  EXPECT_FALSE(piped.out.contains(QStringLiteral("\r")));
}

TEST(Cli, MissingGpuExitsWithThree) {
  if (cudaStatus().available) GTEST_SKIP() << "a CUDA device is available here";
  const CliRun run = runCli({"--generate", "blobs", "-k", "3", "--backend", "cuda"});
  EXPECT_EQ(run.exitCode, 3);
  EXPECT_TRUE(run.err.contains(QStringLiteral("CUDA backend unavailable")))
      << run.err.toStdString();
}

TEST(Cli, TheManPageDescribesEveryOption) {
  QFile manPage(QStringLiteral(KMS_SOURCE_DIR "/docs/man/kmeans-cli.1"));
  ASSERT_TRUE(manPage.open(QIODevice::ReadOnly));
  const QString man = QString::fromUtf8(manPage.readAll()).replace(QStringLiteral("\\-"), "-");
  const CliRun help = runCli({"--help"});
  const QRegularExpression option(QStringLiteral("^\\s+(?:-\\w, )?(--[a-z-]+)"),
                                  QRegularExpression::MultilineOption);
  int options = 0;
  for (auto it = option.globalMatch(help.out); it.hasNext(); ++options) {
    const QString name = it.next().captured(1);
    EXPECT_TRUE(man.contains(name)) << name.toStdString() << " is not in kmeans-cli.1";
  }
  EXPECT_GT(options, 30);
  EXPECT_TRUE(man.contains(QStringLiteral(".TH KMEANS-CLI 1")));
}

TEST(Cli, HelpDocumentsTheExitCodes) {
  const CliRun run = runCli({"--help"});
  EXPECT_EQ(run.exitCode, 0);
  EXPECT_TRUE(
      run.out.contains(QStringLiteral("Exit status: 0 success, 1 bad arguments, 2 bad input")));
  EXPECT_TRUE(run.out.contains(QStringLiteral("--out-palette")));
}

}  // namespace
}  // namespace kms::app::test
