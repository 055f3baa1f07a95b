// The CUDA backend: exact Lloyd k-means with double-buffered device state.
//
// Buffers and ordering (docs/engine.md has the full picture):
//  - run_.centroids[cur_] are the centroids an iteration assigns with; its update writes
//    run_.centroids[1 − cur_], then the two are swapped by index (no copy).
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
#include <utility>

#include "common/principal_axis.h"
#include "common/thread_pool.h"
#include "cuda/chunked_copies.cuh"
#include "cuda/device_memory.cuh"
#include "cuda/families/kernel_family.cuh"
#include "cuda/kernels/assign_args.cuh"
#include "cuda/kernels/init_kernels.cuh"
#include "cuda/kernels/iteration_kernels.cuh"
#include "cuda/multi/all_reduce.h"
#include "cuda/tuning.h"
#include "kmeans/backend.h"
#include "kmeans/engine.h"
#include "kmeans/testing.h"

namespace kms::seeding {
class ParallelSeedingRows;
}

namespace kms::cuda {

class CudaEngine final : public Engine {
 public:
  /// `options`: max_device_bytes, the CUDA tuning and the test hooks (the device comes from the
  /// caller: one GPU of a sharded run, or cuda_device).
  CudaEngine(int device, const TestingOptions& options = {});
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
  /// Best of N (cuda_engine_starts.cu): up to kMaxStartLanes starts at once, this engine and
  /// engines of the same GPU holding copies of its data ("lanes"), each start on its own
  /// stream driven by its own host thread; one start after another where the data are streamed
  /// from host memory.
  std::vector<StartOutcome> runStarts(const KMeansConfig& config, const std::vector<int>& starts,
                                      const StartObserver& observer = {}) override;
  void requestSnapshot() override { snapshot_requested_ = true; }
  bool takeCapturedSnapshot(Snapshot& out) override;

  /// Device memory held for the current data and k, in bytes.
  std::size_t deviceBytes() const;

  // ---- One GPU of a sharded run (sharded_engine.cuh) -----------------------------------------
  // ShardedEngine drives one CudaEngine per GPU through these and nothing else: it loads each
  // GPU's rows with the whole data's summary, seeds across GPUs, and all-reduces the integer sums
  // between an iteration's two parts. Each call that allocates, copies or enqueues makes this
  // engine's GPU current first: the caller walks the GPUs in turn, and memory placed on another
  // GPU is reachable only where NCCL happened to enable peer access (ring neighbours).

  /// The label halves and capture decision of the iteration being run.
  struct PendingStep {
    int in_half = -1;  ///< −1: first iteration
    int out_half = 0;
    bool capture = false;
    double copy_ms = 0.0;  ///< a background copy that finished since the last step
  };
  /// Loads this GPU's rows of a sharded run; `summary` is the whole data's.
  void loadShard(const DataView& rows, const DataSummary& summary);
  /// Gives back the data and run buffers (a GPU the next data set does not reach).
  void releaseData();
  /// initialize() before the seeding: validation (not for a shard), the family and buffers.
  void prepareRun(const KMeansConfig& config);
  /// initialize() after the seeding: run counters and state, the family's start.
  void startRun();
  /// Rows this engine holds.
  std::size_t rows() const { return data_.n; }
  /// 1 for k ≤ 256, else 2.
  std::size_t labelBytes() const { return k_ <= 256 ? 1 : 2; }
  const char* deviceName() const { return props_.name; }
  /// Waits for everything queued on the compute stream.
  void synchronize() const;
  /// Makes this engine's GPU current (for copies through the device pointers of a
  /// FarthestRound).
  void activate() const;

  // Seeding across GPUs (the host places each draw among every GPU's sampling chunks).
  /// Writes `count` centred centroid rows from `first_row` of the starting centroids.
  void setStartCentroids(const float* centred, std::size_t first_row, std::size_t count);
  /// The counts of this GPU's rows (counted data), into `out` (rows() entries).
  void copyCounts(std::uint32_t* out) const;
  /// Centred row `local` of this GPU.
  std::vector<float> centredRow(std::size_t local) const;
  /// k-means++ step j: every row's nearest starting centroid updated with centroid j − 1 and
  /// each sampling chunk's mass, copied to `chunk_sums` (host, plusPlusChunks(rows()) entries)
  /// asynchronously; synchronize() before reading them.
  void enqueuePlusPlusMass(int j, double* chunk_sums);
  /// The row of local chunk `draw.chunk` whose running mass first exceeds draw.target.
  std::vector<float> plusPlusPick(int j, ChunkDraw draw);
  /// Greedy k-means++: each of `count` candidate rows' (count × d, host) exact integer potential
  /// over this GPU's rows, into `potentials` (host).
  void greedyPotentials(const std::vector<float>& candidates, int count, double scale,
                        long long* potentials);
  /// k-means|| (common/parallel_seeding.h) over this GPU's rows, the first of which is global row
  /// `first_global_row`; its per-row state (8 bytes a row) lives until release().
  std::unique_ptr<seeding::ParallelSeedingRows> parallelSeedingRows(std::size_t first_global_row);
  /// k-means|| reduces its candidates to k with a CUDA engine on this GPU (the CPU engine's
  /// result, bit for bit, in a fraction of the time at large k·d).
  std::function<std::unique_ptr<Engine>()> reclusterOnThisGpu() const;

