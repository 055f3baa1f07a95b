// Multi-threaded exact Lloyd k-means on the CPU: the reference for the CUDA backend and the
// fallback where there is no GPU.
#pragma once

#include <array>
#include <memory>
#include <vector>

#include "common/principal_axis.h"
#include "common/thread_pool.h"
#include "cpu/seeding_tree.h"
#include "kmeans/collective.h"
#include "kmeans/engine.h"
#include "kmeans/testing.h"

namespace kms {

/// With a `collective` of several ranks, the engine is one rank of a distributed run: setData
/// takes this rank's share of the rows (kmeans/collective.h) and every decision about all the
/// rows — summary, seeding draws, sums, re-seeds, inertia, convergence — is combined through the
/// collective, so every rank holds the result one process would compute on all the rows, bit for
/// bit; snapshots and assign() give this rank's labels. Points only (no weights or counts).
class CpuEngine final : public Engine {
 public:
  explicit CpuEngine(int threads = 0, std::shared_ptr<Collective> collective = nullptr,
                     CpuTuning tuning = {});

  BackendInfo info() const override;
  void setData(const DataView& data) override;
  void initialize(const KMeansConfig& config) override;
  IterationStats step() override;
  void snapshot(Snapshot& out) override;
  void assign(const std::vector<float>& centred_centroids,
              std::vector<std::int32_t>& labels) override;

 private:
  /// Per-worker exact sums of one assignment pass.
  struct Accumulator {
    std::vector<std::int64_t> coord;   // k × d fixed-point sums
    std::vector<std::int64_t> weight;  // k fixed-point weights (or counts)
    std::uint64_t changed = 0;         // points (Σ counts with counts) that changed cluster
    std::uint64_t rows_searched = 0;   // rows the bounds did not settle
    std::uint64_t distances = 0;       // point-to-centroid distances computed
  };

  void requireInitialized() const;
  void centreInto(std::size_t i, float* out) const;
  /// The centred coordinates of global rows `rows` into `out` (rows.size() × d), from whichever
  /// rank holds each.
  void fetchRows(const std::vector<std::size_t>& rows, float* out);
  /// The point's weight, its count as a float with counts, 1 otherwise (k-means++ mass).
  float pointWeight(std::size_t i) const {
    if (data_.weights) return data_.weights[i];
    if (data_.counts) return static_cast<float>(data_.counts[i]);
    return 1.0f;
  }
  /// Row i's exact potential term at squared distance `d2`: seeding::potentialTerm((w·)d2).
  std::int64_t potentialTermOf(std::size_t i, float d2, double scale) const;
  void initRandom();
  /// k-means++ D² sampling; greedy: several candidates per step, the lowest potential kept.
  void initPlusPlus(bool greedy);
  /// k-means|| (common/parallel_seeding.h) over this rank's rows.
  void initParallel();
  void initGiven();
  /// The transposed copy for the vectorised search and, with the sorted search, the centroids'
  /// projections on axis_ in ascending order.
  void transposeCentroids();
  /// The nearest centroid to `x` (centred, d ≤ kMaxAxisDims) by the walk outwards in projection
  /// order from x's own projection, starting from `hint` (the row's last label, or −1): the full
  /// search's label and exact distance, and a lower bound (its slack applied) on the distance to
  /// every other centroid — with `runner_up`, the runner-up's distance (a longer walk). Returns
  /// the number of centroids scored.
  int searchSorted(const float* x, int hint, bool runner_up, int& best, float& best_dist,
                   float& lower) const;
  /// Many centroids in few dimensions: the sorted search beats scoring all k (vectorised).
  bool useSortedSearch() const { return sorted_search_ && k_ >= kSortedSearchMinK; }
  static constexpr int kSortedSearchMinK = 32;
  static constexpr int kSortedSearchMaxD = 4;  // beyond, one axis prunes too little
  static constexpr int kHalfGapMaxD = 64;      // (d + 2)·u stays far inside the test's margin
  /// With keep_history: records the current centroids and the last stats.
  CentroidsNow centroidsForHistory() const override;
  void assignChunk(std::size_t chunk, Accumulator& acc, std::vector<float>& dist);
  /// One row of compact data (distinct values with counts): Hamerly's bounds settle it when
  /// they can, else the full search; moves its m·q(x) between clusters when its label changes.
  void assignCountedRow(std::size_t i, const float* x, float* dist, Accumulator& acc,
                        double& inertia);
  /// Compact data at many centroids: assignCountedRow with a lower bound per group of centroids
  /// (Yinyang); the groups a row's own centroid cannot be proved nearer than are searched.
  void assignCountedRowGrouped(std::size_t i, const float* x, float* dist, Accumulator& acc,
                               double& inertia);
  /// Moves the row's m·q(x) from cluster `from` (−1: none) to `to` in the pass's accumulator.
  void moveCountedRow(std::size_t i, const float* x, int from, int to, Accumulator& acc) const;
  /// How many groups of centroids the group bounds use for this run (0: Hamerly's one bound).
  int groupCountFor() const;
  /// Splits the seeded centroids into groups_ groups of nearby ones (a few Lloyd rounds on the
  /// centroids themselves), drops groups left empty and lays out the grouped copy's columns.
  void formGroups();
  /// The grouped copy of the centroids for the vectorised search of one group, and the groups'
  /// centres and radii (every step).
  void transposeGroups();
  /// Whether row i (centred `x`) keeps its label with the current centroids by its group bounds
  /// alone (read only: assign()'s look at the coming step; needs prepareGroupDecay()).
  bool settledByGroupBounds(std::size_t i, const float* x) const;
  /// Row i's group bounds lowered by its groups' moves since its stamp (now_low, group_stride_
  /// values) and the smallest of them.
  float groupLowBound(std::size_t i, float* now_low) const;
  /// group_decay_ for the step about to run.
  void prepareGroupDecay();
  /// Each group's largest centroid move of the last update (from shifts_), summed into
  /// group_moved_.
  void updateGroupShifts();
  static constexpr int kGroupMinK = 64;
  static constexpr int kMaxGroups = 64;
  static constexpr int kGroupBoundsMaxD = 64;
  /// The centred positions (up to count × d values) EmptyClusterPolicy::ReseedFarthest takes.
  std::vector<float> farthestPositions(int count);

