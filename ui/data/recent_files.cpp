#include "data/recent_files.h"

#include <QFileInfo>
#include <QSettings>

namespace kms::ui {
namespace {
const QString kKey = QStringLiteral("files/recent");
}

RecentFiles::RecentFiles(QObject* parent) : QObject(parent) {
  files_ = QSettings().value(kKey).toStringList();
  while (files_.size() > kMaxFiles)
    files_.removeLast();
}

void RecentFiles::add(const QString& path) {
  const QString absolute = QFileInfo(path).absoluteFilePath();
  files_.removeAll(absolute);
  files_.prepend(absolute);
  while (files_.size() > kMaxFiles)
    files_.removeLast();
  save();
}

void RecentFiles::remove(const QString& path) {
  if (files_.removeAll(QFileInfo(path).absoluteFilePath()) > 0) save();
}

void RecentFiles::clear() {
  files_.clear();
  save();
}

void RecentFiles::save() {
  QSettings().setValue(kKey, files_);
  emit changed();
}

}  // namespace kms::ui