  // An iteration.
  /// Notes a finished background copy (frees its frozen half); returns its time or 0.
  double pollCopy();
  /// Whether a capture could start now (no copy in flight).
  bool canCapture() const { return frozen_ < 0; }
  PendingStep beginStep(bool capture, double copy_ms);
  void launchPart(const PendingStep& step, Part part);
  /// This GPU's part of the all-reduce between the two parts.
  AllReduceBuffers allReduceBuffers();
  /// Waits for the update (or re-seed) and reads the iteration's report.
  IterationReport readReport();
  /// completeStep on this GPU (a sharded run's step, GPU by GPU).
  IterationStats finishStep(const PendingStep& step, const IterationReport& report);
  /// The centred centroids the next iteration assigns with (k × d).
  std::vector<float> currentCentroids() const;

  // Re-seeding across GPUs (each round's farthest position decided on the host).
  /// The update's empty-cluster flags (k).
  std::vector<unsigned char> emptyFlags() const;
  /// This GPU's farthest-position rounds over the labels of `step`.
  FarthestRound farthestRound(const PendingStep& step) const;
  cudaStream_t computeStream() const { return compute_.get(); }
  /// Row `row` of the next iteration's centroids set to `centroid` (d floats).
  void setNextCentroid(std::size_t row, const float* centroid);
  /// After the re-seed: the shift recomputed, the moved centroids described, the report written.
  void finishReseed(const PendingStep& step);

 private:
  /// `report`, after checking it is of the next iteration (an internal error otherwise).
  IterationReport checkedReport(const IterationReport& report) const;
  /// Stats from the report and events, buffer swap, history and capture, on the current GPU
  /// (step() and steps() made it current once; their iterations need not again).
  /// `span_ms` ≥ 0: the iteration's time, given (one of several iterations of a launch);
  /// otherwise from the step's events.
  IterationStats completeStep(const PendingStep& step, const IterationReport& report,
                              double span_ms = -1.0);
  /// Re-seeds the empty clusters on this GPU alone (the single-GPU path).
  void reseedHere(const PendingStep& step, int empty_count);
  /// Bounds families: the geometry of the next iteration's centroids (centroids[1 − cur_])
  /// after a re-seed moved some of them (on the compute stream).
  void describeCentroids(const PendingStep& step);
  /// steps() runs on the device now (the sorted runs or the compact kernels, nothing the host
  /// must do in between).
  bool loopsOnDevice() const;
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
  /// A lane of runStarts: the placed data of `source` (same GPU, on the device) copied from
  /// device to device, with the same summary and indexes built the same way.
  void loadCopyOf(const CudaEngine& source);
  /// runStarts: how many of `wanted` lanes (this engine included) fit beside the run in device
  /// memory, at least 1; the lanes beyond this engine created with copies of the data.
  int prepareLanes(int wanted);

  /// Puts one part of an iteration on the compute stream through the run's family (captured
  /// once per buffer arrangement and part into a graph). in_half −1: the run's first iteration.
  void launchIteration(int cur, int in_half, int out_half, Part part);
  /// The run's shared buffers in arrangement (cur, in_half, out_half), for the family.
  RunBuffers runBuffers(int cur, int in_half, int out_half) const;
  Launch launchOn() { return Launch{compute_.get(), &events_, dependentLaunches()}; }
  /// Sorted runs keep their labels by run: writes every row's label of the iteration that ran
  /// with run_.centroids[cur] into label half `half`, where the family keeps them otherwise.
  void writeRowLabels(int cur, int half);
  /// steps(): a loop of `count` iterations on the device, the family's.
  void launchLoop(int count, bool stop_on_empty, bool stop_on_converged);
  /// k-means++ (greedy or plain) on the device; the host places each draw.
  template <typename LabelT>
  void initPlusPlus(bool greedy);
  /// k-means|| on this GPU (cuda_engine_parallel_seeding.cu).
  class ParallelRows;
  void initParallel();
  /// The blocks' result slots an iteration fills: the family's, for every chunk.
  std::size_t resultSlots() const {
    return family_->resultSlotsPerChunk() * data_.chunked.chunks();
  }
  UpdateParams updateParams() const;
  /// Calls f(LabelT{}) with the run's label type (labelBytes()).
  template <typename F>
  void withLabelType(F&& f) const {
    withLabelBytes(labelBytes(), std::forward<F>(f));
  }
  /// Whether the run prunes with bounds and keeps its sums across iterations (its family's).
  bool keepsBounds() const { return family_ && family_->keepsBounds(); }
  unsigned char* labelHalf(int half) const {
    return run_.labels.get() + static_cast<std::size_t>(half) * data_.n * labelBytes();
  }
  void requireInitialized() const;
  void checkFits(std::size_t bytes, const char* what, std::size_t reusable) const;
  /// Streamed data's chunks on the device (data_.chunked) give their memory back when `bytes` (with
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
  /// (CudaTuning::repeated_rows) and their memory is free.
  void indexRepeatGroups(std::size_t data_bytes);
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
  CentroidsNow centroidsForHistory() const override;

