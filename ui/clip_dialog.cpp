#include "clip_dialog.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QMetaObject>
#include <QPointer>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>
#include <QtConcurrent/QtConcurrentRun>

#include "core/dataset.h"
#include "kmeans/errors.h"

namespace kms::ui {

using kms::app::clip::ClipFormat;

ClipDialog::ClipDialog(kms::app::clip::ClipJob job, const QString& suggested, bool halfSteps,
                       QWidget* parent)
    : QDialog(parent), job_(std::move(job)) {
  setWindowTitle(tr("Export Animation"));
  path_ = new QLineEdit(suggested, this);
  path_->setMinimumWidth(360);
  browse_ = new QToolButton(this);
  browse_->setText(tr("Browse…"));
  auto* fileRow = new QHBoxLayout;
  fileRow->addWidget(path_, 1);
  fileRow->addWidget(browse_);
  width_ = new QSpinBox(this);
  width_->setRange(240, 3840);
  width_->setValue(800);
  width_->setSuffix(tr(" px"));
  height_ = new QSpinBox(this);
  height_->setRange(180, 2160);
  height_->setValue(600);
  height_->setSuffix(tr(" px"));
  auto* sizeRow = new QHBoxLayout;
  sizeRow->addWidget(width_);
  sizeRow->addWidget(new QLabel(QStringLiteral("×"), this));
  sizeRow->addWidget(height_);
  sizeRow->addStretch();
  pace_ = new QDoubleSpinBox(this);
  pace_->setRange(0.5, 60);
  pace_->setDecimals(1);
  pace_->setValue(4);
  pace_->setSuffix(tr(" frames/s"));
  halfSteps_ = new QCheckBox(tr("Each iteration as its two moves (assign, then update)"), this);
  halfSteps_->setChecked(halfSteps);
  progress_ = new QProgressBar(this);
  progress_->setVisible(false);
  note_ = new QLabel(this);
  note_->setWordWrap(true);
  note_->setText(
      tr("The run is replayed from its start with the same seed, so every frame shows "
         "what the window showed. GIF, WebP or MP4, chosen by the file's suffix."));

  auto* form = new QFormLayout;
  form->addRow(tr("File:"), fileRow);
  form->addRow(tr("Frame size:"), sizeRow);
  form->addRow(tr("Pace:"), pace_);
  form->addRow(QString(), halfSteps_);
  buttons_ = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
  buttons_->addButton(tr("Export"), QDialogButtonBox::AcceptRole);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(form);
  layout->addWidget(note_);
  layout->addWidget(progress_);
  layout->addWidget(buttons_);

  connect(browse_, &QToolButton::clicked, this, &ClipDialog::browse);
  connect(buttons_, &QDialogButtonBox::accepted, this, &ClipDialog::startExport);
  connect(buttons_, &QDialogButtonBox::rejected, this, &ClipDialog::reject);
  connect(&watcher_, &QFutureWatcher<Outcome>::finished, this, &ClipDialog::finished);
}

ClipDialog::~ClipDialog() {
  if (cancel_) cancel_->store(true);
  watcher_.waitForFinished();
}

QString ClipDialog::path() const {
  return path_->text().trimmed();
}
void ClipDialog::setPath(const QString& path) {
  path_->setText(path);
}

void ClipDialog::setOptions(const kms::app::clip::ClipOptions& options) {
  width_->setValue(options.size.width());
  height_->setValue(options.size.height());
  pace_->setValue(options.framesPerSecond);
  halfSteps_->setChecked(options.halfSteps);
}

void ClipDialog::browse() {
  QString filter;
  for (const ClipFormat f : {ClipFormat::Gif, ClipFormat::WebP, ClipFormat::Mp4})
    if (kms::app::clip::clipFormatBuilt(f))
      filter += QStringLiteral("%1 (*.%2);;").arg(toString(f), toString(f).toLower());
  if (filter.isEmpty()) {  // a build without any clip encoder
    note_->setText(
        tr("This build has no clip encoder (install libgif-dev, libwebp-dev or "
           "FFmpeg's development packages and rebuild)."));
    return;
  }
  const QString chosen =
      QFileDialog::getSaveFileName(this, tr("Export Animation"), path(), filter.chopped(2));
  if (!chosen.isEmpty()) path_->setText(chosen);
}

void ClipDialog::setRunning(bool running) {
  for (QWidget* w :
       std::initializer_list<QWidget*>{path_, browse_, width_, height_, pace_, halfSteps_})
    w->setEnabled(!running);
  for (QAbstractButton* b : buttons_->buttons())
    if (buttons_->buttonRole(b) == QDialogButtonBox::AcceptRole) b->setEnabled(!running);
  progress_->setVisible(running);
}

void ClipDialog::startExport() {
  if (running()) return;
  const QString file = path();
  if (file.isEmpty()) return;
  kms::app::clip::ClipOptions options;
  options.size = QSize(width_->value(), height_->value());
  options.framesPerSecond = pace_->value();
  options.halfSteps = halfSteps_->isChecked();
  cancel_ = std::make_shared<std::atomic<bool>>(false);
  progress_->setRange(0, 0);  // busy until the replay has run and the frames are counted
  setRunning(true);
  note_->setText(tr("Replaying the run…"));
  QPointer<ClipDialog> self(this);
  watcher_.setFuture(QtConcurrent::run([job = job_, file, options, cancel = cancel_, self] {
    Outcome outcome;
    try {
      const auto result = kms::app::clip::exportClip(
          job, file, options,
          [self](int done, int total) {
            QMetaObject::invokeMethod(
                self.data(),
                [self, done, total] {
                  if (!self) return;
                  self->progress_->setRange(0, total);
                  self->progress_->setValue(done);
                  self->note_->setText(tr("Frame %1 of %2").arg(done).arg(total));
                },
                Qt::QueuedConnection);
          },
          cancel.get());
      outcome.summary = tr("%1 frames of %2 × %3, %4 KB, in %5 s")
                            .arg(result.frames)
                            .arg(result.size.width())
                            .arg(result.size.height())
                            .arg((result.bytes + 512) / 1024)
                            .arg(result.seconds, 0, 'f', 1);
    } catch (const kms::Interrupted&) {
      outcome.cancelled = true;
    } catch (const kms::app::ExportError& e) {
      outcome.error = e.message();
    } catch (const std::exception& e) {  // the run's settings, memory
      outcome.error =
          QStringLiteral("%1: %2").arg(QFileInfo(file).fileName(), QString::fromUtf8(e.what()));
    }
    return outcome;
  }));
}

void ClipDialog::finished() {
  setRunning(false);
  const Outcome outcome = watcher_.result();
  if (!outcome.error.isEmpty()) {  // the dialog stays open: the user can fix the name or size
    note_->setText(outcome.error);
    emit failed(outcome.error);
    return;
  }
  if (outcome.cancelled) {
    note_->setText(tr("Cancelled: nothing was written."));
    QDialog::reject();
    return;
  }
  emit exported(path(), outcome.summary);
  accept();
}

void ClipDialog::reject() {
  if (running()) {  // Cancel while exporting stops the export; the dialog closes when it has
    cancel_->store(true);
    note_->setText(tr("Cancelling…"));
    return;
  }
  QDialog::reject();
}

}  // namespace kms::ui
