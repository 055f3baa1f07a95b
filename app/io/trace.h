// A k-means run's trace (docs/trace-format.md, version 1): a folder holding trace.json, a small
// header, and NumPy arrays — the centroids before and after every iteration (required), and
// optionally each iteration's labels, inertia and changed count. kmeans-cli writes one for its
// own runs (--trace DIR); scikit-learn, FAISS or a NumPy loop can write one with a few lines
// (docs/trace-format.md); kmeans-cli --compare-trace reads one (core/trace_compare.h).
#pragma once

#include <QString>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kms::app {

struct RunTrace {
  static constexpr int kVersion = 1;
  int k = 0;
  int d = 0;
  std::size_t n = 0;  ///< rows of the data the run clustered (0: not said)
  QString source;     ///< what wrote it, e.g. "kmeans-cli 1.4.0" or "scikit-learn 1.2.1"
  /// iterations() + 1 sets of k × d centroids in data units: [0] the start, [t] after
  /// iteration t.
  std::vector<std::vector<float>> centroids;
  /// Empty, or one set of n labels an iteration: labels[t − 1] assigned by iteration t (with
  /// centroids[t − 1]).
  std::vector<std::vector<std::int32_t>> labels;
  std::vector<double> inertia;  ///< empty, or one an iteration (Σ distances² of iteration t)
  std::vector<std::int64_t> changed;  ///< empty, or one an iteration (rows that changed cluster)
  /// What reading it converted or noted ("centroids.npy: float64, rounded to float32 once").
  std::vector<QString> notes;

  int iterations() const { return centroids.empty() ? 0 : int(centroids.size()) - 1; }
};

/// Writes `trace` into the folder `dir` (made if missing): trace.json and centroids.npy, and
/// labels.npy, inertia.npy and changed.npy when the trace has them. Throws ExportError naming
/// the file and the problem.
void writeTrace(const QString& dir, const RunTrace& trace);

/// Reads the trace in folder `dir` (or the folder holding a trace.json given by name). Accepted
/// arrays: little-endian C-order .npy; centroids float32 or float64 (rounded to float32 once,
/// said in notes) shaped (iterations + 1, k, d); labels int32 or int64 shaped (iterations, n),
/// each in [0, k); inertia float64 or float32 and changed int64 or int32 shaped (iterations).
/// Throws LoadError naming the file and what is wrong: a missing or unreadable file, another
/// format or a newer version, a shape that disagrees with the header, a truncated array,
/// non-finite centroids (with their iteration), a label out of range (with its iteration and
/// row).
RunTrace readTrace(const QString& dir);

}  // namespace kms::app
