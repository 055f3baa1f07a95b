// A run's trace (io/trace.h) against exact Lloyd on the same data: where the two part, and why.
//
// Three runs are compared iteration by iteration:
//   the trace          — its centroids c_t (and its labels, inertia, changed counts if stored);
//   implied by it      — the labels the trace's centroids c_{t−1} imply (exact assignment:
//                        nearest centroid in the CPU backend's exact FP32, ties to the lower
//                        index) and their exact means;
//   exact Lloyd        — the engine's run from the trace's start c_0.
// From them: the first iteration where the trace's centroids are not the exact run's to the
// bit and whether that iteration's update is exact, only rounded (within 10⁻⁴ of each cluster's
// radius of the exact means of its own labels) or wrong; the first iteration where labels flip
// and how many of the flipped points were within the centroids' difference of a tie (points
// whose label depends on rounding); the adjusted Rand index between the implied and exact
// labels; cycles of label sets (by hash); empty clusters; and the iteration at which each common
// stopping rule would have stopped. Cluster identities are matched once, at the end, by the
// Hungarian method on centroid distances (k ≤ 512), and every per-iteration count uses the
// matching.
#pragma once

#include <QString>
#include <QStringList>

#include <cstdint>
#include <vector>

#include "core/dataset.h"
#include "io/trace.h"
#include "kmeans/config.h"

namespace kms::app {

struct CompareOptions {
  /// Empty clusters in the exact run (as the run traced treated them, if known).
  EmptyClusterPolicy emptyClusters = EmptyClusterPolicy::ReseedFarthest;
  /// The stopping rules' tolerance (relative shift, relative inertia change, fraction changed).
  double tolerance = 1e-4;
  int threads = 0;  ///< CPU threads of the exact engine; 0 = all
  /// Keep both runs in the result (TraceComparison::runs), for views that replay them.
  bool keepRuns = false;
};

/// What iteration t's update did against the exact means of its own labels.
enum class UpdateVerdict { Exact, Rounded, Wrong };
const char* describe(UpdateVerdict verdict);

struct TraceIterationComparison {
  int iteration = 0;                 ///< t, from 1
  double traceInertia = -1.0;        ///< stored in the trace (−1: not stored)
  double impliedInertia = 0.0;       ///< Σ exact distances² under the trace's c_{t−1}
  double exactInertia = 0.0;         ///< the exact run's
  double centroidDistance = 0.0;     ///< max over matched clusters ‖c_t − exact c_t‖
  std::int64_t flipped = 0;          ///< implied labels ≠ the exact run's labels
  std::int64_t flippedNearTies = 0;  ///< of those, within the centroids' difference of a tie
  double adjustedRand = 1.0;         ///< implied against exact labels
  UpdateVerdict update = UpdateVerdict::Exact;
  double updateError = 0.0;             ///< max ‖c_t − means‖ / cluster radius
  std::int64_t storedLabelsWrong = -1;  ///< stored labels ≠ implied (−1: none stored)
  int emptyClusters = 0;                ///< clusters the implied labels leave empty
  double shift = 0.0;                   ///< max ‖c_t − c_{t−1}‖ / the data's scale
  double changedFraction = 1.0;         ///< implied labels changed since t − 1 (1 at t = 1)
  double centroidsApart = 0.0;  ///< max ‖c_{t−1} − exact c_{t−1}‖ over matched clusters
  /// Points whose implied label went back to the one of t − 2 after changing at t − 1.
  std::int64_t oscillating = 0;
};

/// Both runs, iteration by iteration (CompareOptions::keepRuns).
struct ComparedRuns {
  /// The exact run's centroids after iterations 0 … T (k × d each; [0] is the trace's start).
  std::vector<std::vector<float>> exactCentroids;
  /// Iteration t's labels ([t − 1]): those the trace's c_{t−1} imply, named by the exact run's
  /// clusters they are matched to (so the two runs' colours correspond), and the exact run's.
  std::vector<std::vector<std::int32_t>> impliedLabels, exactLabels;
  /// [t − 1]: iteration t's implied labels kept the trace's own cluster numbers (1: while both
  /// runs' centroids before t were the same to the bit) instead of the final matching's.
  std::vector<char> identityAt;
};

struct TraceComparison {
  std::vector<TraceIterationComparison> iterations;
  bool identical = false;         ///< every c_t equals the exact run's to the bit
  int firstDivergence = 0;        ///< first t whose c_t differs from the exact run's (0: none)
  int firstFlip = 0;              ///< first t whose implied labels differ from the exact run's
  std::vector<int> wrongUpdates;  ///< iterations whose update is wrong
  int cycleStart = 0, cyclePeriod = 0;  ///< label sets repeating with period ≥ 2 (0: none)
  /// Points that went back to the cluster they had two iterations before at least twice.
  std::size_t oscillatingPoints = 0;
  /// The iteration at which each stopping rule (at CompareOptions::tolerance) stops (0: never).
  int stopByShift = 0, stopByInertia = 0, stopByChanged = 0;
  /// Trace cluster j is exact cluster matching[j] (the identity when the runs agree).
  std::vector<int> matching;
  QStringList findings;  ///< the conclusions, as sentences, most important first
  ComparedRuns runs;     ///< with CompareOptions::keepRuns, else empty
};

/// Compares `trace` with exact Lloyd on `data` (points, not a picture; n and d must match the
/// trace's). Throws LoadError naming the trace when k, d or n disagree with the data.
TraceComparison compareTrace(const Dataset& data, const RunTrace& trace, const QString& traceName,
                             const CompareOptions& options = {});

/// Whether a point's squared distances `da` and `db` to two centroids are within what can swap
/// them: the centroids moving by `delta` (2δ(2r + δ), r the larger distance) or FP32 rounding of
/// a d-term distance ((d + 2)·2⁻²⁴ of their sum). Such points flip with summation order.
bool withinTieMargin(double da, double db, double delta, int d);

/// The rows of `data` whose two nearest of `centroids` (k × d, data units) are within the tie
/// margin (withinTieMargin with `delta`): the points whose labels rounding or a move of `delta`
/// can change.
std::vector<std::uint32_t> nearTieRows(const Dataset& data, const std::vector<float>& centroids,
                                       double delta);

/// The comparison as text: the findings, then a table of every iteration.
QString formatComparison(const TraceComparison& comparison);
/// The comparison as a JSON document (findings, summary, one object an iteration).
QByteArray comparisonJson(const TraceComparison& comparison, const QString& traceName);

/// The Hungarian method: the assignment of rows to columns of the square `cost` (n × n,
/// row-major) with the least total; result[row] = column.
std::vector<int> minimumCostMatching(const std::vector<double>& cost, int n);

/// The adjusted Rand index of two labelings of the same items (1: the same partition).
double adjustedRandIndex(const std::vector<std::int32_t>& a, const std::vector<std::int32_t>& b);

}  // namespace kms::app
