// A sweep over k: the same data clustered for every k in a range (best of R seeded starts each)
// and the measures people read off such a sweep — inertia with its elbow, silhouette,
// Calinski–Harabasz and Davies–Bouldin. No Qt: the CLI and the window share it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kmeans/config.h"
#include "kmeans/data.h"
#include "kmeans/engine.h"

namespace kms::app {

struct SweepOptions {
  int kFrom = 2;
  int kTo = 10;
  int restarts = 1;   ///< seeded starts per k (seeds seed, seed + 1, ...); lowest inertia kept
  KMeansConfig base;  ///< everything but k (init, seed, iterations, tolerance, empty clusters)
  /// Silhouette is exact (over every row, counts included) up to this many rows, else computed
  /// on a seeded uniform sample of silhouetteSample rows (its cost is quadratic in the rows).
  std::size_t silhouetteLimit = 20000;
  std::size_t silhouetteSample = 4000;
};

/// The measures of one k, from its best start.
struct SweepRow {
  int k = 0;
  double inertia = 0.0;           ///< Σ w·‖x − c‖² (lower is tighter)
  double silhouette = 0.0;        ///< mean silhouette in [−1, 1] (higher is better)
  double calinskiHarabasz = 0.0;  ///< between / within dispersion ratio (higher is better)
  double daviesBouldin = 0.0;     ///< mean worst similarity of a cluster (lower is better)
  int iterations = 0;             ///< of the best start
  bool converged = false;
  int bestStart = 0;
  double seconds = 0.0;  ///< all starts of this k
};

struct SweepResult {
  std::vector<SweepRow> rows;
  /// k at the elbow of the inertia curve (Kneedle on log inertia: the largest gap below the
  /// chord of the normalised curve); 0 with fewer than three k.
  int elbowK = 0;
  static constexpr const char* kElbowRule =
      "Kneedle on log inertia: the k whose normalised log inertia lies farthest below the "
      "straight line from the first k to the last";
  std::size_t silhouetteRows = 0;  ///< rows the silhouette was computed over
  bool silhouetteSampled = false;
  bool cancelled = false;
};

/// Runs the sweep on `engine` (data already set, the view it was given in `data`). `progress`
/// is called after every start with (starts done, starts in all); returning false cancels the
/// sweep (the rows finished so far are returned). Throws what the engine throws.
SweepResult runSweep(Engine& engine, const DataView& data, const SweepOptions& options,
                     const std::function<bool(int, int)>& progress = {});

/// The measures of a labelling (k × d centroids, one label per row; rows weighted by counts or
/// weights when the view has them). The silhouette is exact up to `silhouetteLimit` rows, else
/// taken over a seeded sample of `sampleSize` rows; `silhouetteRows` says how many were used.
SweepRow measureClustering(const DataView& data, const std::vector<float>& centroids, int k,
                           const std::vector<std::int32_t>& labels, std::size_t silhouetteLimit,
                           std::size_t sampleSize, std::uint64_t sampleSeed,
                           std::size_t* silhouetteRows = nullptr);

/// Kneedle on a decreasing curve; returns the index of the knee (0 when size < 3).
std::size_t kneeIndex(const std::vector<double>& x, const std::vector<double>& y);

/// "2..20" or "2-20" → (2, 20); throws std::invalid_argument otherwise.
std::pair<int, int> parseKRange(const std::string& text);

}  // namespace kms::app
