// Saves results. What to save is captured on the GUI thread (the frame is immutable and shared,
// charts are rendered to pictures), then the file is written on the thread pool so a
// 16-megapixel PNG or millions of labels never freeze the window. Errors name the file.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QPointer>
#include <QString>

#include <functional>

#include "clip/clip_export.h"
#include "clip_dialog.h"
#include "core/dither.h"

class QWidget;

namespace kms::session {
class SessionController;
}

namespace kms::ui {

class ClusterViews;
class ConvergenceChart;
class RunHistory;
class TimingChart;

class ExportController : public QObject {
  Q_OBJECT

 public:
  enum class Kind {
    QuantisedImage,
    Palette,
    Labels,
    Centroids,
    Report,
    TimingChart,
    ConvergenceChart,
    Window,
    Animation,  ///< the shown run as a GIF, WebP or MP4 clip (ClipDialog when interactive)
    Trace,      ///< the shown run as a trace folder (docs/trace-format.md), point sets only
  };
  Q_ENUM(Kind)

  ExportController(session::SessionController& session, const RunHistory& history,
                   const ClusterViews& views, TimingChart& timing, ConvergenceChart& convergence,
                   std::function<QImage()> grabWindow, QWidget* dialogParent);
  ~ExportController() override;

  /// Whether `kind` can be saved now (a picture needs image data and a labelled frame, ...).
  bool available(Kind kind) const;
  /// Asks for a file name, then exports.
  void exportInteractive(Kind kind);
  /// Exports to `path` in the background; emits exported() or failed().
  void exportTo(Kind kind, const QString& path);
  bool busy() const { return pending_ > 0; }
  /// Blocks until every export has finished (shutdown, tests).
  void waitForIdle();

  /// Where the quantised picture's dithering comes from (the image view's mode); none if unset.
  void setDitherSource(std::function<kms::app::DitherMode()> dither);

  /// Whether the shown run can be replayed from the window's settings (Animation, Trace): not
  /// while following another process's run.
  void setReplayable(bool replayable) { replayable_ = replayable; }

  /// The clip options exportTo(Animation, …) uses (the dialog has its own).
  void setClipOptions(const kms::app::clip::ClipOptions& options) { clipOptions_ = options; }
  /// The animation dialog opened last by exportInteractive(Animation), while it is open.
  ClipDialog* clipDialog() const { return lastClipDialog_; }

  /// The file name offered for `kind`, in `directory`.
  QString suggestedPath(Kind kind, const QString& directory) const;

 signals:
  void started(kms::ui::ExportController::Kind kind, const QString& path);
  void exported(kms::ui::ExportController::Kind kind, const QString& path);
  void failed(const QString& message);

 private:
  std::function<void()> prepare(Kind kind, const QString& path, QString& error) const;
  /// The shown start of the current run, to replay as a clip.
  kms::app::clip::ClipJob clipJob() const;
  bool frameShowsHalfSteps() const;
  void exportAnimationInteractive(const QString& dir);

  session::SessionController& session_;
  const RunHistory& history_;
  const ClusterViews& views_;
  TimingChart& timing_;
  ConvergenceChart& convergence_;
  std::function<QImage()> grabWindow_;
  std::function<kms::app::DitherMode()> dither_;
  QWidget* dialogParent_;
  int pending_ = 0;
  kms::app::clip::ClipOptions clipOptions_;
  bool replayable_ = true;
  QPointer<ClipDialog> lastClipDialog_;
  QList<QFutureWatcher<QString>*> watchers_;
};

}  // namespace kms::ui
