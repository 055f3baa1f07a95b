// Text point files: delimiters, headers, id columns, comments, and every malformed case.
#include <gtest/gtest.h>

#include "test_support.h"

namespace kms::app::test {
namespace {

class TextLoader : public ::testing::Test {
 protected:
  DatasetPtr load(const char* name, const QByteArray& text) {
    return loadOrFail(files.write(QString::fromLatin1(name), text));
  }
  TempFiles files;
};

TEST_F(TextLoader, CsvWithHeaderRoundTripsExactly) {
  const DatasetPtr data = load("points.csv", "x,y,z\n1.5,-2,3e-3\n0.1,1e10,-7.25\n");
  ASSERT_TRUE(data);
  EXPECT_EQ(data->kind, DatasetKind::Points);
  EXPECT_EQ(data->n, 2u);
  EXPECT_EQ(data->d, 3);
  EXPECT_EQ(data->dimensionNames, (QStringList{"x", "y", "z"}));
  EXPECT_EQ(data->values, (std::vector<float>{1.5f, -2.0f, 3e-3f, 0.1f, 1e10f, -7.25f}));
  EXPECT_EQ(data->displayName, QStringLiteral("points.csv"));
  EXPECT_EQ(data->source, files.path("points.csv"));
}

TEST_F(TextLoader, HeaderlessWhitespaceGetsDefaultNames) {
  const DatasetPtr data = load("points.txt", "  3 4\t5\n\n6   7 8  \r\n");
  ASSERT_TRUE(data);
  EXPECT_EQ(data->d, 3);
  EXPECT_EQ(data->dimensionNames, (QStringList{"x", "y", "z"}));
  EXPECT_EQ(data->values, (std::vector<float>{3, 4, 5, 6, 7, 8}));
}

TEST_F(TextLoader, TabAndSemicolonDelimitersAndQuotedNames) {
  DatasetPtr data = load("points.tsv", "\"width\"\t\"height\"\n1\t2\n3\t4\n");
  ASSERT_TRUE(data);
  EXPECT_EQ(data->dimensionNames, (QStringList{"width", "height"}));
  EXPECT_EQ(data->values, (std::vector<float>{1, 2, 3, 4}));
  data = load("spaced.tsv", "leaf length\tleaf width\n1.5\t2\n");
  ASSERT_TRUE(data);
  EXPECT_EQ(data->dimensionNames, (QStringList{"leaf length", "leaf width"}));
  EXPECT_EQ(data->values, (std::vector<float>{1.5f, 2.0f}));
  data = load("semi.csv", "a;b\n1.5;+2\n");
  ASSERT_TRUE(data);
  EXPECT_EQ(data->values, (std::vector<float>{1.5f, 2.0f}));
}

TEST_F(TextLoader, CommentsBlankLinesAndByteOrderMarkAreSkipped) {
  const DatasetPtr data =
      load("commented.csv",
           "\xEF\xBB\xBF# exported by a tool\n\nx,y # names\n1,2\n# gap\n\n3,4 # last\n");
  ASSERT_TRUE(data);
  EXPECT_EQ(data->dimensionNames, (QStringList{"x", "y"}));
  EXPECT_EQ(data->values, (std::vector<float>{1, 2, 3, 4}));
}

TEST_F(TextLoader, ClassicIdColumnFromOneIsDropped) {
  const DatasetPtr data = load("classic.txt", "1 0.5 0.25\n2 1.5 1.25\n3 2.5 2.25\n");
  ASSERT_TRUE(data);
  EXPECT_EQ(data->d, 2);
  EXPECT_EQ(data->values, (std::vector<float>{0.5f, 0.25f, 1.5f, 1.25f, 2.5f, 2.25f}));
}

TEST_F(TextLoader, IdColumnFromZeroIsDropped) {
  const DatasetPtr data = load("zero.csv", "0,9,8\n1,7,6\n");
  ASSERT_TRUE(data);
  EXPECT_EQ(data->d, 2);
  EXPECT_EQ(data->values, (std::vector<float>{9, 8, 7, 6}));
}

TEST_F(TextLoader, NamedIdColumnWithIncreasingIdsIsDropped) {
  const DatasetPtr data = load("named.csv", "ID,x,y\n10,1,2\n20,3,4\n35,5,6\n");
  ASSERT_TRUE(data);
  EXPECT_EQ(data->dimensionNames, (QStringList{"x", "y"}));
  EXPECT_EQ(data->values, (std::vector<float>{1, 2, 3, 4, 5, 6}));
  // pandas' to_csv() writes its index under an empty name.
  const DatasetPtr pandas = load("pandas.csv", ",a,b\n0,1,2\n1,3,4\n");
  ASSERT_TRUE(pandas);
  EXPECT_EQ(pandas->dimensionNames, (QStringList{"a", "b"}));
  EXPECT_EQ(pandas->values, (std::vector<float>{1, 2, 3, 4}));
}

TEST_F(TextLoader, FirstColumnThatIsNotAnIdIsKept) {
  // Not sequential without a header.
  DatasetPtr data = load("gaps.txt", "1 5\n3 6\n4 7\n");
  ASSERT_TRUE(data);
  EXPECT_EQ(data->d, 2);
  // Named like a coordinate, even though sequential.
  data = load("xcol.csv", "x,y\n0,5\n1,6\n");
  ASSERT_TRUE(data);
  EXPECT_EQ(data->d, 2);
  EXPECT_EQ(data->values, (std::vector<float>{0, 5, 1, 6}));
  // Named id but not increasing.
  data = load("unordered.csv", "id,y\n2,5\n1,6\n");
  ASSERT_TRUE(data);
  EXPECT_EQ(data->d, 2);
  // A single column is never an id column.
  data = load("single.txt", "0\n1\n2\n");
  ASSERT_TRUE(data);
  EXPECT_EQ(data->d, 1);
  EXPECT_EQ(data->values, (std::vector<float>{0, 1, 2}));
}

TEST_F(TextLoader, RaggedRowNamesTheLine) {
  QByteArray text = "a,b,c,d\n";
  for (int line = 2; line < 17; ++line)
    text += "1,2,3,4\n";
  text += "1,2,3\n";
  EXPECT_TRUE(failsToLoad(files.write("ragged.csv", text), {"line 17 has 3 values, expected 4"}));
  EXPECT_TRUE(
      failsToLoad(files.write("long.txt", "1 2\n3 4 5\n"), {"line 2 has 3 values, expected 2"}));
}

TEST_F(TextLoader, TextInANumericColumnNamesLineAndColumn) {
  EXPECT_TRUE(failsToLoad(files.write("text.csv", "x,y\n1,2\n3,4\n5,6\n7,abc\n"),
                          {"line 5, column 2: 'abc' is not a number"}));
  EXPECT_TRUE(
      failsToLoad(files.write("empty-field.csv", "1,,3\n"), {"line 1, column 2: empty value"}));
}

TEST_F(TextLoader, NanAndInfinityAreRejected) {
  QByteArray text;
  for (int line = 1; line < 9; ++line)
    text += "1 2\n";
  EXPECT_TRUE(failsToLoad(files.write("nan.txt", text + "nan 2\n"),
                          {"line 9, column 1: NaN is not allowed"}));
  EXPECT_TRUE(failsToLoad(files.write("inf.csv", "x,y\n1,-inf\n"),
                          {"line 2, column 2: infinity is not allowed"}));
  EXPECT_TRUE(failsToLoad(files.write("big.csv", "1,2\n3,1e39\n"),
                          {"line 2, column 2: 1e39 is out of float32 range"}));
  EXPECT_TRUE(failsToLoad(files.write("huge.csv", "1,2\n3,1e400\n"),
                          {"line 2, column 2: 1e400 is out of float32 range"}));
}

TEST_F(TextLoader, EmptyAndDataLessFilesAreRejected) {
  EXPECT_TRUE(failsToLoad(files.write("empty.csv", ""), {"file is empty"}));
  EXPECT_TRUE(failsToLoad(files.write("comments.csv", "# nothing\n\n   \n"), {"no data rows"}));
  EXPECT_TRUE(failsToLoad(files.write("header.csv", "x,y,z\n"), {"no data rows, only a header"}));
}

TEST_F(TextLoader, MaxValuesIsEnforced) {
  LoadOptions options;
  options.maxValues = 5;
  EXPECT_TRUE(failsToLoad(files.write("many.txt", "1 2\n3 4\n5 6\n"),
                          {"exceed the limit of 5 values"}, options));
}

TEST_F(TextLoader, LargeFileReportsProgressAndCanBeCancelled) {
  QByteArray text = "x,y,z\n";
  for (int i = 0; i < 40000; ++i)
    text += QByteArray::number(i) + ",0.5,-1\n";
  const QString path = files.write("large.csv", text);
  std::vector<double> reported;
  LoadOptions options;
  options.progress = [&](double f) { reported.push_back(f); };
  const DatasetPtr data = loadOrFail(path, options);
  ASSERT_TRUE(data);
  EXPECT_EQ(data->n, 40000u);
  ASSERT_GE(reported.size(), 2u);
  EXPECT_TRUE(std::is_sorted(reported.begin(), reported.end()));
  EXPECT_EQ(reported.back(), 1.0);

  std::atomic<bool> cancel{true};
  LoadOptions cancelled;
  cancelled.cancel = &cancel;
  EXPECT_TRUE(failsToLoad(path, {"loading cancelled"}, cancelled));
}

}  // namespace
}  // namespace kms::app::test
