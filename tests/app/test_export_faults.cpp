// Exports under faults: devices and FIFOs written through (never replaced), a full disk, a
// read-only mount and an immutable file while running as root, a folder that disappears
// mid-write. Every failure names the file and the cause, leaves no partial file and keeps the
// previous file as it was.
#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QImage>

#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <thread>

#include "io/export.h"
#include "io/generators.h"
#include "io/save_file.h"
#include "test_support.h"

namespace kms::app::test {
namespace {

QByteArray bytesOrEmpty(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

/// A picture whose PNG is far larger than 64 KiB (noise does not compress).
QImage noisyPicture() {
  QImage image(512, 512, QImage::Format_RGB32);
  std::uint32_t state = 12345;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) {
      state = state * 1664525u + 1013904223u;
      image.setPixel(x, y, 0xff000000u | (state >> 8));
    }
  return image;
}

/// The message of the ExportError that `write` throws, or "" (and a test failure) when none.
template <typename Write>
QString exportFailure(Write write) {
  try {
    write();
  } catch (const ExportError& e) {
    return QString::fromUtf8(e.what());
  }
  ADD_FAILURE() << "no ExportError";
  return {};
}

/// A file system mounted at a folder for one test; needs root (CAP_SYS_ADMIN), else the test
/// skips. Unmounted (lazily) when the test ends.
class ScratchMount {
 public:
  /// An empty tmpfs of `kilobytes`.
  static bool tmpfs(const QString& at, int kilobytes) {
    const QByteArray options = "size=" + QByteArray::number(kilobytes) + "k";
    return ::mount("tmpfs", QFile::encodeName(at).constData(), "tmpfs", 0, options.constData()) ==
           0;
  }
  /// `folder` bound onto itself, read-only.
  static bool readOnlyBind(const QString& folder) {
    const QByteArray path = QFile::encodeName(folder);
    if (::mount(path.constData(), path.constData(), nullptr, MS_BIND, nullptr) != 0) return false;
    if (::mount(nullptr, path.constData(), nullptr, MS_BIND | MS_REMOUNT | MS_RDONLY, nullptr) == 0)
      return true;
    ::umount2(path.constData(), MNT_DETACH);
    return false;
  }
  explicit ScratchMount(QString at) : at_(std::move(at)) {}
  ~ScratchMount() { ::umount2(QFile::encodeName(at_).constData(), MNT_DETACH); }

