// The most recently opened files, newest first, kept in QSettings.
#pragma once

#include <QObject>
#include <QStringList>

namespace kms::ui {

class RecentFiles : public QObject {
  Q_OBJECT

 public:
  static constexpr int kMaxFiles = 10;

  explicit RecentFiles(QObject* parent = nullptr);

  QStringList files() const { return files_; }
  void add(const QString& path);
  void remove(const QString& path);
  void clear();

 signals:
  void changed();

 private:
  void save();
  QStringList files_;
};

}  // namespace kms::ui
