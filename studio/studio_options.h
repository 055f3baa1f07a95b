// kmeans-studio's command line, so the window can be driven by scripts (screenshots, demos,
// measuring the iteration rate with the window open).
#pragma once

#include <QSize>
#include <QString>
#include <QStringList>

#include <optional>

#include "core/cluster_input.h"
#include "core/dither.h"
#include "io/generators.h"
#include "kmeans/backend.h"
#include "kmeans/config.h"

class QCoreApplication;

namespace kms::studio {

struct StudioOptions {
  // What to open (at most one).
  QString sample;  ///< photo | blobs | cloud
  QString file;
  std::optional<kms::app::GeneratorParams> generator;
  /// A live report (kmeans-cli --live-report) to follow: its data are opened and its
  /// iterations shown as they arrive (session/followed_run_engine.h).
  QString follow;

  // Run settings; unset fields keep the saved / default ones.
  std::optional<int> k;
  std::optional<kms::InitMethod> init;
  std::optional<std::uint64_t> seed;
  std::optional<int> maxIterations;
  std::optional<double> tolerance;
  std::optional<kms::BackendKind> backend;
  std::optional<double> pace;  ///< iterations per second, 0 = flat out
  std::optional<kms::app::ColourSpace> colourSpace;
  std::optional<kms::app::Compaction> compaction;
  std::optional<int> restarts;

  bool run = false;  ///< press Play once the data is ready
  /// Half-steps (→) once the data is ready; the screenshot then shows the last of them.
  int halfSteps = 0;
  bool regions = false;        ///< shade the 2-D view's Voronoi regions
  bool principalAxes = false;  ///< point views on the data's principal components
  bool presentation = false;   ///< presentation mode (large drawing and text)
  bool compare = false;   ///< open Compare Initialisations; --half-steps step both; screenshot it
  QString initCentroids;  ///< start from the centroids in this CSV (as kmeans-cli)
  QString trace;          ///< compare the run traced in this folder with exact Lloyd (TraceWindow)
  std::optional<std::pair<int, int>> sweep;  ///< open the k sweep over this range and run it

  // Presentation.
  QString view;                                ///< image | 2d | 3d
  QString imageMode;                           ///< split | side | original | quantised | dithered
  std::optional<kms::app::DitherMode> dither;  ///< the Dithered mode's method (fs | ordered)
  std::optional<double> split;
  std::optional<QSize> size;

  // Scripting.
  QString screenshot;                    ///< PNG written, then the window closes
  std::optional<int> screenshotAfterMs;  ///< from the start of the run; else when it finishes
  QString report;                        ///< run report (JSON) written when the run finishes
  bool quitWhenFinished = false;
  bool printStats = false;  ///< iterations, wall time and it/s on stdout when finished
  int timeoutMs = 0;        ///< > 0: give up (exit code 3) after this long
  bool noPersist = false;   ///< temporary settings: nothing read or written

  bool scripted() const { return !screenshot.isEmpty() || quitWhenFinished; }
};

/// Parses the application's arguments. On an error prints it with the usage and returns
/// nullopt (exit code 2); --help and --version exit directly.
std::optional<StudioOptions> parseStudioOptions(const QCoreApplication& app);

}  // namespace kms::studio
