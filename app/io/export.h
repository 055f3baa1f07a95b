// Writing results. Every write goes through QSaveFile, so a failed export never leaves a
// half-written file behind; failures throw ExportError naming the file and the problem.
#pragma once

#include <QImage>
#include <QString>

#include <vector>

#include "core/dataset.h"
#include "kmeans/engine.h"

namespace kms::app {

/// The image with every pixel replaced by its cluster's centroid colour (alpha restored).
/// `dataset` must be an image; `labels` has dataset.n entries, `centroids` k × 3 in [0, 1].
QImage quantizedImage(const Dataset& dataset, const std::vector<float>& centroids,
                      const std::vector<std::int32_t>& labels);

/// Fraction of points (weight) in each cluster; k values summing to 1.
std::vector<double> clusterShares(const Dataset& dataset, const std::vector<std::int32_t>& labels, int k);

void writeImage(const QString& path, const QImage& image);  // format from the suffix (PNG default)
/// GIMP palette (.gpl) of k RGB centroids in [0, 1], sorted by share, named with their share.
void writePaletteGpl(const QString& path, const std::vector<float>& centroids,
                     const std::vector<double>& shares, const QString& name);
/// One "#rrggbb" per line, same order as the GPL palette.
void writePaletteHex(const QString& path, const std::vector<float>& centroids,
                     const std::vector<double>& shares);
/// "index,label" per point, with a header.
void writeLabelsCsv(const QString& path, const std::vector<std::int32_t>& labels);
/// "cluster,<dim names...>,share" per centroid, with a header.
void writeCentroidsCsv(const QString& path, const std::vector<float>& centroids, int d,
                       const QStringList& dimensionNames, const std::vector<double>& shares);

/// Everything needed to reproduce and judge a run.
struct RunReport {
  QString input;        ///< file path or generator description
  std::size_t n = 0;
  int d = 0;
  kms::KMeansConfig config;
  QString backend;      ///< "cpu" / "cuda"
  QString device;
  QString backendNote;  ///< why Auto fell back to the CPU, if it did
  std::vector<kms::IterationStats> iterations;
  bool converged = false;
  double wallSeconds = 0.0;
};
/// JSON: input, settings, seed, backend, device, per-iteration stats.
void writeRunReport(const QString& path, const RunReport& report);

}  // namespace kms::app
