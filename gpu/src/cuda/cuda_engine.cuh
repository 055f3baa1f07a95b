// The CUDA backend: exact Lloyd k-means with double-buffered device state.
//
// Buffers and ordering (docs/engine.md has the full picture):
//  - centroids_[cur_] are the centroids an iteration assigns with; its update writes
//    centroids_[1 − cur_], then the two are swapped by index (no copy).
//  - Two label halves. Iterations normally update the latest half in place. When a snapshot is
//    requested, the iteration writes the other half instead and that half is frozen while the
//    copy stream moves it to pinned memory; following iterations read it and write the other
//    half, so the compute stream never waits for the copy.
//  - The update stage writes the iteration's report (inertia, changed, shift, convergence) into
//    pinned mapped memory; step() waits for one event and reads it.
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "common/principal_axis.h"
#include "common/thread_pool.h"
#include "cuda/chunked_copies.cuh"
#include "cuda/device_memory.cuh"
#include "cuda/kernels/assign_args.cuh"
#include "cuda/kernels/compact_iteration.cuh"
#include "cuda/kernels/iteration_kernels.cuh"
#include "cuda/kernels/sorted_iteration.cuh"
#include "cuda/repeat_groups.cuh"
#include "cuda/sorted_index.cuh"
#include "cuda/tile_index.cuh"
#include "kmeans/backend.h"
#include "kmeans/engine.h"

namespace kms::cuda {

class ShardedEngine;

class CudaEngine final : public Engine {
 public:
  /// `options`: max_device_bytes, cuda_tensor_cores, cuda_point_tiles, cuda_distance_bounds and
  /// cuda_sorted_runs
  /// (the device comes from the caller: one GPU of a sharded run, or cuda_device).
  CudaEngine(int device, const EngineOptions& options = {});
  ~CudaEngine() override;

  BackendInfo info() const override;
  void setData(const DataView& data) override;
  void initialize(const KMeansConfig& config) override;
  IterationStats step() override;
  /// Several iterations in one launch (cuda_engine_loop.cu): up to kSortedLoopMax over sorted
  /// runs, kCompactLoopSteps of the compact kernels (tiles included); otherwise step() by
  /// step().
  int steps(int max_steps, std::vector<IterationStats>& out) override;
  int stepsPerCall() const override;
  void snapshot(Snapshot& out) override;
  void assign(const std::vector<float>& centred_centroids,
              std::vector<std::int32_t>& labels) override;
  void requestSnapshot() override { snapshot_requested_ = true; }
  bool takeCapturedSnapshot(Snapshot& out) override;
  int iteration() const override { return iteration_; }
  bool converged() const override { return converged_; }

  /// Device memory held for the current data and k, in bytes.
  std::size_t deviceBytes() const;
  /// The assignment plan in use (for kmeans-bench's report).
  const AssignPlan& plan() const { return plan_; }
  /// Tests: see EngineOptions::cuda_fault_at_iteration.
  void injectFaultAt(int iteration) { fault_at_iteration_ = iteration; }

 private:
  // A sharded (multi-GPU) run drives one CudaEngine per GPU through the pieces below: it loads
  // each GPU's rows with the whole data's summary, seeds across GPUs, and all-reduces the
  // integer sums between an iteration's two parts (sharded_engine.cuh). Each of these pieces
  // that allocates or enqueues makes this engine's GPU current first (activate()): the caller
  // walks the GPUs in turn, and memory placed on another GPU is reachable only where NCCL
  // happened to enable peer access (ring neighbours).
  friend class ShardedEngine;

