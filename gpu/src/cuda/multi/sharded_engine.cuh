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
  ///
  /// With a `collective` of several ranks, the engine is one process's part of a run over
  /// several (one GPU each, `devices` = {that GPU}): setData takes the process's share of the
  /// rows, NCCL connects every process's GPU (ncclCommInitRank) for the sums, and the seeding's
  /// draws, the re-seeds' choices and the summary go through `collective` — the labels and
  /// centroids of one GPU on all the rows, bit for bit. Snapshots and assign() hold this
  /// process's labels.
  ShardedEngine(const std::vector<int>& devices, const TestingOptions& options,
                std::shared_ptr<Collective> collective = nullptr);
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
  /// The run spans several processes.
  bool acrossRanks() const { return collective_ && collective_->size() > 1; }

 private:
  CudaEngine& shard(std::size_t s) const { return *shards_[s]; }
  /// The GPU of this process holding its row i (0 ≤ i < local_n_) and its index there.
  std::pair<std::size_t, std::size_t> locate(std::size_t i) const;
  /// Copies centroid rows (centred, k × d) into every GPU's current centroids.
  void broadcastCentroids(const float* centred, std::size_t first_row, std::size_t rows) const;
  /// Global row i of the (centred) data, from the GPU (and process) holding it.
  std::vector<float> fetchRow(std::size_t i) const;
  void seedRandom();
  /// k-means++ (greedy or plain) across GPUs, drawing exactly the single GPU's points.
  void seedPlusPlus(bool greedy);
  /// k-means|| with one holder of rows per GPU (common/parallel_seeding.h).
  void seedParallel();
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
  std::shared_ptr<Collective> collective_;  ///< null: this process holds every row
  RowShare share_;                          ///< this process's rows among all
  std::size_t local_n_ = 0;                 ///< rows of this process (n_: of all)
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
