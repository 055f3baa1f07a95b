// A kernel family: one way of running an exact Lloyd iteration on the GPU (sorted runs, compact
// rows, point tiles, groups of equal rows, wide rows, the assignment kernels). Each family owns
// the buffers only it uses and answers the same few questions — what it needs, how to put an
// iteration (or its parts around a multi-GPU all-reduce) on a stream, what it holds — so that
// CudaEngine keeps what every family shares: the data's placement, the centroids, the label
// halves, captures and the on-device loop. planFamily (planner.cu) is the one place a family is
// chosen; a new family is one file pair and one line there (docs/engine.md, "Kernel families").
#pragma once

#include <cuda_runtime.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "common/principal_axis.h"
#include "cuda/chunked_copies.cuh"
#include "cuda/device_memory.cuh"
#include "cuda/kernels/assign_args.cuh"
#include "cuda/kernels/iteration_kernels.cuh"
#include "cuda/repeat_groups.cuh"
#include "cuda/sorted_index.cuh"
#include "cuda/tile_index.cuh"
#include "kmeans/data.h"

namespace kms::cuda {

/// Calls f(LabelT{}) with the label type of `label_bytes` (1: uint8, k ≤ 256; else uint16).
template <typename F>
void withLabelBytes(std::size_t label_bytes, F&& f) {
  if (label_bytes == 1)
    f(std::uint8_t{});
  else
    f(std::uint16_t{});
}

/// Parts of an iteration, each captured into its own graph: the whole iteration, or (one GPU of
/// a sharded run) the sums — assignment, summing, reduction — and the update that follows the
/// all-reduce.
enum class Part { kWhole = 0, kSums = 1, kUpdate = 2 };

/// The events an iteration records; its stage times are read from them.
struct IterationEvents {
  Event start, after_assign, after_reduce, update_start, after_update;
};

/// The data as CudaEngine placed them: rows centred on the bounding box's midpoint, on the device
/// or in mapped host memory (streamed), with the indexes built when they were loaded. Owned by
/// the engine; families read them.
struct PlacedData {
  DataSummary summary;
  std::size_t n = 0;
  int d = 0;
  bool loaded = false;
  /// One GPU's rows of a sharded run (sharded_engine.cuh): the summary is the whole data's.
  bool shard = false;
  ResidentBuffer<float> points, weights;
  ResidentBuffer<std::uint32_t> counts;  ///< compact data: multiplicities (never with weights)
  /// Streamed data of the compact and wide kernels: copied a chunk at a time (prepareRun decides;
  /// inactive: the kernels read the host memory in place).
  ChunkedCopies chunked;
  DeviceBuffer<float> coord_scale;  ///< d powers of two: the fixed-point scale per dimension
  DeviceBuffer<int> coord_exp;
  TileIndex tiles;       ///< d ≤ 4 on the device: the rows sorted in tiles, or empty
  SortedIndex sorted;    ///< d = 1 on the device: the rows sorted with prefix sums, or empty
  RepeatGroups groups;   ///< the tiles' rows in groups of equal rows, or empty
  int inertia_bits = 0;  ///< the sorted runs' inertia grid
  std::array<float, kMaxAxisDims> axis{1.0f};  ///< the data's principal axis (d ≤ 16)

  const float* weightsOrNull() const { return weights.size() ? weights.get() : nullptr; }
  const std::uint32_t* countsOrNull() const { return counts.size() ? counts.get() : nullptr; }
  /// Gives back the data, their indexes and the chunk buffers.
  void release() {
    loaded = false;
    chunked.release();
    points.release();
    weights.release();
    counts.release();
    coord_scale.release();
    tiles.release();
    groups.release();
    sorted.release();
  }
  /// Device memory of the data and their indexes (the chunk buffers included), in bytes.
  std::size_t deviceBytes() const {
    return points.deviceBytes() + weights.deviceBytes() + counts.deviceBytes() + tiles.bytes() +
           groups.bytes() + sorted.bytes() + coord_scale.bytes() + coord_exp.bytes() +
           chunked.bytes();
  }
};

/// The run's buffers every family shares, in one buffer arrangement: centroids_in → centroids
/// out, label half in_half (−1: the run's first iteration, none) → out_half. Filled by the engine
/// for each call; device pointers.
struct RunBuffers {
  int k = 0;
  int cur = 0;  ///< the iteration assigns with centroids[cur] and updates centroids[1 − cur]
  int in_half = -1;
  int out_half = 0;
  float* centroids[2] = {nullptr, nullptr};
  unsigned char* labels = nullptr;  ///< label arrays of n labels each (label_bytes a label)
  std::size_t label_bytes = 1;
  long long* totals = nullptr;         ///< k·(d + 1) exact sums of this GPU
  long long* global_totals = nullptr;  ///< a shard: every GPU's, from the all-reduce
  double* block_inertia = nullptr;     ///< result slots of the assignment's blocks
  unsigned long long* block_changed = nullptr;
  unsigned long long* block_work = nullptr;
  std::size_t result_slots = 0;
  unsigned char* empty_flags = nullptr;
  IterationScalars* scalars = nullptr;
  IterationReport* report = nullptr;  ///< mapped: read by the host after the update's event
  UpdateParams update;

