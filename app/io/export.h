// Writing results. Every write to a regular file goes through QSaveFile, so a failed export never
// leaves a half-written file behind; devices, FIFOs and "-" (standard output) are written
// through, never replaced (io/save_file.h). Failures throw ExportError naming the file and the
// problem.
// Arguments that contradict each other (sizes that do not match) are programming errors and
// throw std::invalid_argument.
#pragma once

#include <QImage>
#include <QString>

#include <optional>
#include <vector>

#include "core/dataset.h"
#include "core/quality.h"
#include "kmeans/engine.h"
#include "kmeans/refine.h"

namespace kms::app {

/// A colour in [0, 1] (R, G, B, and alpha when d = 4) as an 8-bit colour (rounded, clamped): the
/// one colour used for a cluster everywhere (exports, the window's views and palette).
QRgb centroidColour(const float* values, int d = 3);
/// The colour of each of the k centroids (k × d values, d = 3 or 4, sRGB in [0, 1]).
std::vector<QRgb> paletteOf(const std::vector<float>& centroids, int d);

/// The quantised picture from the compact form: pixel p gets palette[rowLabels[index[p]]];
/// pixels left out of clustering (fully transparent) stay fully transparent. Format_Indexed8
/// with the palette as colour table (plus one transparent entry when pixels were left out) when
/// that makes at most 256 colours, else Format_RGB32 / Format_ARGB32. `dataset` must be a
/// picture, `rowLabels` one label per row, each < palette.size().
QImage quantizedImage(const Dataset& dataset, const std::vector<QRgb>& palette,
                      const std::vector<std::int32_t>& rowLabels);

/// Fraction of the items (pixel counts, weights) in each cluster; k values summing to 1.
/// `rowLabels` has one label per row.
std::vector<double> clusterShares(const Dataset& dataset,
                                  const std::vector<std::int32_t>& rowLabels, int k);

/// Writes `image` in the format its suffix names (PNG when there is no suffix); an unknown
/// suffix is an ExportError. An indexed picture becomes a palette PNG of 1, 2, 4 or 8 bits per
/// pixel (with transparency when a colour has alpha); formats without palettes get true colour.
void writeImage(const QString& path, const QImage& image);
/// GIMP palette (.gpl) of the k cluster colours, sorted by share, named with their share:
/// "GIMP Palette", "Name: <name>", "Columns: 4", "#", then one "R G B<tab>#rrggbb 12.3%" line
/// per colour.
void writePaletteGpl(const QString& path, const std::vector<QRgb>& palette,
                     const std::vector<double>& shares, const QString& name);
/// One "#rrggbb" per line (#rrggbbaa for a colour that is not opaque), same order as the GIMP
/// palette.
void writePaletteHex(const QString& path, const std::vector<QRgb>& palette,
                     const std::vector<double>& shares);
/// "index,label" per item (pixel or point, in file order), with a header; −1 for items left out
/// of clustering (fully transparent pixels). `rowLabels` has one label per row.
void writeLabelsCsv(const QString& path, const Dataset& dataset,
                    const std::vector<std::int32_t>& rowLabels);
/// "cluster,<dim names...>,share" per centroid, with a header. Values are written with the
/// fewest digits that read back exactly.
void writeCentroidsCsv(const QString& path, const std::vector<float>& centroids, int d,
                       const QStringList& dimensionNames, const std::vector<double>& shares);

/// The data set's points as CSV: a header of its dimension names, then one row per point
/// (exact float round trip). Reads back with loadDataset.
void writePointsCsv(const QString& path, const Dataset& dataset);
/// The data set's points as a binary little-endian PLY: float x, y (, z) and, when the data set
/// has pointColours, uchar red, green, blue. Throws ExportError unless d is 2 or 3.
void writePointsPly(const QString& path, const Dataset& dataset);

/// One seeded start of a best-of-N run.
struct StartSummary {
  int start = 0;  ///< 0-based
  std::uint64_t seed = 0;
  int iterations = 0;
  bool converged = false;
  double inertia = 0.0;                             ///< final inertia (what decides the best start)
  kms::StopRule stopRule = kms::StopRule::Running;  ///< what ended it
  /// Pictures with --track-quality: of the start's final palette (ΔE estimated); else invalid.
  Quality quality;
};

/// How start `o` ended, for data of `points` points (with counts: the expanded count) and the
/// run's tolerance (which says what stopped it); no quality.
StartSummary summarizeStart(const kms::StartOutcome& o, std::size_t points, double tolerance);

/// Everything needed to reproduce and judge a run.
struct RunReport {
  QString input;         ///< file path or generator description
  std::size_t n = 0;     ///< items: pixels or points
  std::size_t rows = 0;  ///< what the engine clustered (distinct colours when compact)
  int d = 0;
  kms::KMeansConfig config;
  QString colourSpace;  ///< pictures: the clustering space ("srgb", ...); empty for points
  QString compaction;   ///< "auto", "always", "never"
  QString rowNoun;      ///< what the rows are ("distinct colours", "pixels", ...)
  QString dither;       ///< the quantised picture's dithering, when one was written
  QStringList notes;    ///< the loader's notes (first frame of an animation, ...)
  QString backend;      ///< "cpu" / "cuda"
  QString device;
  QString backendNote;                          ///< why Auto fell back to the CPU, if it did
  std::vector<kms::IterationStats> iterations;  ///< of the best start
  /// Per iteration of the best start (pictures with --track-quality; ΔE estimated), else empty.
  std::vector<Quality> quality;
  std::vector<StartSummary> starts;  ///< every start (one without --restarts)
  int bestStart = 0;
  Quality finalQuality;  ///< pictures: of the result, ΔE exact
  /// --refine: what the refinement of the best start did (Hartigan moves, then Lloyd).
  std::optional<kms::RefineReport> refine;
  bool converged = false;
  kms::StopRule stopRule = kms::StopRule::Running;  ///< what ended the best start
  double wallSeconds = 0.0;
  /// Wall time of the command's phases in order (reading the file, its steps, the engine's
  /// start, the starts, the result, writing), in milliseconds.
  std::vector<std::pair<QString, double>> phasesMs;
};
/// JSON object with: "report_version" (2), "input", "n" (items), "rows", "d", "notes",
/// "settings" {"k", "init", "seed", "max_iterations", "tolerance", "empty_clusters",
/// "restarts", "colour_space", "compaction", "rows_are", "dither", "backend", "device",
/// "backend_note"}, "iterations" [{"iteration", "inertia", "changed", "changed_fraction",
/// "max_shift", "empty_clusters", "converged", "ms" {"assign", "reduce", "update", "copy",
/// "compute"}, "rows_searched" and "distances_computed" where the engine counts them, and with
/// --track-quality "psnr", "delta_e" (estimated on a sample)}], "starts"
/// [{"start", "seed", "iterations", "converged", "stop_rule", "inertia", and with
/// --track-quality "psnr", "delta_e"}], "best_start", "iteration_count", "converged",
/// "stop_rule" (toString(StopRule)), "final_inertia" (null without iterations), for pictures
/// "quality" {"psnr", "delta_e" (exact)}, with --refine "refine" {"passes", "moves",
/// "sse_before", "sse_after", "lloyd_iterations", "inertia_before", "inertia_after", "kept"},
/// "wall_seconds" and "phases" [{"phase", "ms"}] in the order they ran. The seed is a JSON number
/// when a double holds it exactly (< 2^53), else a decimal string.
void writeRunReport(const QString& path, const RunReport& report);

}  // namespace kms::app
