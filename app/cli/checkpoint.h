// --checkpoint / --resume: the state a run needs to continue exactly where it stopped, with any
// number of processes. A run's iteration t + 1 depends only on the centroids after t and the
// labels of t (for its changed count), and those labels are assign(centroids after t − 1); so a
// checkpoint keeps the centred centroids after t − 1 and after t. Resuming runs iteration t again
// from the first (its labels, centroids and re-seeds are the interrupted run's; the re-run's
// centroids are checked against the second, bit for bit) and goes on as the run would have.
#pragma once

#include <QString>

#include <cstdint>
#include <vector>

#include "kmeans/config.h"
#include "kmeans/stats.h"

namespace kms::app::cli {

struct Checkpoint {
  std::uint64_t rows = 0;  ///< rows of the whole data set
  int d = 0;
  int k = 0;
  std::uint64_t seed = 0;  ///< the start's seed
  InitMethod init = InitMethod::GreedyKMeansPlusPlus;
  EmptyClusterPolicy emptyClusters = EmptyClusterPolicy::ReseedFarthest;
  double tolerance = 0.0;
  std::uint64_t dataHash = 0;  ///< dataHash() of the rows (any split between ranks)
  int iteration = 0;           ///< t ≥ 1: completed iterations
  std::vector<float> before;   ///< k × d centred centroids after t − 1 (the start's at t = 1)
  std::vector<float> after;    ///< k × d centred centroids after t
  std::vector<IterationStats> stats;  ///< iterations 1 … t
};

/// Writes `checkpoint` to `path` atomically (a temporary file renamed over it: a run killed while
/// writing leaves the previous checkpoint whole). Throws ExportError naming the file.
void writeCheckpoint(const QString& path, const Checkpoint& checkpoint);
/// Reads a checkpoint; throws LoadError naming the file for a file that is not one, is
/// truncated or fails its checksum.
Checkpoint readCheckpoint(const QString& path);

/// The hash of one row (global index `row`, d values): the data set's hash is the wrapping sum
/// of its rows' hashes, so every split of the rows between ranks gives the same.
std::uint64_t rowHash(std::uint64_t row, const float* values, int d);

}  // namespace kms::app::cli