  /// k-means++'s k-d tree of this data's rows (d ≤ 8), kept for every start on the same data.
  std::unique_ptr<cpu::SeedingTree> seeding_tree_;
  bool seeding_tree_greedy_ = false;  ///< its nodes keep greedy term sums
  CpuTuning tuning_;
  ThreadPool pool_;
  std::shared_ptr<Collective> collective_;  ///< never null: soloCollective() alone
  RowShare share_;                          ///< this rank's rows among all
  DataView data_;
  DataSummary summary_;
  bool has_data_ = false;
  bool initialized_ = false;
  int k_ = 0;
  int d_ = 0;
  int k_padded_ = 0;
  std::vector<float> coord_scale_;  // 2^coord_exp per dimension
  float weight_scale_ = 1.0f;

  std::vector<float> centroids_;   // k × d, centred (x − mid)
  std::vector<float> previous_;    // centroids the last assignment used, centred
  std::vector<float> transposed_;  // d × k_padded copy of centroids_ for the vectorised search
  // The sorted search (low d, many centroids): |a·x − a·c| ≤ ‖x − c‖ for the unit axis a, so a
  // walk outwards from a·x through the centroids sorted by a·c can stop once the projection gap
  // alone exceeds the nearest distance found. Only speed depends on the axis.
  bool sorted_search_ = false;
  std::array<float, kMaxAxisDims> axis_{};
  std::vector<double> sorted_projection_;  // k, ascending
  std::vector<int> sorted_order_;          // the centroid at each position
  // Hamerly's second test: half the distance from each centroid to its nearest other, deflated
  // by 4·kBoundSlack (0 when not computed: k² distances cost more than they save). A row nearer
  // its own centroid than that keeps it — no other centroid can be as near.
  std::vector<float> half_gap_;
  std::vector<std::int32_t> labels_;  // −1 before the first iteration
  // A step writes its labels and bounds here and swaps them in only once every chunk is done,
  // so an interrupted step leaves the previous iteration intact.
  std::vector<std::int32_t> next_labels_;
  std::vector<float> next_bounds_;
  std::vector<Accumulator> accumulators_;
  std::vector<std::vector<float>> distance_scratch_;
  std::vector<double> chunk_inertia_;
  // Compact data only (counts): the cluster totals are kept across iterations and each
  // iteration's accumulators hold only the moves of rows whose label changed; each row keeps
  // (upper, lower) bounds on the distance to its centroid and to every other (Hamerly).
  Accumulator kept_;
  std::vector<float> bounds_;  // n × (upper, lower), valid once labels_ are; none with groups_
  /// k + 2: each centroid's last move, inflated; [k] the largest, [k + 1] the second largest.
  std::vector<float> shifts_;
  int largest_shift_ = -1;  ///< the centroid that moved most (−1: none yet)
  // Group bounds (Yinyang, Ding et al. 2015), compact data at many centroids: the centroids are
  // split once a run into groups of nearby ones, and each row keeps a lower bound on its distance
  // to every centroid of each group other than its own. A centroid's move lowers only its
  // group's bounds, where Hamerly's one bound falls by the largest move of all k. Only speed
  // depends on the groups.
  int groups_ = 0;                  ///< 0: Hamerly's one bound
  std::vector<int> group_of_;       ///< k: each centroid's group
  std::vector<int> group_begin_;    ///< groups_ + 1 offsets into group_members_
  std::vector<int> group_members_;  ///< k: the centroids group by group, ascending in each
  // Each row's bounds are written only when the row is searched, stamped with that step's
  // number; a settled row reads them lowered by its groups' moves since its stamp (the table
  // group_decay_), so settled rows write nothing. An interrupted step may have rewritten some
  // rows' bounds for labels it then dropped: every row is searched again at the next step.
  int group_stride_ = 0;                    ///< groups_ rounded up to 4 (padding: +∞, no move)
  std::vector<float> group_bounds_;         ///< n × group_stride_, valid for the row's stamp
  std::vector<std::int32_t> group_stamps_;  ///< n: the step that wrote the row's bounds
  std::vector<float> group_shifts_;         ///< groups_: each group's largest move, inflated
  /// (completed steps + 1) × group_stride_: each group's moves summed over the updates so far.
  std::vector<double> group_moved_;
  /// (this step) × group_stride_: for a stamp s, each group's moves since step s, rounded up.
  std::vector<float> group_decay_;
  int group_steps_ = 0;              ///< steps completed with the group bounds
  bool group_bounds_stale_ = false;  ///< an interrupted step: every row searched next
  /// d × group_column_.back(): each group's centroids in adjacent columns, padded with +∞ to a
  /// multiple of 8; group g's columns start at group_column_[g].
  std::vector<float> grouped_transposed_;
  std::vector<std::size_t> group_column_;
  std::vector<std::size_t> group_column_of_;  ///< k: each centroid's column there
  std::vector<double> group_centre_;          ///< groups_ × d: each group's mean of its centroids
  std::vector<double> group_radius_;  ///< groups_: its farthest centroid's distance from there
  /// Floats of each worker's distance scratch before the row's centred copy.
  std::size_t distance_width_ = 0;
};

}  // namespace kms
