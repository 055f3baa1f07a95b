// Exact Lloyd k-means across several GPUs of one machine: the rows are split into one shard per
// GPU, each GPU assigns and sums its own rows (a CudaEngine holding that shard), NCCL all-reduces
// the integer sums, and every GPU computes the same new centroids from the same totals. Integer
// sums do not depend on the order they are added in, so labels and centroids are bit-identical
// to one GPU's run on the same data and seed (docs/engine.md, "Several GPUs").
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "cuda/cuda_engine.cuh"
#include "cuda/multi/all_reduce.h"
#include "kmeans/backend.h"
#include "kmeans/engine.h"

namespace kms::cuda {

class ShardedEngine final : public Engine {
 public:
  /// `devices`: distinct CUDA ordinals (≥ 2), checked by the factory. Creates the per-GPU
  /// engines and the NCCL communicators; throws DeviceError when NCCL is missing.
  ShardedEngine(const std::vector<int>& devices, const TestingOptions& options);
  ~ShardedEngine() override;

  BackendInfo info() const override;
  void setData(const DataView& data) override;
  void initialize(const KMeansConfig& config) override;
  IterationStats step() override;
  void snapshot(Snapshot& out) override;
  void assign(const std::vector<float>& centred_centroids,
              std::vector<std::int32_t>& labels) override;
  bool takeCapturedSnapshot(Snapshot& out) override;

  /// GPUs holding rows of the current data (small data use fewer than were listed).
  int activeShards() const { return static_cast<int>(active_); }

 private:
  CudaEngine& shard(std::size_t s) const { return *shards_[s]; }
  /// The GPU holding global row i and its index there.
  std::pair<std::size_t, std::size_t> locate(std::size_t i) const;
  /// Copies centroid rows (centred, k × d) into every GPU's current centroids.
  void broadcastCentroids(const float* centred, std::size_t first_row, std::size_t rows) const;
  /// Row i of the (centred) data, from the GPU holding it.
  std::vector<float> fetchRow(std::size_t i) const;
  void seedRandom();
  /// k-means++ (greedy or plain) across GPUs, drawing exactly the single GPU's points.
  void seedPlusPlus(bool greedy);
  /// The point D² sampling draws with uniform number u at step j (the single GPU's pick).
  std::vector<float> drawRow(const std::vector<double>& chunk_sums, int j, double u) const;
  /// The all-reduce between the iteration's two parts, on every GPU's stream.
  void sumAcrossGpus();
  void requireInitialized() const;
  /// EmptyClusterPolicy::ReseedFarthest across GPUs: each round's farthest position is decided
  /// on the host among the GPUs' own candidates.
  void reseedAcross(const std::vector<CudaEngine::PendingStep>& steps, int empty_count);
  /// Merges the GPUs' snapshots (labels in row order) into `out`.
  void mergeParts(Snapshot& out, const IterationStats& stats, double copy_ms);
  CentroidsNow centroidsForHistory() const override;
  /// The communicator over the first `gpus` devices (made on first use).
  AllReduce& communicatorFor(std::size_t gpus);

  std::vector<int> devices_;
  std::vector<std::unique_ptr<CudaEngine>> shards_;
  /// Communicators by number of active GPUs (the first `active_` of devices_).
  std::vector<std::unique_ptr<AllReduce>> comms_;
  std::size_t active_ = 0;
  std::vector<std::size_t> first_row_;  ///< shard s holds rows [first_row_[s], first_row_[s+1])
  DataSummary summary_;
  std::size_t n_ = 0;
  int d_ = 0;
  bool has_data_ = false;
  bool initialized_ = false;
  int k_ = 0;
  // Background captures: every GPU captures the same iteration; the parts are merged once all
  // have arrived.
  bool capture_pending_ = false;
  IterationStats captured_stats_;
  std::vector<Snapshot> parts_;
  std::vector<bool> part_taken_;
};

}  // namespace kms::cuda
