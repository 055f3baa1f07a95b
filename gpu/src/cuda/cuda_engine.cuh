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
#include "cuda/device_memory.cuh"
#include "cuda/kernels/assign_args.cuh"
#include "cuda/kernels/compact_iteration.cuh"
#include "cuda/kernels/iteration_kernels.cuh"
#include "kmeans/engine.h"

namespace kms::cuda {

class CudaEngine final : public Engine {
 public:
  /// `max_device_bytes`: EngineOptions::max_device_bytes.
  CudaEngine(int device, std::size_t max_device_bytes = 0, bool tensor_cores = true);
  ~CudaEngine() override;

  BackendInfo info() const override;
  void setData(const DataView& data) override;
  void initialize(const KMeansConfig& config) override;
  IterationStats step() override;
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
  template <typename LabelT>
  IterationStats stepTyped();
  /// Puts one iteration (assign, reduce, update with their timing events) on the compute
  /// stream; captured once per buffer arrangement into a graph. in_half −1: first iteration.
  template <typename LabelT>
  void enqueueIteration(int cur, int in_half, int out_half);
  template <typename LabelT>
  void initPlusPlus(bool greedy);
  template <typename LabelT>
  void planFor();
  /// The iteration of compact data (plan_.compact) with its timing events.
  template <typename LabelT>
  void enqueueCompactIteration(int cur, int in_half, int out_half);
  template <typename LabelT>
  CompactArgs<LabelT> compactArgs(int cur, int in_half, int out_half) const;
  UpdateParams updateParams() const;
  std::size_t labelBytes() const { return k_ <= 256 ? 1 : 2; }
  /// The third label array of plans with a separate summing pass: the labels its running totals
  /// hold (accumulate_kernel.cuh).
  static constexpr int kSummedLabels = 2;
  int labelArrays() const { return plan_.separate_sums ? 3 : 2; }
  unsigned char* labelHalf(int half) const {
    return labels_.get() + static_cast<std::size_t>(half) * n_ * labelBytes();
  }
  void requireInitialized() const;
  void checkFits(std::size_t bytes, const char* what, std::size_t reusable) const;
  /// Whether data of `data_bytes` (n rows) go to the device; false: streamed from host memory.
  /// Throws DeviceError when they fit in neither.
  bool fitsOnDevice(std::size_t data_bytes, std::size_t n) const;
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
  cudaDeviceProp props_{};
  DeviceLimits limits_;
  ThreadPool widen_pool_{4};

  Stream compute_;
  Stream copy_;
  Event iteration_start_, after_assign_, after_reduce_, after_update_;
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
  DeviceBuffer<float> coord_scale_;
  DeviceBuffer<int> coord_exp_;

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
  DeviceBuffer<float> bounds_;                  // compact kernels: per-row lower distance bounds
  DeviceBuffer<float> geometry_;                // compact kernels: computeGeometry's 2k + 1 floats
  DeviceBuffer<unsigned short> order_;          // and its k indices
  std::array<float, kMaxAxisDims> axis_{1.0f};  // principal axis of the data (d ≤ 16)
  DeviceBuffer<double> block_inertia_, chunk_sums_;
  DeviceBuffer<unsigned long long> block_changed_, block_work_, picked_keys_, farthest_keys_;
  DeviceBuffer<IterationScalars> scalars_;
  DeviceBuffer<RunCounters> counters_;
  PinnedBuffer<IterationReport> report_;
  IterationReport* report_device_ = nullptr;
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
