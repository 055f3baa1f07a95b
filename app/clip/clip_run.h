// A run replayed for a clip: the same data, configuration and seed run again on an engine of
// its own with its history kept, so that every frame shows exactly what the window showed at
// that iteration (labels by the engine's exact assignment, centroids bit for bit).
#pragma once

#include <QString>

#include <atomic>
#include <cstdint>
#include <vector>

#include "core/cluster_input.h"
#include "kmeans/backend.h"
#include "kmeans/config.h"
#include "kmeans/engine.h"

namespace kms::app::clip {

/// One picture of a clip: a whole iteration, or one of its two moves (teaching mode).
enum class ClipPhase {
  Start,   ///< iteration 0: the seeded centroids, no labels yet
  Whole,   ///< labels of iteration t and the centroids its update produced
  Assign,  ///< labels of iteration t beside the centroids they were assigned to
  Update,  ///< the centroids moved to the means of those labels
};

/// What one frame shows, in the data set's units.
struct ClipFrame {
  int iteration = 0;  ///< 0 … iterations()
  ClipPhase phase = ClipPhase::Start;
  std::vector<float> centroids;      ///< k × d drawn (data set units: sRGB for pictures)
  std::vector<float> movedFrom;      ///< Update: where each centroid was (k × d); else empty
  std::vector<std::int32_t> labels;  ///< one per data set row; empty at the start
  kms::IterationStats stats;         ///< of `iteration` (zero at the start)
};

class ClipRun {
 public:
  /// Runs `config` (its seed: the start to show) on `input` to the end with the history kept.
  /// Throws as Engine::initialize for a bad configuration; kms::Interrupted when `cancel` is
  /// raised.
  ClipRun(ClusteringInputPtr input, kms::KMeansConfig config, kms::BackendKind backend,
          const std::atomic<bool>* cancel = nullptr);

  const ClusteringInput& input() const { return *input_; }
  int k() const { return config_.k; }
  const kms::KMeansConfig& config() const { return config_; }
  int iterations() const { return iterations_; }
  /// Every iteration's stats (iterations() of them).
  const std::vector<kms::IterationStats>& stats() const { return stats_; }
  /// Frames of the clip: the start, then each iteration whole, or (halfSteps) as its assign and
  /// update moves.
  int frameCount(bool halfSteps) const;
  /// Frame `index` < frameCount(halfSteps). Not thread-safe (it uses the engine).
  ClipFrame frame(int index, bool halfSteps);
  /// The data set's centroids after iteration t (0 … iterations()), without labels.
  std::vector<float> centroidsAfter(int t) const;
  QString device() const;

 private:
  ClusteringInputPtr input_;
  kms::KMeansConfig config_;
  std::unique_ptr<kms::Engine> engine_;
  int iterations_ = 0;
  std::vector<kms::IterationStats> stats_;
};

}  // namespace kms::app::clip
