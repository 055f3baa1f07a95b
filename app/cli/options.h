// kmeans-cli's command line: what the user asked for, parsed and checked.
#pragma once

#include <QString>
#include <QStringList>

#include <optional>
#include <stdexcept>
#include <vector>

#include "clip/clip_export.h"
#include "core/cluster_input.h"
#include "core/dither.h"
#include "io/generators.h"
#include "kmeans/backend.h"
#include "kmeans/config.h"

namespace kms::app::cli {

struct CliOptions {
  QString input;  ///< file to load; empty with --generate
  /// Every INPUT on the command line; more than one runs each in turn (cli/run.h).
  QStringList inputs;
  /// --out-dir: outputs go here, named after their input (see resolveOutputs in cli/run.cpp).
  QString outDir;
  std::optional<GeneratorParams> generate;  ///< synthetic data instead of a file
  KMeansConfig config;
  BackendKind backend = BackendKind::Auto;
  int threads = 0;  ///< CPU backend threads; 0 = all
  /// --devices: GPUs to spread the run across (EngineOptions::cuda_devices, cuda_all_devices).
  std::vector<int> devices;
  bool allDevices = false;
  ClusteringOptions clustering;  ///< colour space and compaction
  int restarts = 1;              ///< seeded starts; the lowest inertia wins
  /// Pictures: PSNR and ΔE after every iteration (--track-quality; host work per iteration).
  bool trackQuality = false;
  /// --refine: past Lloyd's optimum — Hartigan's single-row moves on the best start, then Lloyd
  /// again; kept only when the inertia falls.
  bool refine = false;
  DitherMode dither = DitherMode::None;
  QString outImage, outPalette, outLabels, outCentroids, report;
  /// Start from these centroids (a CSV of k rows, e.g. from --out-centroids or the window's
  /// export); k comes from the file.
  QString initCentroids;
  bool kGiven = false;  ///< -k was on the command line
  /// --init was on the command line; otherwise the run seeds by defaultInitFor its data.
  bool initGiven = false;
  /// --sweep A..B: cluster for every k in [A, B] (best of --restarts each) and report the
  /// measures instead of one run's outputs.
  std::optional<std::pair<int, int>> sweep;
  bool quiet = false;
  /// --checkpoint FILE every --checkpoint-every iterations; --resume FILE (cli/checkpoint.h).
  QString checkpoint;
  int checkpointEvery = 10;
  QString resume;
  /// --live-report FILE: every iteration as it ends (io/live_report.h), for kmeans-studio
  /// --follow.
  QString liveReport;
  /// --trace DIR: write the run's trace (io/trace.h) — the chosen start's centroids, labels and
  /// stats every iteration. --compare-trace DIR: compare a trace with exact Lloyd on the input
  /// (core/trace_compare.h) instead of clustering.
  QString trace;
  QString compareTrace;
  /// --animate FILE (.gif, .webp, .mp4) with --animate-size, --animate-fps, --half-steps: the
  /// chosen start as a clip (clip/clip_export.h).
  QString animate;
  clip::ClipOptions clip;
  /// --rank-shares: under mpirun, the ranks' shares of the rows in these proportions (one per
  /// rank); empty: even shares.
  std::vector<double> rankShares;

  /// Outputs that only make sense for a picture (--out-image, --out-palette).
  bool wantsImageOutputs() const { return !outImage.isEmpty() || !outPalette.isEmpty(); }
  /// Every output file option's value, empty ones included.
  QStringList outputs() const {
    return {outImage, outPalette, outLabels, outCentroids, report, animate};
  }
  /// An output goes to standard output ("-" or /dev/stdout): messages then go to stderr.
  bool writesToStdout() const {
    for (const QString& out : outputs())
      if (out == u"-" || out == u"/dev/stdout") return true;
    return false;
  }
};

/// Most values (points × dimensions) kmeans-cli reads from a file: beyond the window's 2^31, as
/// far as memory allows (the loaders check the memory free before they allocate).
inline constexpr std::size_t kCliMaxValues = std::size_t(1) << 34;

/// Most starts --restarts takes (every start's stats are kept for the report).
inline constexpr int kMaxRestarts = 10000;

/// The engine options the command line asked for (threads, GPUs).
EngineOptions engineOptionsFor(const CliOptions& options);

/// A command line that cannot be used; what() says why in one line.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Parses `arguments` (argv, program name first). Prints --help or --version and exits the
/// process itself for those; throws UsageError for anything it cannot use.
CliOptions parseCommandLine(const QStringList& arguments);

}  // namespace kms::app::cli
