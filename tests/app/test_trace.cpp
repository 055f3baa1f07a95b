// Traces (io/trace.h) and their comparison with exact Lloyd (core/trace_compare.h), on traces
// made on purpose: one that is exact Lloyd to the last bit; one whose centroids after iteration 4
// are moved by less than a ten-thousandth of a cluster's radius (as another summation order
// would), which flips the point nearest a tie at iteration 5; one with a wrong update at
// iteration 7; one that cycles between two label sets; and broken ones (another d, a header
// whose k disagrees with the array, missing iterations, NaN centroids, a truncated array).
#include <gtest/gtest.h>

#include <QDir>
#include <QFile>

#include <cmath>
#include <cstring>
#include <random>

#include "cli_support.h"
#include "core/trace_compare.h"
#include "io/trace.h"
#include "kmeans/backend.h"
#include "test_support.h"

namespace kms::app::test {
namespace {

/// Overlapping 2-D blobs: many points near the borders between clusters.
DatasetPtr blobs(std::size_t n, int d = 2, std::uint64_t seed = 3) {
  auto data = std::make_shared<Dataset>();
  data->n = n;
  data->d = d;
  data->values.resize(n * std::size_t(d));
  std::mt19937 rng{std::uint32_t(seed)};
  std::normal_distribution<float> noise(0.0f, 1.0f);
  for (std::size_t i = 0; i < n; ++i)
    for (int c = 0; c < d; ++c)
      data->values[i * std::size_t(d) + c] = float(int(i % 4) * 2 * (c == 0)) + noise(rng);
  data->dimensionNames = defaultDimensionNames(d);
  return data;
}

std::vector<float> firstRows(const Dataset& data, int k) {
  return {data.values.begin(), data.values.begin() + std::ptrdiff_t(k * data.d)};
}

/// Exact Lloyd from `start` for `iterations`, appended to `trace` (whose centroids end with
/// `start`), labels and stats included.
void continueExactly(const Dataset& data, RunTrace& trace, int iterations) {
  auto engine = createCpuEngine(0);
  engine->setData(DataView{data.values.data(), data.n, data.d});
  KMeansConfig config;
  config.k = trace.k;
  config.init = InitMethod::Given;
  config.initial_centroids = trace.centroids.back();
  config.tolerance = 0.0;
  config.max_iterations = iterations;
  engine->initialize(config);
  for (int t = 0; t < iterations; ++t) {
    const IterationStats stats = engine->step();
    Snapshot s;
    engine->snapshot(s);
    trace.centroids.push_back(s.centroids);
    trace.labels.push_back(s.labels);
    trace.inertia.push_back(stats.inertia);
    trace.changed.push_back(std::int64_t(stats.changed));
  }
}

RunTrace startTrace(const Dataset& data, int k) {
  RunTrace trace;
  trace.k = k;
  trace.d = data.d;
  trace.n = data.n;
  trace.source = QStringLiteral("the test");
  trace.centroids.push_back(firstRows(data, k));
  return trace;
}

TEST(Trace, WritesAndReadsBackEveryArray) {
  TempFiles files;
  const DatasetPtr data = blobs(600);
  RunTrace trace = startTrace(*data, 4);
  continueExactly(*data, trace, 5);
  writeTrace(files.path(QStringLiteral("t")), trace);
  const RunTrace back = readTrace(files.path(QStringLiteral("t")));
  EXPECT_EQ(back.k, 4);
  EXPECT_EQ(back.d, 2);
  EXPECT_EQ(back.n, 600u);
  EXPECT_EQ(back.iterations(), 5);
  EXPECT_EQ(back.centroids, trace.centroids);
  EXPECT_EQ(back.labels, trace.labels);
  EXPECT_EQ(back.inertia, trace.inertia);
  EXPECT_EQ(back.changed, trace.changed);
  EXPECT_EQ(back.source, QStringLiteral("the test"));
}

TEST(TraceCompare, ExactLloydMatchesToTheLastBit) {
  const DatasetPtr data = blobs(3000);
  RunTrace trace = startTrace(*data, 4);
  continueExactly(*data, trace, 12);
  const TraceComparison c = compareTrace(*data, trace, QStringLiteral("t"));
  EXPECT_TRUE(c.identical);
  EXPECT_EQ(c.firstDivergence, 0);
  EXPECT_EQ(c.firstFlip, 0);
  EXPECT_TRUE(c.wrongUpdates.empty());
  ASSERT_EQ(c.iterations.size(), 12u);
  for (const auto& it : c.iterations) {
    EXPECT_EQ(it.update, UpdateVerdict::Exact) << it.iteration;
    EXPECT_EQ(it.storedLabelsWrong, 0) << it.iteration;
    EXPECT_DOUBLE_EQ(it.adjustedRand, 1.0);
  }
  for (int j = 0; j < 4; ++j)
    EXPECT_EQ(c.matching[std::size_t(j)], j);
  ASSERT_FALSE(c.findings.isEmpty());
  EXPECT_TRUE(c.findings.front().contains(QStringLiteral("to the last bit")));
}

TEST(TraceCompare, NamesStoredLabelsThatTheCentroidsDoNotImply) {
  const DatasetPtr data = blobs(3000);
  RunTrace trace = startTrace(*data, 4);
  continueExactly(*data, trace, 6);
  // One stored label of iteration 5 is not the one its centroids imply (the centroids stay
  // exact: the label is only recorded wrong, as a GEMM-style distance can round at a near tie).
  auto& labels = trace.labels[4];
  labels[17] = (labels[17] + 1) % 4;
  const TraceComparison c = compareTrace(*data, trace, QStringLiteral("t"));
  EXPECT_EQ(c.iterations[4].storedLabelsWrong, 1);
  EXPECT_EQ(c.iterations[3].storedLabelsWrong, 0);
  EXPECT_TRUE(c.findings.join(u' ').contains(
      QStringLiteral("stored labels differ from those its centroids imply (exact distances) at "
                     "iteration 5, 1 row")))
      << c.findings.join(u'\n').toStdString();
}

TEST(TraceCompare, ARoundingSizedMoveFlipsTheNearTiePointAtTheNextIteration) {
  const DatasetPtr data = blobs(40000);
  const int k = 4, d = 2;
  RunTrace trace = startTrace(*data, k);
  continueExactly(*data, trace, 4);  // exact through iteration 4
  // The point nearest a tie under the centroids after iteration 4, and the move of its centroid
  // that just flips it: far below a ten-thousandth of a cluster's radius.
  std::vector<float>& c4 = trace.centroids.back();
  std::size_t nearest = 0;
  int best_a = 0, best_b = 0;
  double smallest = INFINITY, da_at = 0, db_at = 0;
  for (std::size_t i = 0; i < data->n; ++i) {
    const float* x = &data->values[i * d];
    double dist[4];
    for (int j = 0; j < k; ++j) {
      const double e0 = double(x[0]) - c4[j * d], e1 = double(x[1]) - c4[j * d + 1];
      dist[j] = e0 * e0 + e1 * e1;
    }
    int a = 0;
    for (int j = 1; j < k; ++j)
      if (dist[j] < dist[a]) a = j;
    int b = a == 0 ? 1 : 0;
    for (int j = 0; j < k; ++j)
      if (j != a && dist[j] < dist[b]) b = j;
    const double gap = std::sqrt(dist[b]) - std::sqrt(dist[a]);
    if (gap < smallest) {
      smallest = gap;
      nearest = i;
      best_a = a;
      best_b = b;
      da_at = dist[a];
      db_at = dist[b];
    }
  }
  ASSERT_LT(smallest, 1e-4) << "no point near a tie";
  const float* x = &data->values[nearest * d];
  const double ux = c4[best_a * d] - x[0], uy = c4[best_a * d + 1] - x[1];
  const double norm = std::sqrt(ux * ux + uy * uy);
  const double move = 1.05 * (std::sqrt(db_at) - std::sqrt(da_at)) + 1e-6;
  c4[best_a * d] = float(c4[best_a * d] + ux / norm * move);
  c4[best_a * d + 1] = float(c4[best_a * d + 1] + uy / norm * move);
  continueExactly(*data, trace, 6);  // exact Lloyd from the moved centroids
  const TraceComparison c = compareTrace(*data, trace, QStringLiteral("t"));
  EXPECT_FALSE(c.identical);
  EXPECT_EQ(c.firstDivergence, 4);
  EXPECT_EQ(c.iterations[3].update, UpdateVerdict::Rounded) << c.iterations[3].updateError;
  EXPECT_TRUE(c.wrongUpdates.empty());
  EXPECT_EQ(c.firstFlip, 5);
  const auto& flip = c.iterations[4];
  EXPECT_GE(flip.flipped, 1);
  EXPECT_EQ(flip.flippedNearTies, flip.flipped) << "the flips are rounding's, near ties";
  EXPECT_TRUE(c.findings.join(u' ').contains(QStringLiteral("iteration 5")));
}

TEST(TraceCompare, NamesAWrongUpdateAtIterationSeven) {
  const DatasetPtr data = blobs(3000);
  RunTrace trace = startTrace(*data, 4);
  continueExactly(*data, trace, 7);
  std::vector<float>& c7 = trace.centroids.back();
  c7[2] += 0.4f;  // cluster 1 moved by 0.4 (its radius is about 1)
  trace.labels.back()[0] = trace.labels.back()[0];  // stored labels stay the ones assigned
  continueExactly(*data, trace, 5);
  const TraceComparison c = compareTrace(*data, trace, QStringLiteral("t"));
  EXPECT_EQ(c.firstDivergence, 7);
  ASSERT_EQ(c.wrongUpdates, std::vector<int>{7});
  EXPECT_EQ(c.iterations[6].update, UpdateVerdict::Wrong);
  EXPECT_GT(c.iterations[6].updateError, 0.1);
  EXPECT_EQ(c.iterations[7].update, UpdateVerdict::Exact) << "iteration 8 is exact again";
  ASSERT_FALSE(c.findings.isEmpty());
  EXPECT_TRUE(c.findings.front().contains(QStringLiteral("iteration 7")));
  EXPECT_TRUE(c.findings.front().contains(QStringLiteral("wrong")));
}

TEST(TraceCompare, FindsACycleBetweenTwoLabelSets) {
  const DatasetPtr data = blobs(2000);
  const int k = 4;
  RunTrace trace = startTrace(*data, k);
  const std::vector<float> a = trace.centroids[0];
  std::vector<float> b = a;
  std::swap(b[0], b[2]);  // two clusters trade their x: other labels
  for (int t = 1; t <= 6; ++t)
    trace.centroids.push_back(t % 2 ? b : a);
  const TraceComparison c = compareTrace(*data, trace, QStringLiteral("t"));
  EXPECT_EQ(c.cyclePeriod, 2);
  EXPECT_EQ(c.cycleStart, 1);
  EXPECT_TRUE(c.findings.join(u' ').contains(QStringLiteral("cycle")));
  EXPECT_EQ(c.stopByChanged, 0) << "labels keep changing";
  // Every point that trades clusters goes back every other iteration.
  ASSERT_GT(c.iterations[1].changedFraction, 0.0);
  EXPECT_EQ(c.iterations[0].oscillating, 0);
  const auto swapped = std::int64_t(std::llround(c.iterations[1].changedFraction * 2000));
  EXPECT_EQ(c.iterations[2].oscillating, swapped);
  EXPECT_EQ(c.oscillatingPoints, std::size_t(swapped));
  EXPECT_TRUE(c.findings.join(u' ').contains(QStringLiteral("oscillate")));
}

TEST(TraceCompare, RefusesAnotherDAndANewerOrBrokenTrace) {
  TempFiles files;
  const DatasetPtr data = blobs(500);
  RunTrace trace = startTrace(*data, 3);
  continueExactly(*data, trace, 3);
  const DatasetPtr other = blobs(500, 3);
  try {
    compareTrace(*other, trace, QStringLiteral("run7"));
    FAIL() << "another d";
  } catch (const LoadError& e) {
    EXPECT_TRUE(e.message().contains(QStringLiteral("run7")));
    EXPECT_TRUE(e.message().contains(QStringLiteral("d = 2")));
  }
  const QString dir = files.path(QStringLiteral("t"));
  writeTrace(dir, trace);
  const auto expectRefused = [&](const char* file, const char* words) {
    try {
      readTrace(dir);
      ADD_FAILURE() << "accepted: " << words;
    } catch (const LoadError& e) {
      EXPECT_TRUE(e.message().contains(QLatin1String(file))) << e.message().toStdString();
      EXPECT_TRUE(e.message().contains(QLatin1String(words))) << e.message().toStdString();
    }
  };
  QFile header(QDir(dir).filePath(QStringLiteral("trace.json")));
  ASSERT_TRUE(header.open(QIODevice::ReadOnly));
  const QByteArray original = header.readAll();
  header.close();
  const auto rewrite = [&](const QByteArray& from, const QByteArray& to) {
    QByteArray text = original;
    text.replace(from, to);
    QFile f(QDir(dir).filePath(QStringLiteral("trace.json")));
    ASSERT_TRUE(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(text);
  };
  rewrite("\"k\": 3", "\"k\": 4");
  expectRefused("centroids.npy", "k = 4");
  rewrite("\"iterations\": 3", "\"iterations\": 5");
  expectRefused("centroids.npy", "missing iterations");
  rewrite("\"version\": 1", "\"version\": 2");
  expectRefused("trace.json", "version 2");
  rewrite("", "");
  // NaN centroids after iteration 2, then a truncated array.
  QFile npy(QDir(dir).filePath(QStringLiteral("centroids.npy")));
  ASSERT_TRUE(npy.open(QIODevice::ReadOnly));
  QByteArray bytes = npy.readAll();
  npy.close();
  const qsizetype values = bytes.size() - qsizetype(4 * 4 * 3 * 2);
  QByteArray nan = bytes;
  const float bad = NAN;
  std::memcpy(nan.data() + values + 4 * (2 * 3 * 2 + 1), &bad, 4);
  files.write(QStringLiteral("t/centroids.npy"), nan);
  expectRefused("centroids.npy", "after iteration 2");
  files.write(QStringLiteral("t/centroids.npy"), bytes.left(bytes.size() - 8));
  expectRefused("centroids.npy", "truncated");
}

TEST(TraceCli, WritesItsOwnTraceAndFindsItExact) {
  TempFiles files;
  const QString trace = files.path(QStringLiteral("trace"));
  const QString report = files.path(QStringLiteral("compare.json"));
  const CliRun run =
      runCli({QStringLiteral("--generate"), QStringLiteral("blobs"), QStringLiteral("--points"),
              QStringLiteral("3000"), QStringLiteral("-k"), QStringLiteral("5"),
              QStringLiteral("--backend"), QStringLiteral("cpu"), QStringLiteral("--restarts"),
              QStringLiteral("3"), QStringLiteral("--trace"), trace, QStringLiteral("-q")});
  ASSERT_EQ(run.exitCode, 0) << run.err.toStdString();
  const RunTrace written = readTrace(trace);
  EXPECT_EQ(written.k, 5);
  EXPECT_GE(written.iterations(), 2);
  EXPECT_EQ(written.labels.size(), std::size_t(written.iterations()));
  const CliRun compared =
      runCli({QStringLiteral("--generate"), QStringLiteral("blobs"), QStringLiteral("--points"),
              QStringLiteral("3000"), QStringLiteral("--compare-trace"), trace,
              QStringLiteral("--report"), report});
  ASSERT_EQ(compared.exitCode, 0) << compared.err.toStdString();
  EXPECT_TRUE(compared.out.contains(QStringLiteral("to the last bit")))
      << compared.out.toStdString();
  const QJsonObject json = readJson(report).value(QStringLiteral("trace_comparison")).toObject();
  EXPECT_TRUE(json.value(QStringLiteral("identical")).toBool());
  const CliRun wrongData =
      runCli({QStringLiteral("--generate"), QStringLiteral("blobs"), QStringLiteral("--points"),
              QStringLiteral("3000"), QStringLiteral("--dims"), QStringLiteral("3"),
              QStringLiteral("--compare-trace"), trace});
  EXPECT_NE(wrongData.exitCode, 0);
  EXPECT_TRUE(wrongData.err.contains(QStringLiteral("d = 2"))) << wrongData.err.toStdString();
}

}  // namespace
}  // namespace kms::app::test