  /// Parts of an iteration, each captured into its own graph: the whole iteration, or (a shard
  /// of a sharded run) the sums (assign, summing, reduce) and the update that follows the
  /// all-reduce.
  enum class Part { kWhole = 0, kSums = 1, kUpdate = 2 };
  /// The label halves and capture decision of the iteration being run.
  struct PendingStep {
    int in_half = -1;  ///< −1: first iteration
    int out_half = 0;
    bool capture = false;
    double copy_ms = 0.0;  ///< a background copy that finished since the last step
  };
  /// Notes a finished background copy (frees its frozen half); returns its time or 0.
  double pollCopy();
  /// Whether a capture could start now (no copy in flight).
  bool canCapture() const { return frozen_ < 0; }
  PendingStep beginStep(bool capture, double copy_ms);
  void launchPart(const PendingStep& step, Part part);
  /// Compact plans: the geometry of the next iteration's centroids (centroids_[1 − cur_]) after a
  /// re-seed moved some of them (on the compute stream).
  void describeCentroids(const PendingStep& step);
  /// Waits for the update (or re-seed) and reads the iteration's report.
  IterationReport readReport();
  /// `report`, after checking it is of the next iteration (an internal error otherwise).
  IterationReport checkedReport(const IterationReport& report) const;
  /// Re-seeds the empty clusters on this GPU alone (the single-GPU path).
  void reseedHere(const PendingStep& step, int empty_count);
  /// Stats from the report and events, buffer swap, history and capture.
  /// `span_ms` ≥ 0: the iteration's time, given (one of several iterations of a launch);
  /// otherwise from the step's events.
  IterationStats finishStep(const PendingStep& step, const IterationReport& report,
                            double span_ms = -1.0);
  /// steps() runs on the device now (the sorted runs or the compact kernels, nothing the host
  /// must do in between).
  bool loopsOnDevice() const;
  /// The compact kernels' iterations a launch of steps() runs: captured back to back into one
  /// graph, each later one doing nothing once an earlier one converged or left a cluster empty
  /// (LoopStep).
  static constexpr int kCompactLoopSteps = 16;
  /// steps(): `count` iterations over sorted runs in one kernel, with the events around it.
  void launchSortedLoop(int count, bool stop_on_empty, bool stop_on_converged);
  /// steps(): kCompactLoopSteps compact iterations in one graph (captured once per arrangement).
  void launchCompactLoop(bool stop_on_empty, bool stop_on_converged);
  template <typename LabelT>
  void enqueueCompactLoop(bool stop_on_empty, bool stop_on_converged);
  /// Launches the graph kept under `key` on the compute stream, capturing enqueue() into it the
  /// first time (graphs_).
  template <typename Enqueue>
  void launchGraph(int key, Enqueue&& enqueue);
  /// Whether the compact kernels launch as programmatic dependents of the kernel before them
  /// (compute capability 9.0 and newer, where their griddepcontrol instructions exist).
  bool dependentLaunches() const { return props_.major >= 9; }

  /// setData; with `summary` (the whole data's, when this engine holds one shard) the data are
  /// not summarised again.
  void loadData(const DataView& data, const DataSummary* summary);
  /// Gives back the data and run buffers (a GPU the next data set does not reach).
  void releaseData();
  /// initialize() before the seeding: validation (not for a shard), plan and buffers.
  void prepareRun(const KMeansConfig& config);
  /// initialize() after the seeding: run counters and state.
  void startRun();

