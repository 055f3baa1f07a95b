// NumPy .npy files: versions, dtypes, byte orders, shapes, and every malformed header.
#include <gtest/gtest.h>

#include <QtEndian>

#include <cmath>
#include <tuple>

#include "test_support.h"

namespace kms::app::test {
namespace {

std::string dict(const std::string& descr, const std::string& shape, bool fortran = false) {
  return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
         ", 'shape': " + shape + ", }";
}

const std::vector<float> kFloats = {1.0f, -2.5f, 3.0e-7f, 4.0f, 5.5f, -6.0f};

TEST(NpyLoader, Float32RoundTripsInEveryVersion) {
  const TempFiles files;
  for (int version : {1, 2, 3}) {
    const QString path =
        files.write(QStringLiteral("v%1.npy").arg(version),
                    npyFile(dict("<f4", "(3, 2)"), littleEndian(kFloats), version));
    const DatasetPtr data = loadOrFail(path);
    ASSERT_TRUE(data) << "version " << version;
    EXPECT_EQ(data->n, 3u);
    EXPECT_EQ(data->d, 2);
    EXPECT_EQ(data->values, kFloats);
  }
}

TEST(NpyLoader, Float64AndOtherByteOrdersAreConverted) {
  const TempFiles files;
  const std::vector<double> doubles = {0.5, -1.25, 1e30, 2.0};
  DatasetPtr data =
      loadOrFail(files.write("f8.npy", npyFile(dict("<f8", "(2, 2)"), littleEndian(doubles))));
  ASSERT_TRUE(data);
  EXPECT_EQ(data->values, (std::vector<float>{0.5f, -1.25f, 1e30f, 2.0f}));
  EXPECT_TRUE(
      data->notes.contains(QStringLiteral("float64 values, rounded to float32 once when read")));

  QByteArray big(qsizetype(kFloats.size() * 4), '\0');
  for (std::size_t i = 0; i < kFloats.size(); ++i)
    qToBigEndian(kFloats[i], big.data() + i * 4);
  data = loadOrFail(files.write("big.npy", npyFile(dict(">f4", "(2, 3)"), big)));
  ASSERT_TRUE(data);
  EXPECT_EQ(data->d, 3);
  EXPECT_EQ(data->values, kFloats);

  data = loadOrFail(files.write("pipe.npy", npyFile(dict("|f4", "(6,)"), littleEndian(kFloats))));
  ASSERT_TRUE(data);
  EXPECT_EQ(data->n, 6u);
  EXPECT_EQ(data->d, 1);
  // Python 2 wrote shapes with long integers; double quotes are valid Python too.
  data = loadOrFail(files.write(
      "py2.npy", npyFile("{\"descr\": \"<f4\", \"fortran_order\": False, \"shape\": (3L, 2L)}",
                         littleEndian(kFloats))));
  ASSERT_TRUE(data);
  EXPECT_EQ(data->values, kFloats);
}

// float16 is read exactly — normal, subnormal, the largest finite and signed zero — in either
// byte order, and the notes say what the file held; infinity is named like float32's.
TEST(NpyLoader, Float16IsReadExactly) {
  const TempFiles files;
  // 1, -2.5, 2^-24 (the smallest subnormal), 65504 (the largest finite), -0, 0.333251953125.
  const std::vector<quint16> halves = {0x3c00, 0xc100, 0x0001, 0x7bff, 0x8000, 0x3555};
  const std::vector<float> expected = {1.0f,     -2.5f, std::ldexp(1.0f, -24),
                                       65504.0f, -0.0f, 0.333251953125f};
  QByteArray little(qsizetype(halves.size() * 2), '\0'), big = little;
  for (std::size_t i = 0; i < halves.size(); ++i) {
    qToLittleEndian(halves[i], little.data() + i * 2);
    qToBigEndian(halves[i], big.data() + i * 2);
  }
  for (const auto& [name, descr, bytes] :
       {std::tuple{"le.npy", "<f2", little}, std::tuple{"be.npy", ">f2", big}}) {
    const DatasetPtr data = loadOrFail(files.write(name, npyFile(dict(descr, "(3, 2)"), bytes)));
    ASSERT_TRUE(data) << descr;
    EXPECT_EQ(data->n, 3u);
    EXPECT_EQ(data->d, 2);
    ASSERT_EQ(data->values.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i) {
      EXPECT_EQ(data->values[i], expected[i]) << descr << " value " << i;
      EXPECT_EQ(std::signbit(data->values[i]), std::signbit(expected[i])) << descr << " " << i;
    }
    EXPECT_TRUE(data->notes.contains(QStringLiteral("float16 values, read exactly as float32")))
        << data->notes.join(QStringLiteral("; ")).toStdString();
  }
  QByteArray inf(4, '\0');
  qToLittleEndian(quint16(0x3c00), inf.data());
  qToLittleEndian(quint16(0x7c00), inf.data() + 2);  // +∞
  EXPECT_TRUE(failsToLoad(files.write("inf.npy", npyFile(dict("<f2", "(1, 2)"), inf)),
                          {"point 1", "coordinate 2"}));
}

TEST(NpyLoader, UnsupportedDtypesAreNamed) {
  const TempFiles files;
  EXPECT_TRUE(failsToLoad(files.write("i8.npy", npyFile(dict("<i8", "(3,)"), QByteArray(24, '\0'))),
                          {"dtype '<i8' is not supported; expected float16, float32 or float64"}));
  EXPECT_TRUE(failsToLoad(files.write("c8.npy", npyFile(dict("<c8", "(3,)"), QByteArray(24, '\0'))),
                          {"dtype '<c8' is not supported"}));
  EXPECT_TRUE(failsToLoad(
      files.write("struct.npy", npyFile("{'descr': [('x', '<f4'), ('y', '<f4')], 'fortran_order': "
                                        "False, 'shape': (3,), }",
                                        QByteArray(24, '\0'))),
      {"structured dtypes are not supported"}));
}

TEST(NpyLoader, FortranOrderAndOtherRanksAreRejected) {
  const TempFiles files;
  EXPECT_TRUE(failsToLoad(
      files.write("fortran.npy", npyFile(dict("<f4", "(3, 2)", true), littleEndian(kFloats))),
      {"Fortran-ordered arrays are not supported"}));
  EXPECT_TRUE(failsToLoad(
      files.write("rank3.npy", npyFile(dict("<f4", "(1, 3, 2)"), littleEndian(kFloats))),
      {"shape (1, 3, 2) is not supported; expected (n, d) or (n,)"}));
  EXPECT_TRUE(failsToLoad(
      files.write("scalar.npy", npyFile(dict("<f4", "()"), littleEndian(std::vector<float>{1.0f}))),
      {"shape () is not supported"}));
  EXPECT_TRUE(failsToLoad(files.write("empty.npy", npyFile(dict("<f4", "(0, 3)"), {})),
                          {"no data points"}));
}

TEST(NpyLoader, TruncatedOrOversizedDataIsRejected) {
  const TempFiles files;
  EXPECT_TRUE(failsToLoad(
      files.write("short.npy", npyFile(dict("<f4", "(3, 2)"), littleEndian(kFloats).chopped(3))),
      {"expected 24 bytes of array data for shape (3, 2), file has 21"}));
  EXPECT_TRUE(failsToLoad(files.write("absurd.npy", npyFile(dict("<f8", "(4000000000, 4000000000)"),
                                                            littleEndian(kFloats))),
                          {"exceed the limit of"}));
  EXPECT_TRUE(failsToLoad(
      files.write("overflow.npy", npyFile(dict("<f4", "(99999999999999999999, 2)"), {})),
      {"malformed .npy header: shape value too large"}));
  const QByteArray whole = npyFile(dict("<f4", "(3, 2)"), littleEndian(kFloats));
  EXPECT_TRUE(
      failsToLoad(files.write("header-cut.npy", whole.left(40)), {".npy header is truncated"}));
  EXPECT_TRUE(failsToLoad(files.write("stub.npy", whole.left(8)), {".npy header is truncated"}));
}

TEST(NpyLoader, BadMagicVersionAndHeaderAreRejected) {
  const TempFiles files;
  EXPECT_TRUE(failsToLoad(files.write("magic.npy", "\x93NUMPX\x01\x00\x10\x00{}"),
                          {"not a .npy file (bad magic)"}));
  QByteArray v9 = npyFile(dict("<f4", "(3, 2)"), littleEndian(kFloats));
  v9[6] = 9;
  EXPECT_TRUE(failsToLoad(files.write("v9.npy", v9), {".npy format version 9.0 is not supported"}));
  EXPECT_TRUE(failsToLoad(files.write("garbage.npy", npyFile("not a dict", {})),
                          {"malformed .npy header: expected '{'"}));
  EXPECT_TRUE(failsToLoad(files.write("missing.npy", npyFile("{'descr': '<f4'}", {})),
                          {"'descr', 'fortran_order' and 'shape' are required"}));
}

TEST(NpyLoader, NonFiniteAndOutOfRangeValuesAreNamed) {
  const TempFiles files;
  std::vector<float> values = kFloats;
  values[4] = NAN;
  EXPECT_TRUE(
      failsToLoad(files.write("nan.npy", npyFile(dict("<f4", "(3, 2)"), littleEndian(values))),
                  {"point 3, coordinate 1: NaN is not allowed"}));
  EXPECT_TRUE(failsToLoad(
      files.write("range.npy",
                  npyFile(dict("<f8", "(2,)"), littleEndian(std::vector<double>{1.0, 1e300}))),
      {"point 2, coordinate 1: 1e+300 is out of float32 range"}));
}

}  // namespace
}  // namespace kms::app::test
