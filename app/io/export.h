// Writing results. Every write goes through QSaveFile, so a failed export never leaves a
// half-written file behind; failures throw ExportError naming the file and the problem.
// Arguments that contradict each other (sizes that do not match) are programming errors and
// throw std::invalid_argument.
#pragma once

#include <QImage>
#include <QString>

#include <vector>

#include "core/dataset.h"
#include "kmeans/engine.h"

namespace kms::app {

/// An RGB centroid in [0, 1] as an 8-bit colour (rounded, clamped): the one colour used for a
/// cluster everywhere (exports, the window's views and palette).
QRgb centroidColour(const float* rgb);

/// The image with every pixel replaced by its cluster's centroid colour (alpha restored).
/// `dataset` must be an image; `labels` has dataset.n entries, `centroids` k × 3 in [0, 1].
/// Format_RGB32 when the image was opaque, Format_ARGB32 otherwise.
QImage quantizedImage(const Dataset& dataset, const std::vector<float>& centroids,
                      const std::vector<std::int32_t>& labels);

/// Fraction of points (weight) in each cluster; k values summing to 1.
std::vector<double> clusterShares(const Dataset& dataset, const std::vector<std::int32_t>& labels,
                                  int k);

/// Writes `image` in the format its suffix names (PNG when there is no suffix); an unknown
/// suffix is an ExportError.
void writeImage(const QString& path, const QImage& image);
/// GIMP palette (.gpl) of k RGB centroids in [0, 1], sorted by share, named with their share:
/// "GIMP Palette", "Name: <name>", "Columns: 4", "#", then one "R G B<tab>#rrggbb 12.3%" line
/// per colour.
void writePaletteGpl(const QString& path, const std::vector<float>& centroids,
                     const std::vector<double>& shares, const QString& name);
/// One "#rrggbb" per line, same order as the GPL palette.
void writePaletteHex(const QString& path, const std::vector<float>& centroids,
                     const std::vector<double>& shares);
/// "index,label" per point, with a header.
void writeLabelsCsv(const QString& path, const std::vector<std::int32_t>& labels);
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

/// Everything needed to reproduce and judge a run.
struct RunReport {
  QString input;  ///< file path or generator description
  std::size_t n = 0;
  int d = 0;
  kms::KMeansConfig config;
  QString backend;  ///< "cpu" / "cuda"
  QString device;
  QString backendNote;  ///< why Auto fell back to the CPU, if it did
  std::vector<kms::IterationStats> iterations;
  bool converged = false;
  double wallSeconds = 0.0;
};
/// JSON object with: "report_version" (1), "input", "n", "d", "settings" {"k", "init", "seed",
/// "max_iterations", "tolerance", "empty_clusters", "backend", "device", "backend_note"},
/// "iterations" [{"iteration", "inertia", "changed", "changed_fraction", "max_shift",
/// "empty_clusters", "converged", "ms" {"assign", "reduce", "update", "copy", "compute"}}],
/// "iteration_count", "converged", "final_inertia" (null without iterations), "wall_seconds".
/// The seed is a JSON number when a double holds it exactly (< 2^53), else a decimal string.
void writeRunReport(const QString& path, const RunReport& report);

}  // namespace kms::app
