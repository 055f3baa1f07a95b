// LoadOptions::rowShare: a rank of a run over several processes reads only its rows of a .npy or
// classic binary file, and names a bad value by its row in the whole file; with
// LoadOptions::textShare the ranks find their rows of a text file together (threads stand in
// for the processes).
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <thread>

#include "io/load.h"
#include "kmeans/collective.h"
#include "support/thread_collective.h"
#include "test_support.h"

namespace kms::app::test {
namespace {

std::vector<float> rows(std::size_t n, int d) {
  std::vector<float> v(n * std::size_t(d));
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] = float(i) * 0.5f;
  return v;
}

LoadOptions share(std::size_t first, std::size_t last, std::size_t* seenRows = nullptr) {
  LoadOptions options;
  options.rowShare = [=](std::size_t fileRows) {
    if (seenRows) *seenRows = fileRows;
    return std::pair{first, last};
  };
  return options;
}

TEST(LoadShare, NpyAndClassicBinaryReadOnlyTheShareAndSayWhichRowsTheyAre) {
  const TempFiles files;
  const std::vector<float> all = rows(10, 2);
  const QString npy = files.write(
      "p.npy",
      npyFile("{'descr': '<f4', 'fortran_order': False, 'shape': (10, 2), }", littleEndian(all)));
  const QString bin = files.write("p.bin", classicBinary(10, 2, all));
  for (const QString& path : {npy, bin}) {
    std::size_t seen = 0;
    const DatasetPtr data = loadOrFail(path, share(3, 7, &seen));
    ASSERT_TRUE(data) << path.toStdString();
    EXPECT_EQ(seen, 10u);
    EXPECT_EQ(data->n, 4u);
    EXPECT_EQ(data->firstRow, 3u);
    EXPECT_EQ(data->fileRows, 10u);
    EXPECT_EQ(data->values, std::vector<float>(all.begin() + 6, all.begin() + 14));
  }
  // Without a share every row is read and nothing says otherwise.
  const DatasetPtr whole = loadOrFail(npy);
  EXPECT_EQ(whole->n, 10u);
  EXPECT_EQ(whole->fileRows, 0u);
}

TEST(LoadShare, ABadValueInTheShareIsNamedByItsRowInTheFile) {
  const TempFiles files;
  std::vector<float> all = rows(10, 2);
  all[5 * 2 + 1] = std::nanf("");
  const QString bin = files.write("p.bin", classicBinary(10, 2, all));
  EXPECT_TRUE(failsToLoad(bin, {"point 6, coordinate 2"}, share(4, 8)));
  // Outside the share, the value is not read at all.
  EXPECT_TRUE(loadOrFail(bin, share(6, 10)));
}

/// What each of `ranks` threads loading `path` as one rank read, or the message it threw.
struct RankLoads {
  std::vector<DatasetPtr> data;
  std::vector<std::string> errors;
};

RankLoads loadByRanks(const QString& path, int ranks, const std::vector<double>& weights = {}) {
  kms::test::ThreadWorld world(ranks);
  RankLoads out{std::vector<DatasetPtr>(std::size_t(ranks)),
                std::vector<std::string>(std::size_t(ranks))};
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      const std::shared_ptr<Collective> collective = world.rank(r);
      LoadOptions options;
      options.rowShare = [&](std::size_t rows) {
        const auto bounds = shareBoundaries(rows, ranks, weights);
        if (bounds[std::size_t(r)] == bounds[std::size_t(r) + 1])
          throw LoadError(path, QStringLiteral("an empty share"));
        return std::pair{bounds[std::size_t(r)], bounds[std::size_t(r) + 1]};
      };
      options.textShare = LoadOptions::TextShare{
          r, ranks, weights, [collective](const std::vector<std::int64_t>& mine) {
            return collective->allGather(mine);
          }};
      try {
        out.data[std::size_t(r)] = loadDataset(path, options);
      } catch (const LoadError& e) {
        out.errors[std::size_t(r)] = e.what();
      }
    });
  for (auto& thread : threads)
    thread.join();
  return out;
}

/// Expects the ranks' shares, put back together in rank order, to be `whole`.
void expectTheWholeFile(const RankLoads& loads, const Dataset& whole, const std::string& what) {
  std::vector<float> values;
  std::size_t row = 0;
  for (std::size_t r = 0; r < loads.data.size(); ++r) {
    ASSERT_TRUE(loads.data[r]) << what << ", rank " << r << ": " << loads.errors[r];
    const Dataset& part = *loads.data[r];
    EXPECT_EQ(part.firstRow, row) << what << ", rank " << r;
    // One rank reads the whole file as one process does: nothing says it is a share.
    EXPECT_EQ(part.fileRows, loads.data.size() > 1 ? whole.n : 0u) << what << ", rank " << r;
    EXPECT_EQ(part.d, whole.d) << what << ", rank " << r;
    EXPECT_EQ(part.dimensionNames, whole.dimensionNames) << what << ", rank " << r;
    values.insert(values.end(), part.values.begin(), part.values.end());
    row += part.n;
  }
  EXPECT_EQ(row, whole.n) << what;
  EXPECT_TRUE(values == whole.values) << what << ": the values differ";
}

