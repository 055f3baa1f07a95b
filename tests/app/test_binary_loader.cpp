// The classic binary format: round trip, detection by content, and every malformed header.
#include <gtest/gtest.h>

#include <cmath>

#include "test_support.h"

namespace kms::app::test {
namespace {

const std::vector<float> kValues = {0.0f, -1.5f, 3.25f, 1e-30f, 7.0f, 123456.789f};

TEST(BinaryLoader, RoundTripsExactly) {
  const TempFiles files;
  for (const char* name : {"points.bin", "points.dat", "no-suffix"}) {
    const DatasetPtr data =
        loadOrFail(files.write(QString::fromLatin1(name), classicBinary(3, 2, kValues)));
    ASSERT_TRUE(data) << name;
    EXPECT_EQ(data->n, 3u);
    EXPECT_EQ(data->d, 2);
    EXPECT_EQ(data->values, kValues);
    EXPECT_EQ(data->dimensionNames, (QStringList{"x", "y"}));
  }
}

TEST(BinaryLoader, TruncatedDataSaysHowManyBytesAreMissing) {
  const TempFiles files;
  const QByteArray bytes = classicBinary(3, 2, kValues).chopped(5);
  EXPECT_TRUE(failsToLoad(files.write("short.bin", bytes),
                          {"expected 24 bytes of point data", "file has 19"}));
}

TEST(BinaryLoader, TrailingBytesAreRejected) {
  const TempFiles files;
  EXPECT_TRUE(failsToLoad(files.write("long.bin", classicBinary(3, 2, kValues) + "xyz"),
                          {"expected 24 bytes of point data", "file has 27"}));
}

TEST(BinaryLoader, AbsurdHeadersAreRejectedBeforeAllocating) {
  const TempFiles files;
  EXPECT_TRUE(
      failsToLoad(files.write("zero.bin", classicBinary(0, 2, {})), {"both must be positive"}));
  EXPECT_TRUE(failsToLoad(files.write("negative.bin", classicBinary(-4, 2, kValues)),
                          {"header says -4 points of 2 dimensions"}));
  EXPECT_TRUE(failsToLoad(files.write("dims.bin", classicBinary(2, 0, kValues)),
                          {"both must be positive"}));
  // 2^31−1 × 2^31−1 values: far beyond any limit, and more bytes than the file has.
  EXPECT_TRUE(failsToLoad(files.write("huge.bin", classicBinary(INT32_MAX, INT32_MAX, kValues)),
                          {"exceed the limit of"}));
  LoadOptions options;
  options.maxValues = 4;
  EXPECT_TRUE(failsToLoad(files.write("limit.bin", classicBinary(3, 2, kValues)),
                          {"3 points × 2 dimensions exceed the limit of 4 values"}, options));
  EXPECT_TRUE(failsToLoad(files.write("tiny.bin", "abc"), {"too short for the 8-byte header"}));
}

TEST(BinaryLoader, NonFiniteValuesAreNamed) {
  const TempFiles files;
  std::vector<float> values = kValues;
  values[3] = NAN;
  EXPECT_TRUE(failsToLoad(files.write("nan.bin", classicBinary(3, 2, values)),
                          {"point 2, coordinate 2: NaN is not allowed"}));
  values[3] = -INFINITY;
  EXPECT_TRUE(failsToLoad(files.write("inf.dat", classicBinary(3, 2, values)),
                          {"point 2, coordinate 2: infinity is not allowed"}));
}

}  // namespace
}  // namespace kms::app::test
