// Progress of a load or an export running in the background, with a Cancel button.
#pragma once

#include <QWidget>

class QLabel;
class QProgressBar;
class QPushButton;

namespace kms::ui {

class LoadBanner : public QWidget {
  Q_OBJECT

 public:
  explicit LoadBanner(QWidget* parent = nullptr);

  /// Shows "what" with a progress bar (busy indicator until the first fraction arrives).
  void start(const QString& what, bool cancellable = true);
  void setProgress(double fraction);
  void finish();

 signals:
  void cancelRequested();

 private:
  QLabel* label_;
  QProgressBar* bar_;
  QPushButton* cancel_;
};

}  // namespace kms::ui