/// A text file of `rows` rows of an id and three values, with what the text rules allow around
/// them: a byte order mark, comments, blank lines, CRLF line ends, quoted fields; ids from
/// `firstId` on (`repeatAt`: that row repeats the id before it).
std::string pointsText(std::size_t rows, bool header, long firstId,
                       std::size_t repeatAt = std::size_t(-1)) {
  std::string text = "\xEF\xBB\xBF# made for the tests\r\n\r\n";
  if (header) text += "id,\"x\",y,z # three coordinates\r\n";
  long id = firstId;
  for (std::size_t i = 0; i < rows; ++i) {
    if (i % 997 == 0) text += "# a comment line\r\n   \r\n";
    if (i != repeatAt && i > 0) ++id;
    text += std::to_string(id) + ", " + std::to_string(double(i % 251) * 0.25) + "," +
            std::to_string(-double(i % 13)) + ", \"" + std::to_string(double(i) * 1e-3) + "\"" +
            (i % 5 == 0 ? " # why not\r\n" : "\r\n");
  }
  return text;
}

TEST(LoadShare, EveryRankCountReadsATextFilesRowsAsOneProcessDoes) {
  const TempFiles files;
  const std::size_t rows = 6 * kShareRowMultiple + 777;  // seven blocks: uneven shares for 4
  const QString withIds =
      files.write("ids.csv", QByteArray::fromStdString(pointsText(rows, true, 7)));
  const QString plain =
      files.write("plain.txt", QByteArray::fromStdString(pointsText(rows, false, 0)));
  for (const QString& path : {withIds, plain}) {
    const DatasetPtr whole = loadOrFail(path);
    ASSERT_TRUE(whole);
    ASSERT_EQ(whole->d, 3) << "the id column is dropped by one process";
    for (int ranks = 1; ranks <= 4; ++ranks) {
      std::vector<double> uneven;
      for (int r = 0; r < ranks; ++r)
        uneven.push_back(double(1 + (3 * r) % 4));  // 1, 4, 3, 2
      for (const auto& weights : {std::vector<double>{}, uneven})
        expectTheWholeFile(loadByRanks(path, ranks, weights), *whole,
                           path.toStdString() + ", " + std::to_string(ranks) + " ranks" +
                               (weights.empty() ? "" : ", uneven"));
    }
  }
}

TEST(LoadShare, TheIdColumnIsDecidedOnTheWholeColumn) {
  const TempFiles files;
  const std::size_t rows = 3 * kShareRowMultiple + 500;
  // Ids that repeat exactly where two ranks' shares meet (row 16,384 of an even split in two):
  // each share alone has increasing ids; the column as a whole does not, so it stays.
  const QString edge = files.write(
      "edge.csv", QByteArray::fromStdString(pointsText(rows, true, 7, 2 * kShareRowMultiple)));
  // 0, 1, … with one repeat in the last share: not the row numbers, so the column stays.
  const QString late =
      files.write("late.txt", QByteArray::fromStdString(pointsText(rows, false, 0, rows - 3)));
  for (const QString& path : {edge, late}) {
    const DatasetPtr whole = loadOrFail(path);
    ASSERT_TRUE(whole);
    ASSERT_EQ(whole->d, 4) << "one process keeps the column";
    for (int ranks = 2; ranks <= 4; ++ranks)
      expectTheWholeFile(loadByRanks(path, ranks), *whole,
                         path.toStdString() + ", " + std::to_string(ranks) + " ranks");
  }
}

TEST(LoadShare, ABadValueInOneRanksRowsStopsEveryRankWithTheFilesLineNumber) {
  const TempFiles files;
  std::string text = pointsText(3 * kShareRowMultiple + 500, true, 1);
  // Row 20,000 (well inside the third rank's share of four) gets a word for a value.
  std::size_t at = 0;
  for (int line = 0; line < 20000 + 3; ++line)
    at = text.find('\n', at) + 1;
  text.insert(text.find(',', at) + 1, "abc");
  const QString path = files.write("bad.csv", QByteArray::fromStdString(text));
  std::string expected;
  try {
    loadDataset(path);
    FAIL() << "one process read the bad value";
  } catch (const LoadError& e) {
    expected = e.what();
  }
  EXPECT_NE(expected.find("is not a number"), std::string::npos) << expected;
  for (int ranks = 2; ranks <= 4; ++ranks) {
    const RankLoads loads = loadByRanks(path, ranks);
    for (int r = 0; r < ranks; ++r) {
      EXPECT_FALSE(loads.data[std::size_t(r)]) << ranks << " ranks, rank " << r;
      EXPECT_EQ(loads.errors[std::size_t(r)], expected) << ranks << " ranks, rank " << r;
    }
  }
  // More ranks than blocks of rows: every rank says so alike.
  const QString small =
      files.write("small.csv", QByteArray::fromStdString(pointsText(100, true, 1)));
  const RankLoads loads = loadByRanks(small, 3);
  for (int r = 0; r < 3; ++r)
    EXPECT_NE(loads.errors[std::size_t(r)].find("an empty share"), std::string::npos)
        << "rank " << r << ": " << loads.errors[std::size_t(r)];
}

}  // namespace
}  // namespace kms::app::test
