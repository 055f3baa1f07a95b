// Loading under faults: a file truncated, rewritten or replaced while it is being read, and a
// point file larger than the free memory. Each is a LoadError naming the file, never a crash
// (SIGBUS from a vanished mapped page) or an abort (std::bad_alloc).
#include <gtest/gtest.h>

#include <QFile>
#include <QProcess>

#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>

#include "io/load.h"
#include "io/load_support.h"
#include "support/sanitizers.h"
#include "test_support.h"

namespace kms::app::test {
namespace {

QByteArray bytesOf(std::size_t size, char fill) {
  return QByteArray(qsizetype(size), fill);
}

/// The LoadError message of `load`, or "" (and a test failure) when none is thrown.
template <typename Load>
QString loadFailure(Load load) {
  try {
    load();
  } catch (const LoadError& e) {
    return QString::fromUtf8(e.what());
  }
  ADD_FAILURE() << "no LoadError";
  return {};
}

constexpr const char* kChanged = "the file changed while it was being read";

TEST(LoadFaults, AFileTruncatedWhileMappedReadsZerosAndIsReported) {
  const TempFiles files;
  const QString path = files.write("points.bin", bytesOf(1 << 20, 'x'));
  const io::InputFile input(path);
  ASSERT_EQ(input.size(), std::size_t(1) << 20);
  ASSERT_EQ(::truncate(QFile::encodeName(path).constData(), 4096), 0);
  // The last page is gone from the file: reading it must not kill the process.
  const volatile char* last = input.bytes().data() + input.size() - 1;
  EXPECT_EQ(*last, 0);
  EXPECT_EQ(input.bytes()[100], 'x');  // what was still there reads as before
  EXPECT_TRUE(loadFailure([&] { input.requireUnchanged(); }).contains(QLatin1String(kChanged)));
}

TEST(LoadFaults, AFileReplacedOrRewrittenWhileOpenIsReported) {
  const TempFiles files;
  const QString path = files.write("cloud.csv", "x,y\n1,2\n3,4\n");
  {
    const io::InputFile input(path);
    EXPECT_NO_THROW(input.requireUnchanged());
    // Another program saves a new version: written elsewhere, renamed over the old name.
    const QString next = files.write("cloud.csv.new", "x,y\n5,6\n7,8\n");
    ASSERT_EQ(std::rename(QFile::encodeName(next).constData(), QFile::encodeName(path).constData()),
              0);
    EXPECT_TRUE(loadFailure([&] { input.requireUnchanged(); }).contains(QLatin1String(kChanged)));
  }
  {
    const io::InputFile input(path);
    QFile file(path);  // rewritten in place: same size, new content
    ASSERT_TRUE(file.open(QIODevice::ReadWrite));
    usleep(20000);  // a modification time that differs even on coarse clocks
    file.write("x,y\n9,9\n9,9\n");
    file.close();
    EXPECT_TRUE(loadFailure([&] { input.requireUnchanged(); }).contains(QLatin1String(kChanged)));
  }
}

/// A classic binary point file (int32 N, int32 d, N·d float32) of `n` × `d` zeros that takes no
/// disk space (sparse).
QString sparsePointFile(const TempFiles& files, std::int32_t n, std::int32_t d) {
  const QString path = files.path("huge.bin");
  QFile file(path);
  EXPECT_TRUE(file.open(QIODevice::WriteOnly));
  const std::int32_t header[2] = {n, d};
  file.write(reinterpret_cast<const char*>(header), sizeof header);
  EXPECT_TRUE(file.resize(qint64(sizeof header) + qint64(n) * d * qint64(sizeof(float))));
  return path;
}

TEST(LoadFaults, APointFileLargerThanTheFreeMemoryIsAClearError) {
  const std::uint64_t available = io::availableMemoryBytes();
  if (available > (std::uint64_t(1) << 42)) GTEST_SKIP() << "more than 4 TB free";
  // Twice the free memory in float32 values, as n × d with n = 2^20.
  const std::int32_t n = 1 << 20;
  const auto d = std::int32_t(2 * available / (std::uint64_t(n) * sizeof(float)) + 1);
  const TempFiles files;
  const QString path = sparsePointFile(files, n, d);
  LoadOptions options;
  options.maxValues = std::size_t(1) << 45;  // the memory check, not the value limit, decides
  const QString message = loadFailure([&] { loadDataset(path, options); });
  EXPECT_TRUE(message.startsWith(QStringLiteral("huge.bin: 1,048,576 points × ")) &&
              message.contains(QStringLiteral("GB of memory;")))
      << message.toStdString();
}

TEST(LoadFaults, RunningOutOfMemoryWhileReadingIsAClearError) {
#if defined(KMS_TEST_ASAN) || defined(KMS_TEST_TSAN)
  GTEST_SKIP() << "an address-space limit cannot be combined with a sanitizer's shadow memory";
#else
  // 2 GB of points under a 1 GB address-space limit: mapping fails, reading fails with
  // std::bad_alloc, and kmeans-cli says so instead of aborting.
  const TempFiles files;
  const QString path = sparsePointFile(files, 1 << 27, 4);
  QProcess process;
  process.start(QStringLiteral("prlimit"),
                {QStringLiteral("--as=1000000000"), QStringLiteral(KMS_CLI_PATH), path,
                 QStringLiteral("-k"), QStringLiteral("3")});
  ASSERT_TRUE(process.waitForFinished(60000));
  const QString err = QString::fromUtf8(process.readAllStandardError());
  EXPECT_EQ(process.exitStatus(), QProcess::NormalExit) << err.toStdString();
  EXPECT_EQ(process.exitCode(), 2) << err.toStdString();
  EXPECT_TRUE(err.startsWith(QStringLiteral("kmeans-cli: huge.bin: not enough memory")))
      << err.toStdString();
#endif
}

}  // namespace
}  // namespace kms::app::test