 private:
  QString at_;
};

TEST(ExportFaults, ADeviceIsWrittenThroughAndNeverReplaced) {
  struct stat before {};
  ASSERT_EQ(::stat("/dev/full", &before), 0);
  ASSERT_TRUE(S_ISCHR(before.st_mode));
  const QString message = exportFailure([] { writeImage("/dev/full", noisyPicture()); });
  EXPECT_EQ(message, QStringLiteral("/dev/full: cannot write the file: No space left on device"));
  EXPECT_EQ(exportFailure([] { writeRunReport("/dev/full", RunReport{}); }), message);
  struct stat after {};
  ASSERT_EQ(::stat("/dev/full", &after), 0);
  EXPECT_TRUE(S_ISCHR(after.st_mode)) << "/dev/full was replaced";
  EXPECT_EQ(after.st_rdev, before.st_rdev);
  // /dev/null takes everything: a success, and still a device.
  EXPECT_NO_THROW(writeRunReport("/dev/null", RunReport{}));
  ASSERT_EQ(::stat("/dev/null", &after), 0);
  EXPECT_TRUE(S_ISCHR(after.st_mode));
}

TEST(ExportFaults, AFifoReceivesThePictureAndStaysAFifo) {
  const TempFiles files;
  const QString fifo = files.path("pipe.png");
  ASSERT_EQ(::mkfifo(QFile::encodeName(fifo).constData(), 0600), 0);
  QByteArray received;
  std::thread reader([&] {
    QFile in(fifo);
    if (in.open(QIODevice::ReadOnly)) received = in.readAll();
  });
  const QImage picture = noisyPicture();
  EXPECT_NO_THROW(writeImage(fifo, picture));
  reader.join();
  EXPECT_EQ(QImage::fromData(received, "PNG").convertToFormat(QImage::Format_RGB32), picture);
  struct stat info {};
  ASSERT_EQ(::stat(QFile::encodeName(fifo).constData(), &info), 0);
  EXPECT_TRUE(S_ISFIFO(info.st_mode));
  EXPECT_EQ(QDir(files.path(".")).entryList(QDir::Files | QDir::System | QDir::Hidden),
            QStringList{"pipe.png"});
}

TEST(ExportFaults, AFolderThatDisappearsMidWriteLeavesNothing) {
  const TempFiles files;
  const QString folder = files.path("vanishing");
  ASSERT_TRUE(QDir().mkpath(folder));
  const QString target = folder + QStringLiteral("/labels.csv");
  const QString message = exportFailure([&] {
    io::saveFile(target, [&](QIODevice& device) {
      device.write(QByteArray(1 << 16, 'x'));
      QDir(folder).removeRecursively();
      device.write(QByteArray(1 << 16, 'y'));
    });
  });
  EXPECT_TRUE(message.startsWith(QStringLiteral("labels.csv: cannot write the file: ")))
      << message.toStdString();
  EXPECT_FALSE(QFileInfo::exists(folder));
  EXPECT_EQ(QDir(files.path(".")).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
            QStringList());
}

TEST(ExportFaults, AFullDiskNamesTheCauseAndKeepsThePreviousFile) {
  const TempFiles files;
  const QString disk = files.path("disk");
  ASSERT_TRUE(QDir().mkpath(disk));
  if (!ScratchMount::tmpfs(disk, 64)) GTEST_SKIP() << "cannot mount a tmpfs here (needs root)";
  const ScratchMount mounted(disk);
  const QString previous = files.write("disk/photo.png", "the previous export");
  for (const char* name : {"photo.png", "photo.jpg"}) {
    const QString path = disk + u'/' + QLatin1String(name);
    const QString message = exportFailure([&] { writeImage(path, noisyPicture()); });
    EXPECT_EQ(message, QLatin1String(name) +
                           QStringLiteral(": cannot write the file: No space left on device"))
        << message.toStdString();
  }
  const DatasetPtr points = generateDataset({GeneratorKind::Blobs, 20000, 5, 2, 0.05, 1});
  const std::vector<std::int32_t> labels(points->n, 3);
  EXPECT_TRUE(exportFailure([&] {
                writeLabelsCsv(disk + "/labels.csv", *points, labels);
              }).endsWith(QStringLiteral("No space left on device")));
  EXPECT_EQ(bytesOrEmpty(previous), QByteArray("the previous export"));
  EXPECT_EQ(QDir(disk).entryList(QDir::Files | QDir::Hidden), QStringList{"photo.png"});
}

TEST(ExportFaults, AReadOnlyMountRefusesRootAndKeepsThePreviousFile) {
  const TempFiles files;
  const QString folder = files.path("readonly");
  ASSERT_TRUE(QDir().mkpath(folder));
  const QString previous = files.write("readonly/report.json", "{}");
  if (!ScratchMount::readOnlyBind(folder))
    GTEST_SKIP() << "cannot bind-mount read-only here (needs root)";
  const ScratchMount mounted(folder);
  const QString message = exportFailure([&] { writeRunReport(previous, RunReport{}); });
  EXPECT_TRUE(message.startsWith(QStringLiteral("report.json: cannot create the file: ")) &&
              message.contains(QStringLiteral("Read-only file system")))
      << message.toStdString();
  EXPECT_EQ(bytesOrEmpty(previous), QByteArray("{}"));
  EXPECT_EQ(QDir(folder).entryList(QDir::Files | QDir::Hidden), QStringList{"report.json"});
}

TEST(ExportFaults, AnImmutableFileRefusesRootAndStaysAsItWas) {
  const TempFiles files;
  const QString path = files.write("palette.gpl", "GIMP Palette\n");
  const auto chattr = [&](const char* flag) {
    const QByteArray command =
        "chattr " + QByteArray(flag) + " '" + QFile::encodeName(path) + "' 2>/dev/null";
    return std::system(command.constData()) == 0;
  };
  if (!chattr("+i")) GTEST_SKIP() << "cannot make a file immutable here (needs root and chattr)";
  const QString message =
      exportFailure([&] { writePaletteGpl(path, {qRgb(1, 2, 3)}, {1.0}, "p"); });
  chattr("-i");
  EXPECT_TRUE(message.startsWith(QStringLiteral("palette.gpl: cannot create the file: ")))
      << message.toStdString();
  EXPECT_EQ(bytesOrEmpty(path), QByteArray("GIMP Palette\n"));
  EXPECT_EQ(QDir(files.path(".")).entryList(QDir::Files | QDir::Hidden),
            QStringList{"palette.gpl"});
}

}  // namespace
}  // namespace kms::app::test
