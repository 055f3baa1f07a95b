// kmeans-cli --checkpoint / --resume and --live-report in one process (the same code runs every
// rank under mpirun: tests/distributed/ranks.sh checks several processes).
#include <gtest/gtest.h>

#include <QFile>
#include <QJsonArray>

#include "cli_support.h"
#include "io/live_report.h"
#include "test_support.h"

namespace kms::app::test {
namespace {

/// A point set that takes a few dozen iterations at k = 9.
QStringList data() {
  return {"--generate", "blobs", "--points",  "40000", "--groups", "12",
          "--dims",     "3",     "--noise",   "0.35",  "-k",       "9",
          "--seed",     "4",     "--backend", "cpu",   "-q"};
}

TEST(CliCheckpoint, AKilledRunResumedFromItsCheckpointGivesTheUninterruptedRunsFiles) {
  const TempFiles files;
  const CliRun whole =
      runCli(data() + QStringList{"--out-labels", files.path("l.csv"), "--out-centroids",
                                  files.path("c.csv"), "--report", files.path("whole.json")});
  ASSERT_EQ(whole.exitCode, 0) << whole.err.toStdString();
  const int iterations = readJson(files.path("whole.json"))["iteration_count"].toInt();
  ASSERT_GE(iterations, 8) << "the data must take a while";

  // Killed at iteration 7 (SIGKILL, as a crash or a scheduler would); checkpoints every 3.
  const CliRun killed =
      runCli(data() + QStringList{"--checkpoint", files.path("run.ckpt"), "--checkpoint-every", "3",
                                  "--out-labels", files.path("never.csv")},
             {"KMS_TEST_KILL_RANK=0:7"});
  EXPECT_NE(killed.exitCode, 0);
  EXPECT_FALSE(QFile::exists(files.path("never.csv")));
  ASSERT_TRUE(QFile::exists(files.path("run.ckpt")));

  const CliRun resumed =
      runCli(data() + QStringList{"--resume", files.path("run.ckpt"), "--out-labels",
                                  files.path("l2.csv"), "--out-centroids", files.path("c2.csv"),
                                  "--report", files.path("resumed.json")});
  ASSERT_EQ(resumed.exitCode, 0) << resumed.err.toStdString();
  EXPECT_EQ(readAll(files.path("l2.csv")), readAll(files.path("l.csv")));
  EXPECT_EQ(readAll(files.path("c2.csv")), readAll(files.path("c.csv")));
  // The report of the resumed run lists every iteration, the checkpoint's and its own.
  const QJsonObject a = readJson(files.path("whole.json")),
                    b = readJson(files.path("resumed.json"));
  EXPECT_EQ(b["iteration_count"].toInt(), iterations);
  const QJsonArray ia = a["iterations"].toArray(), ib = b["iterations"].toArray();
  ASSERT_EQ(ia.size(), ib.size());
  for (qsizetype i = 0; i < ia.size(); ++i) {
    EXPECT_EQ(ib[i]["changed"].toDouble(), ia[i]["changed"].toDouble()) << "iteration " << i + 1;
    EXPECT_EQ(ib[i]["inertia"].toDouble(), ia[i]["inertia"].toDouble()) << "iteration " << i + 1;
  }
}

TEST(CliCheckpoint, ACheckpointOfOtherDataOrDamagedIsRefusedByName) {
  const TempFiles files;
  ASSERT_EQ(runCli(data() +
                   QStringList{"--checkpoint", files.path("run.ckpt"), "--checkpoint-every", "2"})
                .exitCode,
            0);
  QStringList other = data();
  other[other.indexOf("0.35")] = "0.4";  // other values, the same size
  CliRun run = runCli(other + QStringList{"--resume", files.path("run.ckpt")});
  EXPECT_EQ(run.exitCode, 2);
  EXPECT_TRUE(
      run.err.contains("run.ckpt: saved for another data set (40,000 × 3, here 40,000 × 3, "
                       "other values)"))
      << run.err.toStdString();
  run = runCli(data() + QStringList{"--resume", files.path("run.ckpt"), "-k", "8"});
  EXPECT_EQ(run.exitCode, 2);
  EXPECT_TRUE(run.err.contains("run.ckpt: saved for k = 9, not -k 8")) << run.err.toStdString();
  QByteArray bytes = readAll(files.path("run.ckpt"));
  bytes[bytes.size() / 2] = char(bytes[bytes.size() / 2] ^ 0x20);
  run = runCli(data() + QStringList{"--resume", files.write("bad.ckpt", bytes)});
  EXPECT_EQ(run.exitCode, 2);
  EXPECT_TRUE(run.err.contains("bad.ckpt: the checkpoint is damaged")) << run.err.toStdString();
  run = runCli(data() + QStringList{"--resume", files.write("nothing.ckpt", "hello")});
  EXPECT_TRUE(run.err.contains("nothing.ckpt: not a kmeans-cli checkpoint"))
      << run.err.toStdString();
  run = runCli(data() + QStringList{"--checkpoint", files.path("x"), "--restarts", "3"});
  EXPECT_EQ(run.exitCode, 1);
  EXPECT_TRUE(run.err.contains("--checkpoint saves one start")) << run.err.toStdString();
}

TEST(CliLiveReport, EveryIterationIsWrittenAsItEndsWithItsCentroids) {
  const TempFiles files;
  const CliRun run = runCli(data() + QStringList{"--live-report", files.path("live.jsonl"),
                                                 "--report", files.path("report.json")});
  ASSERT_EQ(run.exitCode, 0) << run.err.toStdString();
  LiveReportReader reader(files.path("live.jsonl"));
  const int added = reader.poll();
  ASSERT_TRUE(reader.header());
  EXPECT_EQ(reader.header()->k, 9);
  EXPECT_EQ(reader.header()->d, 3);
  EXPECT_EQ(reader.header()->n, 40000u);
  EXPECT_EQ(reader.header()->centroids.size(), 27u);
  ASSERT_TRUE(reader.end());
  EXPECT_TRUE(reader.end()->converged);
  const QJsonArray iterations = readJson(files.path("report.json"))["iterations"].toArray();
  ASSERT_EQ(added, iterations.size());
  for (int i = 0; i < added; ++i) {
    const auto& it = reader.iterations()[std::size_t(i)];
    EXPECT_EQ(it.stats.iteration, i + 1);
    EXPECT_EQ(it.stats.inertia, iterations[i]["inertia"].toDouble());
    EXPECT_EQ(double(it.stats.changed), iterations[i]["changed"].toDouble());
    EXPECT_EQ(it.centroids.size(), 27u);
    EXPECT_TRUE(it.stats.rank_ms.empty());  // one process
  }
  EXPECT_EQ(reader.poll(), 0);  // nothing new
}

TEST(CliLiveReport, AReaderTakesOnlyCompleteLinesAndNamesAFileThatIsNotOne) {
  const TempFiles files;
  const QString path = files.write(
      "live.jsonl",
      R"({"kind":"header","input":"/x.npy","n":4,"d":1,"k":1,"ranks":2,"settings":{"seed":1,)"
      R"("max_iterations":5,"tolerance":0.0001,"init":"random"},"centroids":[0.5]})"
      "\n"
      R"({"kind":"iteration","iteration":1,"inertia":2.5,"changed":4,"rank_ms":[1.5,2.5],)"
      R"("centroids":[0.25]})"
      "\n"
      R"({"kind":"iteration","iteration":2,"ine)");
  LiveReportReader reader(path);
  EXPECT_EQ(reader.poll(), 1);  // the second iteration's line is still being written
  EXPECT_EQ(reader.header()->ranks, 2);
  EXPECT_EQ(reader.iterations()[0].stats.rank_ms, (std::vector<double>{1.5, 2.5}));
  QFile file(path);
  ASSERT_TRUE(file.open(QIODevice::Append));
  file.write(R"(rtia":1.0,"changed":0,"converged":true,"centroids":[0.25]})"
             "\n");
  file.close();
  EXPECT_EQ(reader.poll(), 1);
  EXPECT_TRUE(reader.iterations()[1].stats.converged);
  // Another run written over the file, longer than the first: read from its start.
  QByteArray other =
      R"({"kind":"header","began":"2026-11-28T02:00:00.000Z","input":"/y.npy","n":4,)"
      R"("d":1,"k":1,"ranks":1,"settings":{"seed":2,"max_iterations":5,)"
      R"("tolerance":0.0001,"init":"random"},"centroids":[0.75]})"
      "\n";
  for (int i = 1; i <= 5; ++i)
    other += QByteArray(R"({"kind":"iteration","iteration":)") + QByteArray::number(i) +
             R"(,"inertia":1.0,"changed":0,"centroids":[0.75]})" + "\n";
  ASSERT_TRUE(file.open(QIODevice::WriteOnly | QIODevice::Truncate));
  file.write(other);
  file.close();
  EXPECT_EQ(reader.poll(), 5);
  EXPECT_EQ(reader.header()->input, QStringLiteral("/y.npy"));
  EXPECT_EQ(reader.iterations().size(), 5u);
  LiveReportReader bad(files.write("bad.jsonl", "{\"hello\": 1}\n"));
  try {
    bad.poll();
    ADD_FAILURE() << "no error";
  } catch (const LoadError& e) {
    EXPECT_TRUE(e.message().contains("not a live report")) << e.message().toStdString();
  }
}

}  // namespace
}  // namespace kms::app::test
