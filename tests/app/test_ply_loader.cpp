// PLY point clouds: ascii and binary, colours, meshes, and every malformed file.
#include <gtest/gtest.h>

#include <QtEndian>

#include <cmath>

#include "io/export.h"
#include "test_support.h"

namespace kms::app::test {
namespace {

QByteArray header(const char* format, int count, const char* properties, const char* extra = "") {
  return QByteArray("ply\nformat ") + format + " 1.0\ncomment test\n" + extra + "element vertex " +
         QByteArray::number(count) + "\n" + properties + "end_header\n";
}

constexpr const char* kXyzRgb =
    "property float x\nproperty float y\nproperty float z\n"
    "property uchar red\nproperty uchar green\nproperty uchar blue\n";

TEST(PlyLoader, AsciiWithColoursRoundTrips) {
  const TempFiles files;
  const QByteArray text = header("ascii", 2, kXyzRgb) + "1 2 3 255 0 16\n-0.5 1e-3 7 1 2 3\n";
  const DatasetPtr data = loadOrFail(files.write("cloud.ply", text));
  ASSERT_TRUE(data);
  EXPECT_EQ(data->n, 2u);
  EXPECT_EQ(data->d, 3);
  EXPECT_EQ(data->dimensionNames, (QStringList{"x", "y", "z"}));
  EXPECT_EQ(data->values, (std::vector<float>{1, 2, 3, -0.5f, 1e-3f, 7}));
  EXPECT_EQ(data->pointColours, (std::vector<std::uint32_t>{0xFF0010, 0x010203}));
}

TEST(PlyLoader, BinaryLittleEndianRoundTripsThroughTheWriter) {
  const TempFiles files;
  Dataset cloud;
  cloud.n = 3;
  cloud.d = 3;
  cloud.values = {0.1f, 0.2f, 0.3f, -1e20f, 5, 6, 7, 8, 9};
  cloud.pointColours = {0x123456, 0xABCDEF, 0x000000};
  cloud.dimensionNames = defaultDimensionNames(3);
  const QString path = files.path("written.ply");
  writePointsPly(path, cloud);
  const DatasetPtr data = loadOrFail(path);
  ASSERT_TRUE(data);
  EXPECT_EQ(data->values, cloud.values);
  EXPECT_EQ(data->pointColours, cloud.pointColours);
}

TEST(PlyLoader, BigEndianDoublesWithoutColourIn2D) {
  const TempFiles files;
  QByteArray data = header("binary_big_endian", 2, "property double x\nproperty double y\n");
  for (double v : {1.5, -2.0, 3.25, 4e10}) {
    char bytes[8];
    qToBigEndian(v, bytes);
    data.append(bytes, 8);
  }
  const DatasetPtr cloud = loadOrFail(files.write("big.ply", data));
  ASSERT_TRUE(cloud);
  EXPECT_EQ(cloud->d, 2);
  EXPECT_EQ(cloud->values, (std::vector<float>{1.5f, -2.0f, 3.25f, 4e10f}));
  EXPECT_TRUE(cloud->pointColours.empty());
}

TEST(PlyLoader, MeshVerticesLoadAndOtherElementsAreSkipped) {
  const TempFiles files;
  // A binary file with an element before the vertices (with a list) and faces after them.
  QByteArray data = header("binary_little_endian", 3,
                           "property float x\nproperty float y\nproperty float z\n"
                           "property float nx\nproperty list uchar int extra\n",
                           "element camera 1\nproperty list uchar float params\nproperty int id\n");
  data +=
      "\x02" + littleEndian(std::vector<float>{9, 9}) + littleEndian(std::vector<std::int32_t>{7});
  for (int v = 0; v < 3; ++v)
    data += littleEndian(std::vector<float>{float(v), float(v) + 0.5f, -float(v), 1.0f}) + "\x01" +
            littleEndian(std::vector<std::int32_t>{v});
  data += "element face follows, never read";
  const DatasetPtr cloud = loadOrFail(files.write("mesh.ply", data));
  ASSERT_TRUE(cloud);
  EXPECT_EQ(cloud->n, 3u);
  EXPECT_EQ(cloud->values, (std::vector<float>{0, 0.5f, 0, 1, 1.5f, -1, 2, 2.5f, -2}));
}

TEST(PlyLoader, FloatColoursAreScaledFrom0To1) {
  const TempFiles files;
  const QByteArray text = header("ascii", 1,
                                 "property float x\nproperty float y\nproperty float red\n"
                                 "property float green\nproperty float blue\n") +
                          "0 0 1.0 0.5 0\n";
  const DatasetPtr cloud = loadOrFail(files.write("float-colour.ply", text));
  ASSERT_TRUE(cloud);
  EXPECT_EQ(cloud->pointColours, (std::vector<std::uint32_t>{0xFF8000}));
}

TEST(PlyLoader, TruncatedDataNamesTheVertex) {
  const TempFiles files;
  QByteArray binary =
      header("binary_little_endian", 3, "property float x\nproperty float y\nproperty float z\n") +
      littleEndian(std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8});
  EXPECT_TRUE(failsToLoad(files.write("short.ply", binary),
                          {"expected at least 36 bytes of vertex data, file has 32"}));
  // With a list per vertex the size is only known while reading.
  binary = header("binary_little_endian", 2,
                  "property float x\nproperty float y\nproperty list uchar float w\n") +
           littleEndian(std::vector<float>{1, 2}) + "\x01" +
           littleEndian(std::vector<float>{9, 3, 4}) + "\x02";
  EXPECT_TRUE(failsToLoad(files.write("short-list.ply", binary),
                          {"vertex 2, property w: the file ends early"}));
  const QByteArray ascii =
      header("ascii", 3, "property float x\nproperty float y\n") + "1 2\n3 4\n5\n";
  EXPECT_TRUE(failsToLoad(files.write("short-ascii.ply", ascii),
                          {"vertex 3, property y: the file ends early"}));
}

TEST(PlyLoader, TextAndNonFiniteValuesAreNamed) {
  const TempFiles files;
  const char* xy = "property float x\nproperty float y\n";
  EXPECT_TRUE(failsToLoad(files.write("text.ply", header("ascii", 2, xy) + "1 2\n3 abc\n"),
                          {"vertex 2, property y: 'abc' is not a number"}));
  EXPECT_TRUE(failsToLoad(files.write("nan.ply", header("ascii", 2, xy) + "1 2\nnan 4\n"),
                          {"vertex 2, property x: NaN is not allowed"}));
  const QByteArray binary =
      header("binary_little_endian", 1, xy) + littleEndian(std::vector<float>{INFINITY, 0});
  EXPECT_TRUE(failsToLoad(files.write("inf.ply", binary),
                          {"vertex 1, property x: infinity is not allowed"}));
}

TEST(PlyLoader, MalformedHeadersAreRejected) {
  const TempFiles files;
  const char* xy = "property float x\nproperty float y\n";
  EXPECT_TRUE(failsToLoad(files.write("no-end.ply", "ply\nformat ascii 1.0\nelement vertex 1\n"),
                          {"PLY header has no end_header line"}));
  EXPECT_TRUE(failsToLoad(files.write("format.ply", header("binary_middle_endian", 1, xy)),
                          {"PLY header line 2: unknown format 'binary_middle_endian'"}));
  EXPECT_TRUE(failsToLoad(files.write("type.ply", header("ascii", 1, "property quad x\n") + "1\n"),
                          {"PLY header line 5: unknown property type"}));
  EXPECT_TRUE(failsToLoad(files.write("keyword.ply", header("ascii", 1, xy, "banana split\n")),
                          {"PLY header line 4: unknown keyword 'banana'"}));
  EXPECT_TRUE(failsToLoad(
      files.write("count.ply", "ply\nformat ascii 1.0\nelement vertex many\nend_header\n"),
      {"expected 'element <name> <count>'"}));
  EXPECT_TRUE(failsToLoad(
      files.write("noformat.ply", "ply\nelement vertex 1\nproperty float x\nend_header\n1\n"),
      {"PLY header has no format line"}));
  EXPECT_TRUE(failsToLoad(files.write("magic.ply", "hello\nend_header\n"), {"not a PLY file"}));
}

TEST(PlyLoader, MissingVerticesOrCoordinatesAreRejected) {
  const TempFiles files;
  EXPECT_TRUE(
      failsToLoad(files.write("faces.ply",
                              "ply\nformat ascii 1.0\nelement face 1\n"
                              "property list uchar int vertex_indices\nend_header\n3 0 1 2\n"),
                  {"PLY file has no vertex element"}));
  EXPECT_TRUE(failsToLoad(
      files.write("noy.ply", header("ascii", 1, "property float x\nproperty float z\n") + "1 2\n"),
      {"PLY vertex element has no x and y properties"}));
  EXPECT_TRUE(failsToLoad(
      files.write("zero.ply", header("ascii", 0, "property float x\nproperty float y\n")),
      {"no data points"}));
}

TEST(PlyLoader, ListLengthsTheFileCannotHoldAreRejected) {
  // Found by fuzzing (tests/fuzz/corpus/ply/regression-huge-list-length.ply): a length beyond
  // 2^64 reached an undefined float-to-integer conversion.
  const TempFiles files;
  const char* withList =
      "property float x\nproperty float y\nproperty list uchar int vertex_indices\n";
  for (const char* length : {"2e444", "1e300", "nan", "2.5", "100000"}) {
    const QByteArray text = header("ascii", 1, withList) + "0 0 " + length + " 1 2\n";
    EXPECT_TRUE(failsToLoad(files.write("list.ply", text), {"does not fit the file"})) << length;
  }
  EXPECT_TRUE(loadOrFail(files.write("fine.ply", header("ascii", 1, withList) + "0 0 2 1 2\n")));
}

TEST(PlyLoader, AbsurdVertexCountIsRejectedBeforeAllocating) {
  const TempFiles files;
  const char* xy = "property float x\nproperty float y\n";
  const QByteArray binary =
      header("binary_little_endian", 500000000, xy) + littleEndian(std::vector<float>{1, 2});
  EXPECT_TRUE(failsToLoad(files.write("absurd.ply", binary),
                          {"expected at least 4,000,000,000 bytes of vertex data, file has 8"}));
  EXPECT_TRUE(failsToLoad(files.write("absurd-ascii.ply", header("ascii", 500000000, xy) + "1 2\n"),
                          {"header announces 500,000,000 vertices but the file is too short"}));
  EXPECT_TRUE(failsToLoad(files.write("limit.ply", header("ascii", 2000000000, xy) + "1 2\n"),
                          {"2,000,000,000 points × 2 dimensions exceed the limit of"}));
  const QByteArray huge =
      "ply\nformat ascii 1.0\nelement vertex 99999999999999999999\nproperty float x\n"
      "property float y\nend_header\n1 2\n";
  EXPECT_TRUE(
      failsToLoad(files.write("overflow.ply", huge), {"expected 'element <name> <count>'"}));
}

}  // namespace
}  // namespace kms::app::test
