#include "data/studio_settings.h"

#include <QMainWindow>
#include <QSettings>

#include <algorithm>

#include "controls_panel.h"
#include "views/cluster_views.h"
#include "views/image_compare_view.h"
#include "views/image_panel.h"

namespace kms::ui {

void restoreStudioSettings(const PersistedParts& parts) {
  QSettings s;
  if (s.contains(QStringLiteral("window/geometry")))
    parts.window.restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
  if (s.contains(QStringLiteral("window/state")))
    parts.window.restoreState(s.value(QStringLiteral("window/state")).toByteArray());
  session::RunSettings run;
  const kms::KMeansConfig defaults;  // what was never saved starts as the engine's defaults
  run.config.k = s.value(QStringLiteral("run/k"), 16).toInt();
  run.config.init =
      kms::InitMethod(s.value(QStringLiteral("run/init"), int(defaults.init)).toInt());
  run.config.seed = s.value(QStringLiteral("run/seed"), qulonglong(defaults.seed)).toULongLong();
  run.config.max_iterations =
      s.value(QStringLiteral("run/maxIterations"), defaults.max_iterations).toInt();
  run.config.tolerance = s.value(QStringLiteral("run/tolerance"), defaults.tolerance).toDouble();
  run.backend =
      kms::BackendKind(s.value(QStringLiteral("run/backend"), int(kms::BackendKind::Auto)).toInt());
  run.clustering.colourSpace = kms::app::ColourSpace(
      s.value(QStringLiteral("run/colourSpace"), int(kms::app::ColourSpace::SRGB)).toInt());
  run.clustering.compaction = kms::app::Compaction(
      s.value(QStringLiteral("run/compaction"), int(kms::app::Compaction::Auto)).toInt());
  run.restarts = std::max(1, s.value(QStringLiteral("run/restarts"), 1).toInt());
  parts.controls.setSettings(run);
  parts.controls.setPace(s.value(QStringLiteral("run/pace"), 0.0).toDouble());
  parts.views.setTrailsVisible(s.value(QStringLiteral("view/trails"), true).toBool());
  parts.views.imagePanel()->view()->setMode(
      ImageCompareView::Mode(s.value(QStringLiteral("view/imageMode"), 0).toInt()));
  parts.views.imagePanel()->setDitherMethod(kms::app::DitherMode(
      s.value(QStringLiteral("view/dither"), int(kms::app::DitherMode::FloydSteinberg)).toInt()));
}

void saveStudioSettings(const PersistedParts& parts) {
  QSettings s;
  s.setValue(QStringLiteral("window/geometry"), parts.window.saveGeometry());
  s.setValue(QStringLiteral("window/state"), parts.window.saveState());
  const session::RunSettings run = parts.controls.settings();
  s.setValue(QStringLiteral("run/k"), run.config.k);
  // Centroids placed by hand belong to the data they were placed on: not kept.
  s.setValue(QStringLiteral("run/init"),
             int(run.config.init == kms::InitMethod::Given ? kms::InitMethod::GreedyKMeansPlusPlus
                                                           : run.config.init));
  s.setValue(QStringLiteral("run/seed"), qulonglong(run.config.seed));
  s.setValue(QStringLiteral("run/maxIterations"), run.config.max_iterations);
  s.setValue(QStringLiteral("run/tolerance"), run.config.tolerance);
  s.setValue(QStringLiteral("run/backend"), int(run.backend));
  s.setValue(QStringLiteral("run/colourSpace"), int(run.clustering.colourSpace));
  s.setValue(QStringLiteral("run/compaction"), int(run.clustering.compaction));
  s.setValue(QStringLiteral("run/restarts"), run.restarts);
  s.setValue(QStringLiteral("run/pace"), parts.controls.pace());
  s.setValue(QStringLiteral("view/trails"), parts.views.trailsVisible());
  s.setValue(QStringLiteral("view/imageMode"), int(parts.views.imagePanel()->view()->mode()));
  s.setValue(QStringLiteral("view/dither"), int(parts.views.imagePanel()->ditherMethod()));
}

}  // namespace kms::ui
