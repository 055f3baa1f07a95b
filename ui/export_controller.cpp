#include "export_controller.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>
#include <QtConcurrent/QtConcurrentRun>

#include "charts/convergence_chart.h"
#include "charts/timing_chart.h"
#include "clip_dialog.h"
#include "core/dither.h"
#include "core/run_trace.h"
#include "data/run_history.h"
#include "io/export.h"
#include "io/trace.h"
#include "kmeans/backend.h"
#include "session/session_controller.h"
#include "views/cluster_views.h"

namespace kms::ui {
namespace {

const QString kDirKey = QStringLiteral("export/lastDir");
constexpr QSize kChartSize(1200, 700);

struct KindInfo {
  const char* suffix;
  const char* filter;
};

KindInfo info(ExportController::Kind kind) {
  using K = ExportController::Kind;
  switch (kind) {
    case K::QuantisedImage:
      return {"quantised.png", "PNG image (*.png);;JPEG image (*.jpg)"};
    case K::Palette:
      return {"palette.gpl", "GIMP palette (*.gpl);;Hex colours (*.txt *.hex)"};
    case K::Labels:
      return {"labels.csv", "CSV (*.csv)"};
    case K::Centroids:
      return {"centroids.csv", "CSV (*.csv)"};
    case K::Report:
      return {"report.json", "JSON (*.json)"};
    case K::TimingChart:
      return {"timing.png", "PNG image (*.png)"};
    case K::ConvergenceChart:
      return {"convergence.png", "PNG image (*.png)"};
    case K::Window:
      return {"window.png", "PNG image (*.png)"};
    case K::Animation:
      return {"animation.gif", "GIF animation (*.gif);;WebP animation (*.webp);;MP4 video (*.mp4)"};
    case K::Trace:
      return {"trace", "Trace folder (*)"};
  }
  return {"out", "*"};
}

}  // namespace

ExportController::ExportController(session::SessionController& session, const RunHistory& history,
                                   const ClusterViews& views, TimingChart& timing,
                                   ConvergenceChart& convergence,
                                   std::function<QImage()> grabWindow, QWidget* dialogParent)
    : session_(session),
      history_(history),
      views_(views),
      timing_(timing),
      convergence_(convergence),
      grabWindow_(std::move(grabWindow)),
      dialogParent_(dialogParent) {}

void ExportController::setDitherSource(std::function<kms::app::DitherMode()> dither) {
  dither_ = std::move(dither);
}

ExportController::~ExportController() {
  waitForIdle();
}

bool ExportController::available(Kind kind) const {
  const auto& frame = views_.frame();
  const auto& data = frame ? frame->dataset : session_.dataset();
  const bool labelled = data && frame && frame->n == data->n && !frame->labels.empty();
  switch (kind) {
    case Kind::QuantisedImage:
    case Kind::Palette:
      return labelled && data->isImage() && !frame->palette.empty();
    case Kind::Labels:
    case Kind::Centroids:
      return labelled;
    case Kind::Report:
      return data && !history_.empty();
    case Kind::Animation:
      return replayable_ && labelled && frame->input != nullptr;
    case Kind::Trace:
      return replayable_ && labelled && frame->input != nullptr && !data->isImage();
    case Kind::TimingChart:
    case Kind::ConvergenceChart:
    case Kind::Window:
      return true;
  }
  return false;
}

QString ExportController::suggestedPath(Kind kind, const QString& directory) const {
  QString base = QStringLiteral("kmeans");
  if (const auto& data = session_.dataset()) {
    base = QFileInfo(data->displayName).completeBaseName();
    if (base.isEmpty()) base = QStringLiteral("kmeans");
    base.replace(QRegularExpression(QStringLiteral("[^A-Za-z0-9._-]+")), QStringLiteral("-"));
    if (const auto& frame = views_.frame()) base += QStringLiteral("-k%1").arg(frame->k);
  }
  return QDir(directory).filePath(base + QLatin1Char('-') + QString::fromLatin1(info(kind).suffix));
}

void ExportController::exportInteractive(Kind kind) {
  QSettings settings;
  QString dir = settings.value(kDirKey).toString();
  if (dir.isEmpty() || !QFileInfo(dir).isDir())
    dir = QStandardPaths::writableLocation(QStandardPaths::PicturesLocation);
  if (kind == Kind::Animation) {
    exportAnimationInteractive(dir);
    return;
  }
  const QString path =
      QFileDialog::getSaveFileName(dialogParent_, tr("Export"), suggestedPath(kind, dir),
                                   QString::fromLatin1(info(kind).filter));
  if (path.isEmpty()) return;
  settings.setValue(kDirKey, QFileInfo(path).absolutePath());
  exportTo(kind, path);
}

kms::app::clip::ClipJob ExportController::clipJob() const {
  const session::FramePtr frame = views_.frame();
  kms::app::clip::ClipJob job;
  if (!frame) return job;
  job.input = frame->input;
  job.config = session_.settings().config;
  job.config.seed += std::uint64_t(frame->start);  // start s of a best-of-N run: seed S + s
  job.backend = session_.settings().backend;
  return job;
}

bool ExportController::frameShowsHalfSteps() const {
  const session::FramePtr frame = views_.frame();
  return frame && frame->phase != session::StepPhase::Whole;
}

void ExportController::exportAnimationInteractive(const QString& dir) {
  if (!available(Kind::Animation)) {
    emit failed(tr("Animation: nothing to export yet (run at least one iteration)"));
    return;
  }
  auto* dialog = new ClipDialog(clipJob(), suggestedPath(Kind::Animation, dir),
                                frameShowsHalfSteps(), dialogParent_);
  dialog->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog, &ClipDialog::exported, this, [this](const QString& path, const QString&) {
    QSettings().setValue(kDirKey, QFileInfo(path).absolutePath());
    emit exported(Kind::Animation, path);
  });
  connect(dialog, &ClipDialog::failed, this, &ExportController::failed);
  dialog->open();
  lastClipDialog_ = dialog;
}

