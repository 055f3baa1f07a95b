#include "core/dataset.h"

#include <QFileInfo>

namespace kms::app {
namespace {

/// A file as messages name it: its name, but devices in full ("/dev/full", not "full") and "-"
/// as standard output.
QString shown(const QString& file) {
  if (file == u"-") return QStringLiteral("standard output");
  if (file.startsWith(u"/dev/") || file.startsWith(u"/proc/")) return file;
  const QFileInfo info(file);
  return info.fileName().isEmpty() ? file : info.fileName();
}

}  // namespace

std::uint64_t Dataset::clusteredItems() const {
  if (counts.empty()) return n;
  std::uint64_t total = 0;
  for (std::uint32_t c : counts)
    total += c;
  return total;
}

bool Dataset::hasLeftOutItems() const {
  return clusteredItems() < itemCount();
}

QStringList defaultDimensionNames(int d) {
  static const char* const kFirst[] = {"x", "y", "z"};
  QStringList names;
  for (int j = 0; j < d; ++j)
    names << (j < 3 ? QString::fromLatin1(kFirst[j]) : QStringLiteral("x%1").arg(j + 1));
  return names;
}

LoadError::LoadError(const QString& file, const QString& problem)
    : std::runtime_error((shown(file) + QStringLiteral(": ") + problem).toStdString()),
      file_(file),
      problem_(problem) {}

ExportError::ExportError(const QString& file, const QString& problem)
    : std::runtime_error((shown(file) + QStringLiteral(": ") + problem).toStdString()),
      file_(file) {}

}  // namespace kms::app