  /// Label array `half` of `n` labels.
  unsigned char* half(int h, std::size_t n) const {
    return labels + static_cast<std::size_t>(h) * n * label_bytes;
  }
};

/// Where and how a family enqueues: the engine's compute stream and events.
struct Launch {
  cudaStream_t stream = nullptr;
  IterationEvents* events = nullptr;
  /// Kernels may launch as programmatic dependents of the kernel before (compute capability 9.0
  /// and newer, where their griddepcontrol instructions exist).
  bool dependent_launches = false;
};

/// The most iterations a family's loop runs in one launch (KernelFamily::loopSteps).
inline constexpr int kMaxLoopSteps = 64;

/// steps(): several iterations in one launch, for families that loop on the device.
struct DeviceLoop {
  int count = 0;
  bool stop_on_empty = false;
  bool stop_on_converged = true;
  IterationReport* reports = nullptr;  ///< one per iteration (mapped)
  int* done = nullptr;                 ///< iterations that ran (mapped)
};

class KernelFamily {
 public:
  virtual ~KernelFamily() = default;
  KernelFamily() = default;
  KernelFamily(const KernelFamily&) = delete;
  KernelFamily& operator=(const KernelFamily&) = delete;

  /// "compact rows", "point tiles", …: the bench's report and the profiler's ranges.
  virtual const char* name() const = 0;
  /// The launch shape its planner chose.
  const AssignPlan& plan() const { return plan_; }
  /// Whether its kernels may launch as programmatic dependents (planFamily sets it).
  void allowDependentLaunches(bool allow) { plan_.dependent_launches = allow; }

  /// Label arrays of n labels the run needs: two halves (double-buffered), three for a family
  /// that keeps the labels its running totals hold.
  virtual int labelArrays() const { return 2; }
  /// Result slots of the assignment's blocks per copy of the data (streamed data: per chunk).
  virtual std::size_t resultSlotsPerChunk() const { return static_cast<std::size_t>(plan_.blocks); }
  /// Words a block writes into RunBuffers::block_work per slot (rows searched, distances).
  virtual int workWordsPerSlot() const { return 0; }
  /// Whether streamed data are copied to the device in chunks for it (it reads each row once an
  /// iteration); otherwise it reads the mapped host memory in place.
  virtual bool readsRowsInChunks() const { return false; }
  /// Whether the run prunes with distance bounds and keeps its sums across iterations; such a
  /// family counts the distances it computes and describes the centroids (describe()).
  virtual bool keepsBounds() const { return false; }
  /// Whether the iteration's stage times are only its start and end (the whole iteration is
  /// one or two kernels).
  virtual bool timesWholeIteration() const { return false; }
  /// Whether the update reports IterationScalars::searched.
  virtual bool reportsSearched() const { return false; }

  /// Bytes of the family's own buffers for this run (the engine checks they fit first).
  virtual std::size_t runBytes(const PlacedData& data, int k) const = 0;
  /// Allocates them (after the engine checked they fit).
  virtual void allocate(const PlacedData& data, int k) = 0;
  /// The run's start, after the seeding: the family's state zeroed, the centroids described.
  virtual void startRun(PlacedData& data, const RunBuffers& run, cudaStream_t stream) = 0;
  /// Puts one part of an iteration, with its events, on launch.stream (captured into a graph).
  virtual void enqueue(PlacedData& data, const RunBuffers& run, Part part,
                       const Launch& launch) = 0;
  /// Bounds families: the geometry of run.centroids[1 − run.cur] after a re-seed moved some.
  virtual void describe(PlacedData&, const RunBuffers&, cudaStream_t) {}
  /// Writes every row's label of the iteration that ran with run.centroids[run.cur] into label
  /// half `half`, for a family that keeps them otherwise (sorted runs: by run). False: the
  /// family writes row labels as it goes.
  virtual bool writeRowLabels(PlacedData&, const RunBuffers&, int /*half*/, cudaStream_t) {
    return false;
  }

  /// Iterations one launch of steps() runs on the device (0: the family does not loop there).
  virtual int loopSteps(const PlacedData&) const { return 0; }
  /// Whether the loop is a graph of exactly loopSteps() iterations (captured once per buffer
  /// arrangement by the engine), or a kernel that loops up to DeviceLoop::count, enqueued as is.
  virtual bool loopIsGraph() const { return false; }
  /// Enqueues a loop of loop.count iterations from arrangement `run` (in_half −1: the run's
  /// first iteration), events around it.
  virtual void enqueueLoop(PlacedData&, const RunBuffers&, const DeviceLoop&, const Launch&) {}

  /// Device memory the family holds, in bytes.
  virtual std::size_t deviceBytes() const = 0;
  virtual void release() = 0;

 protected:
  AssignPlan plan_;
};

}  // namespace kms::cuda