  /// Puts one part of an iteration (with its timing events) on the compute stream; captured
  /// once per buffer arrangement and part into a graph. in_half −1: first iteration.
  template <typename LabelT>
  void enqueueIteration(int cur, int in_half, int out_half, Part part);
  template <typename LabelT>
  void initPlusPlus(bool greedy);
  template <typename LabelT>
  void planFor();
  /// The iteration of compact data (plan_.compact) with its timing events.
  template <typename LabelT>
  void enqueueCompactIteration(int cur, int in_half, int out_half, Part part);
  /// The sorted-runs iteration's arguments on the buffers' arrangement `cur` (in_half −1: the
  /// run's first iteration, no previous runs).
  SortedArgs sortedArgs(int cur, int in_half) const;
  /// The iteration over sorted runs (plan_.sorted) with its timing events.
  void enqueueSortedIteration(int cur, int in_half);
  /// Sorted runs: writes every row's label of the iteration that ran with centroids_[cur] into
  /// label half `half` (the runs keep them by run, not by row), on the compute stream.
  void writeSortedLabels(int cur, int half);
  /// The iteration of wide rows (plan_.wide) with its timing events.
  template <typename LabelT>
  void enqueueWideIteration(int cur, int in_half, int out_half, Part part);
  template <typename LabelT>
  CompactArgs<LabelT> compactArgs(int cur, int in_half, int out_half) const;
  /// Calls assign(args) for the whole data, or — streamed data copied in chunks (chunked_) — for
  /// each chunk in turn once its copy is in: the row arrays shifted to the chunk's rows and the
  /// blocks' results to the chunk's slots, on the compute stream.
  template <typename LabelT, typename Assign>
  void assignByChunks(const CompactArgs<LabelT>& a, Assign&& assign);
  /// The blocks' result slots an iteration fills: the plan's blocks, for every chunk.
  std::size_t resultSlots() const {
    return static_cast<std::size_t>(plan_.blocks) * chunked_.chunks();
  }
  /// The geometry (compact kernels) or half gaps (wide kernels) of `centroids`, on the compute
  /// stream.
  void describe(int cur, int in_half, int out_half, const float* centroids);
  UpdateParams updateParams() const;
  std::size_t labelBytes() const { return k_ <= 256 ? 1 : 2; }
  /// Calls f(LabelT{}) with the run's label type (labelBytes()).
  template <typename F>
  void withLabelType(F&& f) const {
    if (labelBytes() == 1)
      f(std::uint8_t{});
    else
      f(std::uint16_t{});
  }
  /// Whether the run keeps a distance bound per row (the compact row kernel and the wide kernels;
  /// tiles keep one per tile).
  bool keepsRowBounds() const { return (plan_.compact && !plan_.point_tiles) || plan_.wide; }
  /// Whether the run prunes with bounds and the centroids' geometry and keeps its sums across
  /// iterations (compact and wide kernels: they count distances computed, and grow the drift).
  bool keepsBounds() const { return plan_.compact || plan_.wide; }
  /// PointTiles::Auto indexes plain points (no counts) of at least this many rows. Counted data
  /// are distinct values — a photo's colours, merged duplicates — too sparse for tiles: a tile's
  /// ball spans several regions, and the rows the kernel then looks at one by one cost more
  /// than the row kernel's bounds (H200, a photo's 538,753 colours, k = 16: 39 % of the rows,
  /// 0.045 against 0.017 ms). Below this size an iteration is bound by launch latency, where
  /// tiles gain nothing (1 M points in d = 1: 0.020 against 0.017 ms).
  static constexpr std::size_t kTileMinRows = std::size_t(1) << 22;
  /// The third label array of plans with a separate summing pass: the labels its running totals
  /// hold (accumulate_kernel.cuh).
  static constexpr int kSummedLabels = 2;
  int labelArrays() const { return plan_.separate_sums ? 3 : 2; }
  unsigned char* labelHalf(int half) const {
    return labels_.get() + static_cast<std::size_t>(half) * n_ * labelBytes();
  }
  void requireInitialized() const;
  void checkFits(std::size_t bytes, const char* what, std::size_t reusable) const;
  /// Streamed data's chunks on the device (chunked_) give their memory back when `bytes` (with
  /// `reusable` of this engine's own) would not fit beside them; the iterations then read the
  /// data in place.
  void yieldChunksFor(std::size_t bytes, std::size_t reusable);
  /// Whether data of `data_bytes` (n rows) go to the device; false: streamed from host memory.
  /// Throws DeviceError when they fit in neither.
  bool fitsOnDevice(std::size_t data_bytes, std::size_t n) const;
  /// loadData, for data of d ≤ 4 on the device: the point tiles when they are enabled and their
  /// memory is free (otherwise the iterations look at every row, with the same results).
  void indexPointTiles(std::size_t data_bytes);
  /// loadData, after the point tiles: the groups of equal rows when the rows repeat
  /// (EngineOptions::cuda_repeated_rows) and their memory is free.
  void indexRepeatGroups(std::size_t data_bytes);
  /// Rows the compact kernels iterate over: the groups of equal rows, or every row.
  std::size_t compactRows() const { return plan_.repeat_groups ? groups_.groups() : n_; }
  /// loadData, for data of d = 1 on the device: the sorted runs when they are enabled and their
  /// memory is free (otherwise the compact kernels, with the same results).
  void indexSortedRuns(std::size_t data_bytes);
  template <typename T>
  void copyIn(ResidentBuffer<T>& buffer, const T* source, std::size_t count);
  void issueCapture(int iteration, const IterationStats& stats);
  /// Fills `out` from the pinned copies; `copy_ms` is the background copy's time (0 when the
  /// copy was synchronous).
  void fillSnapshot(Snapshot& out, double copy_ms);
  /// With keep_history: copies the current centroids to the host and records them.
  void keepHistory();
  void activate() const;

  int device_ = 0;
  std::size_t max_device_bytes_ = 0;  ///< EngineOptions::max_device_bytes (0: free memory)
  int fault_at_iteration_ = 0;        ///< tests: the step that first runs a trapping kernel
  PointTiles point_tiles_ = PointTiles::Auto;        ///< EngineOptions::cuda_point_tiles
  RepeatedRows repeated_rows_ = RepeatedRows::Auto;  ///< EngineOptions::cuda_repeated_rows
  bool distance_bounds_ = true;                      ///< EngineOptions::cuda_distance_bounds
  bool sorted_runs_ = true;                          ///< EngineOptions::cuda_sorted_runs
  bool steps_past_convergence_ = false;              ///< EngineOptions::cuda_steps_past_convergence
  cudaDeviceProp props_{};
  DeviceLimits limits_;
  ThreadPool widen_pool_{4};

  Stream compute_;
  Stream copy_;
  Event iteration_start_, after_assign_, after_reduce_, update_start_, after_update_;
  Event capture_source_ready_, copy_start_, copy_done_;

