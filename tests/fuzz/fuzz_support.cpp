#include "fuzz_support.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QStandardPaths>

#include <cstdlib>

namespace kms::fuzz {
namespace {

QString g_folder;

}  // namespace

void initialize(int* argc, char*** argv) {
  // Never destroyed: libFuzzer ends the process with exit(), after Qt's own globals are gone.
  if (!QCoreApplication::instance()) new QCoreApplication(*argc, *argv);
  // One folder per process (parallel fuzzing jobs), in memory when /dev/shm exists.
  const QString base =
      QDir(QStringLiteral("/dev/shm")).exists() ? QStringLiteral("/dev/shm") : QDir::tempPath();
  g_folder = base + QStringLiteral("/kms-fuzz-%1").arg(QCoreApplication::applicationPid());
  QDir().mkpath(g_folder);
  std::atexit([] { QDir(g_folder).removeRecursively(); });
}

QString inputFile(const std::uint8_t* data, std::size_t size, const char* suffix) {
  const QString path = g_folder + QStringLiteral("/input") + QString::fromLatin1(suffix);
  QFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Truncate)) std::abort();
  if (file.write(reinterpret_cast<const char*>(data), qint64(size)) != qint64(size)) std::abort();
  return path;
}

app::LoadOptions loadOptions() {
  app::LoadOptions options;
  options.maxValues = std::size_t(1) << 22;  // 16 MiB of floats
  return options;
}

}  // namespace kms::fuzz
