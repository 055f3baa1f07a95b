// File ▸ Export ▸ Animation…: the shown run as a GIF, WebP or MP4 clip for slides
// (app/clip/clip_export.h, the same file `kmeans-cli --animate` writes). The export runs on the
// thread pool with a progress bar; Cancel stops it within one batch of frames and leaves no file.
#pragma once

#include <QDialog>
#include <QFutureWatcher>

#include <atomic>
#include <memory>

#include "clip/clip_export.h"

class QCheckBox;
class QDialogButtonBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QProgressBar;
class QSpinBox;
class QToolButton;

namespace kms::ui {

class ClipDialog : public QDialog {
  Q_OBJECT

 public:
  /// `job`: what to replay (the shown start of the current run); `suggested`: the file offered.
  ClipDialog(kms::app::clip::ClipJob job, const QString& suggested, bool halfSteps,
             QWidget* parent = nullptr);
  ~ClipDialog() override;

  /// Starts the export with the dialog's choices (what the Export button does).
  void startExport();
  bool running() const { return watcher_.isRunning(); }
  /// The path the dialog writes.
  QString path() const;
  void setPath(const QString& path);
  void setOptions(const kms::app::clip::ClipOptions& options);
  /// Cancel: stops a running export (the dialog closes when it has stopped), else closes.
  void reject() override;

 signals:
  /// The clip was written (`summary`: frames, size, time).
  void exported(const QString& path, const QString& summary);
  void failed(const QString& message);

 private:
  void browse();
  void finished();
  void setRunning(bool running);

  kms::app::clip::ClipJob job_;
  QLineEdit* path_;
  QToolButton* browse_;
  QSpinBox* width_;
  QSpinBox* height_;
  QDoubleSpinBox* pace_;
  QCheckBox* halfSteps_;
  QProgressBar* progress_;
  QLabel* note_;
  QDialogButtonBox* buttons_;
  std::shared_ptr<std::atomic<bool>> cancel_;
  struct Outcome {
    QString summary;  ///< frames, size, time
    QString error;    ///< the message naming the file, when it failed
    bool cancelled = false;
  };
  QFutureWatcher<Outcome> watcher_;
};

}  // namespace kms::ui
