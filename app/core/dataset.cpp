#include "core/dataset.h"

#include <QFileInfo>

namespace kms::app {
namespace {

QString shown(const QString& file) {
  const QFileInfo info(file);
  return info.fileName().isEmpty() ? file : info.fileName();
}

}  // namespace

LoadError::LoadError(const QString& file, const QString& problem)
    : std::runtime_error((shown(file) + QStringLiteral(": ") + problem).toStdString()),
      file_(file),
      problem_(problem) {}

ExportError::ExportError(const QString& file, const QString& problem)
    : std::runtime_error((shown(file) + QStringLiteral(": ") + problem).toStdString()), file_(file) {}

}  // namespace kms::app
