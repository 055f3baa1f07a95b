// k-means|| seeding (Bahmani, Moseley, Vattani, Kumar and Vassilvitskii, "Scalable K-Means++",
// VLDB 2012) for many rows: a few rounds that each add about ℓ = 2k rows at once, sampled in
// proportion to w·D², then the candidates, weighted by the rows nearest each, reclustered into k
// on the host. Five passes over the data instead of greedy k-means++'s k passes (each with a
// gather of every rank's chunk sums): the choice for hundreds of millions of rows across ranks.
//
// The result does not depend on how the rows are split among GPUs, processes or threads: a row is
// sampled by a counter-based uniform number keyed by its global index (parallel_sampling.h)
// against its exact integer potential term and the exact integer potential; the candidates are
// concatenated in global row order; their weights are integer sums; the reclustering is the
// CPU engine on the same candidates on every rank. docs/engine.md, "k-means||", has the argument.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "kmeans/collective.h"
#include "kmeans/data.h"
#include "kmeans/engine.h"

namespace kms::seeding {

/// Oversampling rounds after the first candidate (Bahmani et al. find 5 rounds of ℓ = 2k as good
/// as k-means++'s seeding).
inline constexpr int kParallelRounds = 5;
/// ℓ: rows each round samples, in expectation.
inline double parallelOversampling(int k) {
  return 2.0 * k;
}
/// Lloyd iterations at most on the weighted candidates.
inline constexpr int kParallelReclusterIterations = 30;
/// The candidates are reduced by greedy k-means++ up to this k, by k-means++ beyond.
inline constexpr int kParallelGreedyMaxK = 256;
/// Reclustering work (candidates × k × d) from which the backend's own engine does it (a GPU):
/// below, the CPU engine answers sooner (0.2 s against 0.37 s for 2,532 candidates, k = 256,
/// d = 64 on an H200 and its 16-core host; the GPU's seeding steps are latency-bound there).
inline constexpr double kParallelGpuReclusterWork = double(1 << 28);

/// One holder of contiguous rows (the CPU engine's share, one GPU's rows) as k-means|| sees it.
/// The holder keeps, per row, the squared distance D² to the nearest candidate so far and that
/// candidate's index. Each pass is started on every holder, then its result collected from every
/// holder, so that several GPUs of one process work at once (a CPU holder does the work when it
/// is started).
class ParallelSeedingRows {
 public:
  virtual ~ParallelSeedingRows() = default;
  /// Global index of this holder's first row.
  virtual std::size_t firstGlobalRow() const = 0;
  virtual std::size_t rowCount() const = 0;
  /// Starts lowering every row's D² with candidates [first, first + count) (`candidates`:
  /// count × d centred values, kept alive until lowered()): exact::squaredDistance, and only a
  /// strictly smaller one replaces the nearest, so ties keep the earlier candidate (first == 0
  /// sets them).
  virtual void lowerWith(const float* candidates, std::size_t first, std::size_t count,
                         double scale) = 0;
  /// Waits for lowerWith; Σ potentialTerm(w·D², scale) over the rows (wrapping int64).
  virtual std::int64_t lowered() = 0;
  /// Starts picking the rows that sampledInRound(seed, round, global row,
  /// potentialTerm(w·D², scale), potential, oversampling) takes.
  virtual void sampleRound(std::uint64_t seed, int round, std::int64_t potential,
                           double oversampling, double scale) = 0;
  /// Waits for sampleRound; the local indices of the rows it took, ascending.
  virtual std::vector<std::size_t> sampled() = 0;
  /// Centred coordinates of local rows `rows` into `out` (rows.size() × d).
  virtual void centredRows(const std::vector<std::size_t>& rows, float* out) = 0;
  /// Starts summing each row's weight term llrint(w·weight_scale) into its nearest candidate's
  /// entry (count candidates).
  virtual void sumCandidateWeights(std::size_t count, double weight_scale) = 0;
  /// Waits for sumCandidateWeights and adds its sums to `sums` (wrapping).
  virtual void addCandidateWeights(std::int64_t* sums) = 0;
  /// Frees the per-row state.
  virtual void release() = 0;
};

/// What a k-means|| seeding did, for reports and tests.
struct ParallelSeedingReport {
  std::size_t candidates = 0;  ///< rows sampled over every round (the reclustered set)
  int rounds = 0;              ///< oversampling rounds run (fewer when the potential hit 0)
  double lower_ms = 0.0;       ///< wall time lowering D² (every pass)
  double sample_ms = 0.0;      ///< wall time sampling and gathering the candidates
  double weigh_ms = 0.0;       ///< wall time summing the candidates' weights
  double recluster_ms = 0.0;   ///< wall time reducing the candidates to k on the host
};

/// Makes the engine that reduces the candidates to k: the CUDA backends run it on their GPU (its
/// results are the CPU engine's, bit for bit, so every backend seeds alike); empty: the CPU
/// engine.
using ReclusterEngineFactory = std::function<std::unique_ptr<Engine>()>;

/// k-means|| over `holders` (this process's rows, in global row order) and, through `world`,
/// every rank's: returns k × d centred starting centroids, the same for any split of the rows.
/// `global_rows` is the number of rows of every rank together; `stop` is polled between passes
/// (true: throws Interrupted).
std::vector<float> seedKMeansParallel(const std::vector<ParallelSeedingRows*>& holders,
                                      Collective& world, std::size_t global_rows,
                                      const DataSummary& summary, int k, int d, std::uint64_t seed,
                                      const std::function<bool()>& stop = {},
                                      const ReclusterEngineFactory& make_engine = {},
                                      ParallelSeedingReport* report = nullptr);

}  // namespace kms::seeding