  int device_ = 0;
  /// max_device_bytes (0: free memory), the path switches (cuda) and the test hooks.
  TestingOptions options_;
  cudaDeviceProp props_{};
  DeviceLimits limits_;
  ThreadPool widen_pool_{4};

  Stream compute_;
  Stream copy_;
  IterationEvents events_;

  /// The data, centred on the bounding box's midpoint, with their summary and indexes.
  PlacedData data_;

  // Run state: the family and the buffers every family shares.
  int k_ = 0;
  bool initialized_ = false;
  std::unique_ptr<KernelFamily> family_;
  /// The buffers every family shares (device memory unless noted).
  struct RunMemory {
    DeviceBuffer<float> centroids[2];  ///< [cur] assigns, [1 − cur] receives the update
    DeviceBuffer<unsigned char>
        labels;  ///< label arrays of n labels (uint8 for k ≤ 256, else uint16)
    /// totals: this GPU's exact sums (kept across iterations by the bounds families). A shard's
    /// all-reduce writes every GPU's into global_totals, and the update reads them there.
    DeviceBuffer<long long> totals, global_totals;
    /// The assignment blocks' result slots, and k-means++'s sums per sampling chunk.
    DeviceBuffer<double> block_inertia, chunk_sums;
    DeviceBuffer<unsigned long long> block_changed, block_work;
    DeviceBuffer<IterationScalars> scalars;
    DeviceBuffer<RunCounters> counters;
    PinnedBuffer<IterationReport> report;  ///< mapped: the update writes it, step() reads it
    IterationReport* report_device = nullptr;
    /// steps(): a report per iteration of the launch and how many ran (mapped).
    PinnedBuffer<IterationReport> loop_reports;
    PinnedBuffer<int> loop_done;
    std::size_t bytes() const {
      return centroids[0].bytes() + centroids[1].bytes() + labels.bytes() + totals.bytes() +
             global_totals.bytes() + block_inertia.bytes() + chunk_sums.bytes() +
             block_changed.bytes() + block_work.bytes() + scalars.bytes();
    }
  } run_;
  int cur_ = 0;
  int latest_ = 0;   // half holding the newest labels
  int frozen_ = -1;  // half being copied to the host, or −1
  bool first_iteration_ = true;
  /// Iteration graphs by buffer arrangement (cur, in_half, out_half); cleared when buffers change.
  std::map<int, GraphExec> graphs_;
  /// Empty clusters and their re-seeding (each round's pick, k × d, and the farthest rows).
  struct Reseeding {
    DeviceBuffer<unsigned char> empty_flags;
    DeviceBuffer<int> empty_list;
    DeviceBuffer<unsigned long long> picked_keys, farthest_keys;
    DeviceBuffer<float> picked_points;
    int farthest_blocks = 0;
    /// A sharded run's greedy k-means++: the candidates of a step and their potentials here.
    DeviceBuffer<float> candidates;
    DeviceBuffer<long long> potentials;
    std::size_t bytes() const {
      return empty_flags.bytes() + empty_list.bytes() + picked_keys.bytes() +
             farthest_keys.bytes() + picked_points.bytes() + candidates.bytes() +
             potentials.bytes();
    }
  } reseed_;

  /// runStarts' other lanes: engines of this GPU with copies of the data (made for one
  /// best-of-N run and given back at its end).
  std::vector<std::unique_ptr<CudaEngine>> lanes_;

  /// A snapshot captured in the background: the centroids staged on the device, pinned copies
  /// of them and of a frozen label half on the host.
  struct Capture {
    Event source_ready, copy_start, copy_done;
    DeviceBuffer<float> staged_centroids;
    PinnedBuffer<unsigned char> host_labels;
    PinnedBuffer<float> host_centroids;
    bool pending = false;  // a capture was issued and not yet taken
    int iteration = -1;
    IterationStats stats;
  } capture_;
};

}  // namespace kms::cuda
