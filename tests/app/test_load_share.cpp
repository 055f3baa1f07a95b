// LoadOptions::rowShare: a rank of a run over several processes reads only its rows of a .npy or
// classic binary file, and names a bad value by its row in the whole file.
#include <gtest/gtest.h>

#include <cmath>

#include "io/load.h"
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

}  // namespace
}  // namespace kms::app::test
