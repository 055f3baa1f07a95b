// Parameters of one k-means run, shared by every backend.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace kms {

/// How the first k centroids are chosen.
enum class InitMethod {
  Random,          ///< k distinct points drawn uniformly (Floyd's algorithm on the seed); with
                   ///< counts, k distinct rows drawn in proportion to their counts.
  KMeansPlusPlus,  ///< D² sampling (Arthur & Vassilvitskii), weighted by the point weights or
                   ///< counts.
  /// Greedy k-means++: each step draws 2 + ⌊ln k⌋ candidates by D² sampling and keeps the one
  /// that lowers the potential Σ w·min(D², ‖x − c‖²) most (potentials summed exactly, in
  /// integers, so every backend keeps the same candidate). Costs that many passes per centroid;
  /// better starts than plain k-means++ (Arthur & Vassilvitskii; scikit-learn's default).
  GreedyKMeansPlusPlus,
  Given,  ///< KMeansConfig::initial_centroids, k × d in data units.
  /// k-means|| (Bahmani et al., "Scalable K-Means++"): 5 rounds that each sample about 2k rows
  /// at once by w·D², then the ~10k candidates, weighted by their nearest rows, reduced to k by
  /// greedy k-means++ (plain past k = 256) and Lloyd. Six passes over the data instead of k: the
  /// seeding for many millions of rows (7–9× faster than greedy on an H200 at 8–50 M rows, k =
  /// 256–1,024), and across ranks, where each greedy step is a gather. Every row's draw is keyed
  /// by its global index, so the result does not depend on the split.
  KMeansParallel,  // after Given: the values before it are kept in settings and files
};

/// What happens to a cluster that received no points (or zero total weight) in an iteration.
enum class EmptyClusterPolicy {
  KeepCentroid,    ///< The centroid stays where it was.
  ReseedFarthest,  ///< The centroid jumps to the point farthest from its own centroid; with m empty
                   ///< clusters, ascending, the m farthest distinct positions are used, farthest
                   ///< first, ties to the lexicographically smaller (centred) coordinates. The
                   ///< rule never looks at point indices, so compact data and the expanded data
                   ///< re-seed alike.
};

/// Largest k any backend accepts (labels are stored in 16 bits on the GPU).
inline constexpr int kMaxClusters = 65535;

/// Settings of a run. Defaults are what the GUI and the CLI start with.
struct KMeansConfig {
  int k = 8;  ///< Number of clusters, 1 ≤ k ≤ min(N, kMaxClusters).
  /// Hard cap on Lloyd iterations (≥ 1). 300, as scikit-learn: a photograph's last few pixels
  /// settle slowly (a 17.9-megapixel photo at k = 16 still moved 7,021 pixels at iteration 100).
  int max_iterations = 300;
  /// Convergence threshold (≥ 0): a run has converged after an iteration in which no point
  /// changed cluster, or the fraction of points that changed cluster is below `tolerance`, or
  /// the largest centroid shift divided by the data scale (largest per-dimension range) is
  /// below `tolerance`.
  double tolerance = 1e-4;
  /// Greedy k-means++ by default: on real photographs (best of 8 starts, k = 16 and 64) it
  /// matched or beat scikit-learn's best of 10 on every picture where plain k-means++ fell up to
  /// 0.1 dB short (docs/quality.md).
  InitMethod init = InitMethod::GreedyKMeansPlusPlus;
  std::uint64_t seed = 1;  ///< Same data + same config + same seed ⇒ bit-identical results.
  EmptyClusterPolicy empty_clusters = EmptyClusterPolicy::ReseedFarthest;
  /// k × d row-major, in data units; used only with InitMethod::Given.
  std::vector<float> initial_centroids;
  /// initial_centroids are in the engine's centred frame (Snapshot::centred_centroids of the same
  /// data), taken exactly as they are: a checkpointed run resumes from them with no rounding.
  bool initial_centroids_centred = false;
  /// Keep every iteration's centroids and stats for Engine::snapshotAt (rewinding a run). Costs
  /// 2·k·d floats per iteration on the host and, on the GPU, one k·d copy per iteration.
  bool keep_history = false;
};

/// Work (rows × d × k) from which kmeans-cli seeds with k-means|| on GPUs when no --init is
/// given: greedy k-means++'s k steps (each a few latency-bound launches and, across GPUs, a
/// gather) took 6.2–17.9 s there on an H200 (50 M × 16 and 8 M × 64 at k = 256, 2 M × 128 at
/// k = 1,024), k-means|| 0.7–2.2 s, the runs ending −6.5 % to +0.95 % in inertia
/// (docs/benchmarks.md). Photos (their distinct colours, d = 3) stay far below. Not on the CPU:
/// there both cost about the same distances (k-means|| scores ~10k candidates a row, greedy
/// 3 + ln k candidates a centroid), and greedy starts better.
inline constexpr double kParallelSeedingWork = 34359738368.0;  // 2^35

/// The seeding for a run that did not name one: greedy k-means++, or on GPUs k-means|| from
/// kParallelSeedingWork rows × d × k (rows of every rank together).
InitMethod defaultInitFor(std::size_t rows, int d, int k, bool on_gpus);

/// Throws InvalidArgument if `config` cannot be used on data of n points of d dimensions.
/// Messages are complete sentences fit to show a user ("k = 20 is larger than the number of
/// points (12)").
void validateConfig(const KMeansConfig& config, std::size_t n, int d);

/// Throws InvalidArgument unless `values` centroid coordinates are k × d for 1 ≤ k ≤
/// kMaxClusters (Engine::assign's argument). Returns k.
int validateCentroidCount(std::size_t values, int d);

std::string_view toString(InitMethod method);
std::string_view toString(EmptyClusterPolicy policy);
/// Accepts "random", "kmeans++" (also "k-means++", "plusplus"), "greedy-kmeans++" (also
/// "greedy"), "kmeans||" (also "k-means||", "parallel"), "given".
std::optional<InitMethod> parseInitMethod(std::string_view text);
/// Accepts "keep" and "reseed" (also "farthest").
std::optional<EmptyClusterPolicy> parseEmptyClusterPolicy(std::string_view text);

}  // namespace kms