std::function<void()> ExportController::prepare(Kind kind, const QString& path,
                                                QString& error) const {
  using namespace kms::app;
  const session::FramePtr frame = views_.frame();
  const DatasetPtr data = frame ? frame->dataset : session_.dataset();  // what is on screen
  if (!available(kind)) {
    error = tr("%1: nothing to export yet (run at least one iteration)")
                .arg(QFileInfo(path).fileName());
    return {};
  }
  switch (kind) {
    case Kind::QuantisedImage: {
      const DitherMode dither = dither_ ? dither_() : DitherMode::None;
      return [=] {
        const QImage image =
            dither == DitherMode::None
                ? (frame->quantized.isNull() ? quantizedImage(*data, frame->palette, frame->labels)
                                             : frame->quantized)
                : ditheredImage(*frame->input, frame->engineCentroids, frame->palette, dither);
        writeImage(path, image);
      };
    }
    case Kind::Palette: {
      const QString name = data->displayName;
      return [=] {
        const auto shares =
            frame->shares.empty() ? clusterShares(*data, frame->labels, frame->k) : frame->shares;
        if (path.endsWith(QLatin1String(".gpl"), Qt::CaseInsensitive))
          writePaletteGpl(path, frame->palette, shares, name);
        else
          writePaletteHex(path, frame->palette, shares);
      };
    }
    case Kind::Labels:
      return [=] { writeLabelsCsv(path, *data, frame->labels); };
    case Kind::Centroids:
      return [=] {
        writeCentroidsCsv(
            path, frame->centroids, frame->d, data->dimensionNames,
            frame->shares.empty() ? clusterShares(*data, frame->labels, frame->k) : frame->shares);
      };
    case Kind::Report: {
      RunReport report;
      report.input = data->source.isEmpty() ? data->displayName : data->source;
      report.n = std::size_t(data->clusteredItems());
      report.rows = frame && frame->input ? frame->input->rows() : data->n;
      report.d = data->d;
      report.config = session_.settings().config;
      report.notes = data->notes;
      if (frame && frame->input) {
        report.rowNoun = frame->input->rowNoun();
        report.compaction = QString::fromUtf8(toString(frame->input->options().compaction).data());
        if (data->isImage())
          report.colourSpace = QString::fromUtf8(toString(frame->input->space()).data());
        report.starts = frame->startSummaries;
        report.bestStart = std::max(0, frame->bestStart);
        report.finalQuality = frame->finished ? frame->quality : Quality{};
      }
      report.backend = session_.engine().backend;
      report.device = session_.engine().device;
      report.backendNote = session_.engine().note;
      for (const auto& record : history_.records())
        report.iterations.push_back(record.stats);
      report.converged = !history_.empty() && history_.records().back().stats.converged;
      report.wallSeconds = history_.empty() ? 0.0 : history_.records().back().wallMs / 1000.0;
      return [=] { writeRunReport(path, report); };
    }
    case Kind::TimingChart: {
      const QImage image = timing_.toImage(kChartSize);
      return [=] { writeImage(path, image); };
    }
    case Kind::ConvergenceChart: {
      const QImage image = convergence_.toImage(kChartSize);
      return [=] { writeImage(path, image); };
    }
    case Kind::Window: {
      const QImage image = grabWindow_();
      return [=] { writeImage(path, image); };
    }
    case Kind::Animation:
      return [job = clipJob(), path, options = clipOptions_] {
        kms::app::clip::exportClip(job, path, options);
      };
    case Kind::Trace:
      // The shown start replayed on an engine of its own, every iteration recorded.
      return [job = clipJob(), path] {
        auto engine = kms::createEngine(job.backend).engine;
        engine->setData(job.input->view());
        const kms::app::RunTrace trace =
            kms::app::recordRunTrace(*job.input, job.config, *engine,
                                     QStringLiteral("kmeans-studio " KMS_VERSION " (%1)")
                                         .arg(QString::fromStdString(engine->info().device)));
        kms::app::writeTrace(path, trace);
      };
  }
  return {};
}

void ExportController::exportTo(Kind kind, const QString& path) {
  QString error;
  std::function<void()> work = prepare(kind, path, error);
  if (!work) {
    emit failed(error);
    return;
  }
  ++pending_;
  emit started(kind, path);
  auto* watcher = new QFutureWatcher<QString>(this);
  watchers_ << watcher;
  connect(watcher, &QFutureWatcherBase::finished, this, [this, watcher, kind, path] {
    watchers_.removeAll(watcher);
    watcher->deleteLater();
    --pending_;
    const QString message = watcher->result();
    if (message.isEmpty())
      emit exported(kind, path);
    else
      emit failed(message);
  });
  watcher->setFuture(QtConcurrent::run([work = std::move(work), path]() -> QString {
    try {
      work();
      return {};
    } catch (const kms::app::ExportError& e) {
      return e.message();
    } catch (const std::exception& e) {
      return QStringLiteral("%1: %2").arg(QFileInfo(path).fileName(), QString::fromUtf8(e.what()));
    }
  }));
}

void ExportController::waitForIdle() {
  for (auto* watcher : watchers_)
    watcher->waitForFinished();
}

}  // namespace kms::ui