  // Data (centred on the bounding-box midpoint) and its summary.
  DataSummary summary_;
  std::size_t n_ = 0;
  int d_ = 0;
  bool has_data_ = false;
  // Points, weights and counts on the device, or streamed from mapped host memory when they do
  // not fit (ResidentBuffer).
  ResidentBuffer<float> points_, weights_;
  ResidentBuffer<std::uint32_t> counts_;  // compact data: multiplicities (never with weights_)
  /// Streamed data of the compact and wide kernels: copied a chunk at a time (prepareRun decides;
  /// inactive: the kernels read the host memory in place).
  ChunkedCopies chunked_;
  std::size_t stream_chunk_bytes_ = 0;  ///< EngineOptions::cuda_stream_chunk_bytes
  DeviceBuffer<float> coord_scale_;
  DeviceBuffer<int> coord_exp_;
  TileIndex tiles_;  // d ≤ 4 on the device: the rows sorted in tiles (tile_index.cuh), or empty
  SortedIndex sorted_;    // d = 1 on the device: the rows sorted with prefix sums, or empty
  RepeatGroups groups_;   // the tiles' rows in groups of equal rows (repeat_groups.cuh), or empty
  int inertia_bits_ = 0;  // its inertia grid's bits (SortedIndex::inertiaExponent)

  // Run state.
  int k_ = 0;
  bool initialized_ = false;
  AssignPlan plan_;
  DeviceBuffer<float> centroids_[2];
  int cur_ = 0;
  DeviceBuffer<unsigned char> labels_;  // two halves of n labels (uint8 for k ≤ 256, else uint16)
  int latest_ = 0;                      // half holding the newest labels
  int frozen_ = -1;                     // half being copied to the host, or −1
  bool first_iteration_ = true;
  DeviceBuffer<long long> block_sums_, totals_;
  /// A shard: totals_ hold this GPU's sums (kept across iterations by the summing pass); the
  /// all-reduce writes every GPU's total here, and the update reads it.
  bool shard_ = false;
  DeviceBuffer<long long> global_totals_;
  DeviceBuffer<float> picked_points_;  // re-seeding: each round's pick (k × d)
  DeviceBuffer<float> bounds_;         // compact kernels: per-row lower distance bounds
  /// Groups of equal rows (plan_.repeat_groups): each group's label, and the lists of those whose
  /// label changed in the iteration (RepeatGroups::changeListWords).
  DeviceBuffer<unsigned char> group_labels_;
  DeviceBuffer<unsigned> group_changed_;
  /// Sorted runs: the runs of the iterations that ran with centroids_[0] and [1] are in [1]
  /// and [0] (each iteration reads the previous one's to count the changed labels).
  DeviceBuffer<SortedRunState> runs_;
  DeviceBuffer<float> geometry_;                // compact kernels: computeGeometry's 2k + 1 floats
  DeviceBuffer<unsigned short> order_;          // and its k indices
  std::array<float, kMaxAxisDims> axis_{1.0f};  // principal axis of the data (d ≤ 16)
  int inertia_exp_ = 0;                         // point tiles: CompactArgs::inertia_exp
  DeviceBuffer<double> block_inertia_, chunk_sums_;
  DeviceBuffer<unsigned long long> block_changed_, block_work_, picked_keys_, farthest_keys_;
  DeviceBuffer<IterationScalars> scalars_;
  DeviceBuffer<RunCounters> counters_;
  PinnedBuffer<IterationReport> report_;
  IterationReport* report_device_ = nullptr;
  /// steps(): a report per iteration of the launch and how many ran (mapped), and the compact
  /// loop's stop mark (LoopStep::stop).
  PinnedBuffer<IterationReport> loop_reports_;
  PinnedBuffer<int> loop_done_;
  DeviceBuffer<int> loop_stop_;
  /// Iteration graphs by buffer arrangement (cur, in_half, out_half); cleared when buffers change.
  std::map<int, GraphExec> graphs_;
  DeviceBuffer<unsigned char> empty_flags_;
  DeviceBuffer<int> empty_list_;
  int farthest_blocks_ = 0;

  // Captured snapshot: staged centroids on the device, pinned copies on the host.
  DeviceBuffer<float> staged_centroids_;
  PinnedBuffer<unsigned char> host_labels_;
  PinnedBuffer<float> host_centroids_;
  bool capture_pending_ = false;  // a capture was issued and not yet taken
  int captured_iteration_ = -1;
  IterationStats captured_stats_;

  int iteration_ = 0;
  bool converged_ = false;
  IterationStats last_;
};

}  // namespace kms::cuda
