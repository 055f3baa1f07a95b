#include "cuda/multi/sharded_engine.cuh"

#include <algorithm>
#include <cstddef>
#include <exception>
#include <sstream>
#include <thread>

#include "common/centring.h"
#include "common/constants.h"
#include "common/exact_math.h"
#include "common/parallel_seeding.h"
#include "common/seeding.h"
#include "cuda/cuda_check.cuh"
#include "cuda/kernels/init_kernels.cuh"
#include "cuda/kernels/iteration_kernels.cuh"
#include "cuda/nvtx.cuh"
#include "kmeans/errors.h"

namespace kms::cuda {
namespace {

/// Runs fn(s) for s < count, each on its own thread (work that waits on one GPU's copies, such as
/// loading its rows); rethrows the first shard's exception.
template <typename Fn>
void forEachShard(std::size_t count, Fn fn) {
  std::vector<std::exception_ptr> errors(count);
  std::vector<std::thread> threads;
  threads.reserve(count);
  for (std::size_t s = 0; s < count; ++s)
    threads.emplace_back([&, s] {
      try {
        fn(s);
      } catch (...) {
        errors[s] = std::current_exception();
      }
    });
  for (auto& t : threads)
    t.join();
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
}

DataView rowsOf(const DataView& data, std::size_t begin, std::size_t end) {
  DataView part;
  part.points = data.points + begin * static_cast<std::size_t>(data.d);
  part.n = end - begin;
  part.d = data.d;
  part.weights = data.weights ? data.weights + begin : nullptr;
  part.counts = data.counts ? data.counts + begin : nullptr;
  return part;
}

/// −1, 0 or 1: the lexicographic order of two rows (the kernels' compareRows).
int compareRows(const float* a, const float* b, int d) {
  for (int c = 0; c < d; ++c)
    if (a[c] != b[c]) return a[c] < b[c] ? -1 : 1;
  return 0;
}

}  // namespace

ShardedEngine::ShardedEngine(const std::vector<int>& devices, const TestingOptions& options,
                             std::shared_ptr<Collective> collective)
    : devices_(devices), collective_(std::move(collective)) {
  if (acrossRanks() && devices.size() != 1)
    throw std::invalid_argument("ShardedEngine: one GPU a process in a run over several");
  // Every GPU runs the kernels one GPU would pick for its shard (point tiles cut from its own
  // rows with its tile inertia taken before the all-reduce; the wide update reads the summed
  // totals): the same labels and centroids as one GPU, bit for bit.
  for (int device : devices) {
    shards_.push_back(std::make_unique<CudaEngine>(device, options));
  }
  comms_.resize(devices.size() + 1);
  // Made now, not at the first step: a missing NCCL fails here (across processes, every rank
  // makes it together).
  communicatorFor(devices.size());
}

ShardedEngine::~ShardedEngine() {
  // Queued all-reduces finish before the communicators go (errors are moot here).
  for (auto& shard : shards_) {
    try {
      shard->synchronize();
    } catch (const DeviceError&) {  // a GPU that failed: nothing to wait for
    }
  }
  comms_.clear();
}

AllReduce& ShardedEngine::communicatorFor(std::size_t gpus) {
  if (!comms_[gpus])
    comms_[gpus] = acrossRanks() ? std::make_unique<AllReduce>(devices_[0], *collective_)
                                 : std::make_unique<AllReduce>(
                                       std::vector<int>(devices_.begin(), devices_.begin() + gpus));
  return *comms_[gpus];
}

BackendInfo ShardedEngine::info() const {
  const std::size_t used = has_data_ ? active_ : shards_.size();
  std::ostringstream os;
  bool same = true;
  for (std::size_t s = 1; s < used; ++s)
    same = same && std::string(shard(s).deviceName()) == shard(0).deviceName();
  if (same) {
    os << used << " × " << shard(0).info().device;
  } else {
    for (std::size_t s = 0; s < used; ++s)
      os << (s ? " + " : "") << shard(s).info().device;
  }
  if (acrossRanks()) os << " a process, " << collective_->size() << " processes";
  os << ", " << comms_[shards_.size()]->describe();
  if (has_data_ && active_ < shards_.size())
    os << " (the data fill " << active_ << " of " << shards_.size() << " GPUs)";
  return {"cuda", os.str(), static_cast<int>(used)};
}

std::pair<std::size_t, std::size_t> ShardedEngine::locate(std::size_t i) const {
  const auto end = first_row_.begin() + static_cast<std::ptrdiff_t>(active_) + 1;
  const std::size_t s =
      static_cast<std::size_t>(std::upper_bound(first_row_.begin(), end, i) - first_row_.begin()) -
      1;
  return {s, i - first_row_[s]};
}

void ShardedEngine::setData(const DataView& data) {
  const NvtxRange range("kms: load data on every GPU");
  has_data_ = false;
  initialized_ = false;
  // Across processes: where this one's rows sit, and the summary of all of them.
  share_ = acrossRanks() ? shareOfRows(*collective_, data.n) : RowShare{0, data.n, {0, data.n}};
  // Validates; the one summary every GPU uses.
  DataSummary summary = summarizeData(data, 0, collective_.get(), share_.first_row);
  // Shards start at multiples of the k-means++ sampling chunk, so every GPU's chunk sums are the
  // single GPU's (the seeding draws from them). Small data fill fewer GPUs.
  const std::size_t chunks = plusPlusChunks(data.n);
  const std::size_t gpus = shards_.size();
  const std::size_t rows_per_gpu = (chunks + gpus - 1) / gpus * kSamplingChunk;
  const std::size_t active = (data.n + rows_per_gpu - 1) / rows_per_gpu;
  first_row_.assign(active + 1, data.n);
  for (std::size_t s = 0; s < active; ++s)
    first_row_[s] = s * rows_per_gpu;
  forEachShard(active, [&](std::size_t s) {
    shard(s).loadShard(rowsOf(data, first_row_[s], first_row_[s + 1]), summary);
  });
  for (std::size_t s = active; s < shards_.size(); ++s)  // GPUs these data do not reach
    shard(s).releaseData();
  active_ = active;
  if (active_ > 1 && !acrossRanks()) communicatorFor(active_);
  summary_ = std::move(summary);
  n_ = share_.global_rows;
  local_n_ = data.n;
  d_ = data.d;
  has_data_ = true;
  resetRun();
}

void ShardedEngine::requireInitialized() const {
  if (!initialized_) throw std::logic_error("ShardedEngine used before initialize");
}

void ShardedEngine::initialize(const KMeansConfig& config) {
  const NvtxRange range("kms: prepare and seed on every GPU");
  if (!has_data_) throw std::logic_error("ShardedEngine::initialize called before setData");
  validateConfig(config, n_, d_);
  initialized_ = false;
  KMeansConfig shard_config = config;
  shard_config.keep_history = false;  // kept here, once
  for (std::size_t s = 0; s < active_; ++s)
    shard(s).prepareRun(shard_config);
  config_ = config;
  k_ = config.k;
  switch (config.init) {
    case InitMethod::Random:
      seedRandom();
      break;
    case InitMethod::KMeansPlusPlus:
    case InitMethod::GreedyKMeansPlusPlus:
      seedPlusPlus(config.init == InitMethod::GreedyKMeansPlusPlus);
      break;
    case InitMethod::KMeansParallel:
      seedParallel();
      break;
    case InitMethod::Given: {
      const std::vector<float> centred = givenCentred(config, summary_.mid);
      broadcastCentroids(centred.data(), 0, static_cast<std::size_t>(k_));
      break;
    }
  }
  for (std::size_t s = 0; s < active_; ++s)
    shard(s).startRun();
  snapshot_requested_ = false;
  capture_pending_ = false;
  parts_.assign(active_, Snapshot{});
  part_taken_.assign(active_, false);
  initialized_ = true;
  beginRun();
}

void ShardedEngine::broadcastCentroids(const float* centred, std::size_t first_row,
                                       std::size_t rows) const {
  for (std::size_t s = 0; s < active_; ++s)
    shard(s).setStartCentroids(centred, first_row, rows);
}

std::vector<float> ShardedEngine::fetchRow(std::size_t i) const {
  if (!acrossRanks()) {
    const auto [s, local] = locate(i);
    return shard(s).centredRow(local);
  }
  const int owner = share_.ownerOf(i);
  std::vector<float> row(static_cast<std::size_t>(d_));
  if (owner == collective_->rank()) {
    const auto [s, local] = locate(i - share_.first_row);
    row = shard(s).centredRow(local);
  }
  collective_->broadcast(row.data(), row.size() * sizeof(float), owner);
  return row;
}

void ShardedEngine::seedRandom() {
  std::vector<std::uint32_t> counts;
  if (summary_.fixed.counted) {
    counts.resize(n_);
    for (std::size_t s = 0; s < active_; ++s)
      shard(s).copyCounts(counts.data() + first_row_[s]);
  }
  const auto picks = summary_.fixed.counted
                         ? seeding::weightedDistinctIndices(counts.data(), n_, k_, config_.seed)
                         : seeding::distinctIndices(n_, k_, config_.seed);
  std::vector<float> centred(static_cast<std::size_t>(k_) * d_);
  for (int j = 0; j < k_; ++j) {
    const std::vector<float> row = fetchRow(static_cast<std::size_t>(picks[j]));
    std::copy(row.begin(), row.end(), centred.begin() + static_cast<std::size_t>(j) * d_);
  }
  broadcastCentroids(centred.data(), 0, static_cast<std::size_t>(k_));
}

std::vector<float> ShardedEngine::drawRow(const std::vector<double>& chunk_sums, int j,
                                          double u) const {
  // Placed exactly as the single GPU's pick kernel places it (seeding::pickChunk is that loop).
  const seeding::ChunkPick pick = seeding::pickChunk(chunk_sums, u);
  if (pick.chunk < 0)
    return fetchRow(std::min(n_ - 1, static_cast<std::size_t>(u * static_cast<double>(n_))));
  const std::size_t first = static_cast<std::size_t>(pick.chunk) * kSamplingChunk;
  if (!acrossRanks()) {
    const auto [s, local] = locate(first);
    return shard(s).plusPlusPick(
        j, ChunkDraw{static_cast<long long>(local / kSamplingChunk), pick.target});
  }
  // The process holding the chunk scans it; every process gets the row.
  const int owner = share_.ownerOf(first);
  std::vector<float> row(static_cast<std::size_t>(d_));
  if (owner == collective_->rank()) {
    const auto [s, local] = locate(first - share_.first_row);
    row = shard(s).plusPlusPick(
        j, ChunkDraw{static_cast<long long>(local / kSamplingChunk), pick.target});
  }
  collective_->broadcast(row.data(), row.size() * sizeof(float), owner);
  return row;
}

void ShardedEngine::seedPlusPlus(bool greedy) {
  const int count = greedy ? seeding::greedyCandidates(k_) : 1;
  const double scale = seeding::potentialScale(summary_);  // the CPU backend's
  // This process's chunks; across processes, every process's in order (whole chunks each).
  std::vector<double> local_sums(plusPlusChunks(local_n_));
  std::vector<double> chunk_sums;
  std::vector<float> rows(static_cast<std::size_t>(count) * d_);
  for (int j = 0; j < k_; ++j) {
    // Every GPU updates its points' nearest centroid and sums its chunks' mass; the host places
    // the draw among all chunks, in order.
    for (std::size_t s = 0; s < active_; ++s)
      shard(s).enqueuePlusPlusMass(j, local_sums.data() + first_row_[s] / kSamplingChunk);
    for (std::size_t s = 0; s < active_; ++s)
      shard(s).synchronize();
    chunk_sums = acrossRanks() ? collective_->allGather(local_sums) : local_sums;
    if (!greedy || j == 0) {
      const std::vector<float> row =
          drawRow(chunk_sums, j, seeding::plusPlusUniform(config_.seed, j));
      broadcastCentroids(row.data(), static_cast<std::size_t>(j), 1);
      continue;
    }
    for (int l = 0; l < count; ++l) {
      const std::vector<float> row =
          drawRow(chunk_sums, j, seeding::greedyUniform(config_.seed, j, l));
      std::copy(row.begin(), row.end(), rows.begin() + static_cast<std::size_t>(l) * d_);
    }
    // Each candidate's potential: every GPU's exact integer part, added up here.
    std::vector<unsigned long long> total(count, 0);
    std::vector<long long> part(count);
    for (std::size_t s = 0; s < active_; ++s) {
      shard(s).greedyPotentials(rows, count, scale, part.data());
      for (int l = 0; l < count; ++l)  // wraps as the single GPU's atomicAdd does
        total[l] += static_cast<unsigned long long>(part[l]);
    }
    if (acrossRanks()) {  // every process's part, wrapping alike
      std::vector<std::int64_t> all(total.begin(), total.end());
      collective_->allReduce(all.data(), all.size(), Collective::Op::Sum);
      for (int l = 0; l < count; ++l)
        total[l] = static_cast<unsigned long long>(all[l]);
    }
    int best = 0;
    for (int l = 1; l < count; ++l)  // ties keep the earlier candidate
      if (static_cast<long long>(total[l]) < static_cast<long long>(total[best])) best = l;
    broadcastCentroids(rows.data() + static_cast<std::size_t>(best) * d_,
                       static_cast<std::size_t>(j), 1);
  }
}

void ShardedEngine::seedParallel() {
  // One holder per GPU, in global row order; across processes, every process's in rank order.
  std::vector<std::unique_ptr<seeding::ParallelSeedingRows>> holders;
  std::vector<seeding::ParallelSeedingRows*> rows;
  const std::size_t first = acrossRanks() ? share_.first_row : 0;
  for (std::size_t s = 0; s < active_; ++s) {
    holders.push_back(shard(s).parallelSeedingRows(first + first_row_[s]));
    rows.push_back(holders.back().get());
  }
  const auto solo = soloCollective();
  const std::vector<float> centred = seeding::seedKMeansParallel(
      rows, acrossRanks() ? *collective_ : *solo, n_, summary_, k_, d_, config_.seed,
      [this] { return interruptRequested(); }, shard(0).reclusterOnThisGpu());
  broadcastCentroids(centred.data(), 0, static_cast<std::size_t>(k_));
}

void ShardedEngine::sumAcrossGpus() {
  const NvtxRange range("kms: all-reduce");
  if (active_ == 1 && !acrossRanks()) {  // one GPU holds all rows: its totals are everyone's
    const AllReduceBuffers b = shard(0).allReduceBuffers();
    KMS_CUDA_CHECK(cudaMemcpyAsync(b.global_totals, b.totals, b.columns * sizeof(long long),
                                   cudaMemcpyDeviceToDevice, b.stream));
    return;
  }
  std::vector<AllReduceBuffers> parts(active_);
  for (std::size_t s = 0; s < active_; ++s)
    parts[s] = shard(s).allReduceBuffers();
  communicatorFor(active_).sum(parts);
}

IterationStats ShardedEngine::step() {
  requireInitialized();
  // A capture needs every GPU free to start one, so that all capture the same iteration.
  std::vector<double> copy_ms(active_);
  bool capture = snapshot_requested_;
  for (std::size_t s = 0; s < active_; ++s) {
    shard(s).activate();
    copy_ms[s] = shard(s).pollCopy();
    capture = capture && shard(s).canCapture();
  }
  std::vector<CudaEngine::PendingStep> steps(active_);
  for (std::size_t s = 0; s < active_; ++s)
    steps[s] = shard(s).beginStep(capture, copy_ms[s]);
  for (std::size_t s = 0; s < active_; ++s)
    shard(s).launchPart(steps[s], Part::kSums);
  sumAcrossGpus();
  for (std::size_t s = 0; s < active_; ++s)
    shard(s).launchPart(steps[s], Part::kUpdate);
  std::vector<IterationReport> reports(active_);
  for (std::size_t s = 0; s < active_; ++s)
    reports[s] = shard(s).readReport();
  if (reports[0].empty_count > 0 && config_.empty_clusters == EmptyClusterPolicy::ReseedFarthest) {
    reseedAcross(steps, reports[0].empty_count);
    for (std::size_t s = 0; s < active_; ++s)
      reports[s] = shard(s).readReport();
  }
  // Every GPU updated from the same totals: their reports agree, or something is broken.
  for (std::size_t s = 1; s < active_; ++s)
    if (reports[s].changed != reports[0].changed || reports[s].converged != reports[0].converged ||
        reports[s].empty_count != reports[0].empty_count ||
        reports[s].max_shift != reports[0].max_shift)
      throw DeviceError("internal error: the GPUs disagree about iteration " +
                        std::to_string(iteration_ + 1));
  std::vector<IterationStats> per_gpu(active_);
  for (std::size_t s = 0; s < active_; ++s)
    per_gpu[s] = shard(s).finishStep(steps[s], reports[s]);
  // Stage times from the GPU that waited least in the all-reduce: the slowest one, whose
  // assignment bounds the iteration; its communication time is the all-reduce itself.
  std::size_t slowest = 0;
  for (std::size_t s = 1; s < active_; ++s)
    if (per_gpu[s].ms.communication_ms < per_gpu[slowest].ms.communication_ms) slowest = s;
  IterationStats stats = per_gpu[0];
  stats.ms = per_gpu[slowest].ms;
  stats.ms.copy_ms = *std::max_element(copy_ms.begin(), copy_ms.end());
  if (steps[0].capture) {  // a new capture replaces one not fully taken
    snapshot_requested_ = false;
    capture_pending_ = true;
    captured_stats_ = stats;
    part_taken_.assign(active_, false);
  }
  endIteration(stats);
  return stats;
}

void ShardedEngine::reseedAcross(const std::vector<CudaEngine::PendingStep>& steps,
                                 int empty_count) {
  const std::vector<unsigned char> flags = shard(0).emptyFlags();
  std::vector<int> empties;
  for (int j = 0; j < k_; ++j)
    if (flags[j]) empties.push_back(j);
  std::vector<FarthestRound> rounds(active_);
  for (std::size_t s = 0; s < active_; ++s)
    rounds[s] = shard(s).farthestRound(steps[s]);
  std::vector<unsigned long long> keys(active_);
  std::vector<std::vector<float>> points(active_, std::vector<float>(d_));
  const auto readKeys = [&](int e, bool with_points) {
    for (std::size_t s = 0; s < active_; ++s) {
      // The round's kernels run on the GPU's compute stream, which does not wait for (nor is
      // waited for by) cudaMemcpy's default stream: wait for them before reading their pick.
      shard(s).synchronize();
      shard(s).activate();
      KMS_CUDA_CHECK(cudaMemcpy(&keys[s], rounds[s].picked_keys + e, sizeof(unsigned long long),
                                cudaMemcpyDeviceToHost));
      if (with_points)
        KMS_CUDA_CHECK(cudaMemcpy(points[s].data(),
                                  rounds[s].picked_points + static_cast<std::size_t>(e) * d_,
                                  d_ * sizeof(float), cudaMemcpyDeviceToHost));
    }
  };
  for (int e = 0; e < empty_count && e < static_cast<int>(empties.size()); ++e) {
    // Phase 1: the largest distance left on any GPU.
    for (std::size_t s = 0; s < active_; ++s) {
      shard(s).activate();
      launchFarthestDistance(rounds[s], e, shard(s).computeStream());
    }
    readKeys(e, false);
    bool any = false;
    unsigned long long bits = 0;
    for (const unsigned long long key : keys)
      if (key != kNoPick) {
        bits = any ? std::max(bits, key >> 32) : key >> 32;  // non-negative floats order as uints
        any = true;
      }
    if (acrossRanks()) {  // the largest over every process
      std::int64_t largest = any ? static_cast<std::int64_t>(bits) : -1;
      collective_->allReduce(&largest, 1, Collective::Op::Max);
      any = largest >= 0;
      bits = any ? static_cast<unsigned long long>(largest) : 0;
    }
    if (!any) break;  // fewer positions than empty clusters: the rest keep their centroids
    const unsigned long long distance_key = (bits << 32) | 0xffffffffull;
    for (std::size_t s = 0; s < active_; ++s) {
      shard(s).activate();
      KMS_CUDA_CHECK(cudaMemcpy(rounds[s].picked_keys + e, &distance_key, sizeof distance_key,
                                cudaMemcpyHostToDevice));
      launchFarthestPosition(rounds[s], e, nullptr, nullptr, shard(s).computeStream());
    }
    // Phase 2: each GPU's first position at that distance; the first of those by coordinates.
    readKeys(e, true);
    std::ptrdiff_t chosen = -1;
    for (std::size_t s = 0; s < active_; ++s)
      if (keys[s] != kNoPick &&
          (chosen < 0 || compareRows(points[s].data(), points[chosen].data(), d_) < 0))
        chosen = static_cast<std::ptrdiff_t>(s);
    std::vector<float> point;
    if (acrossRanks()) {
      // Every process's first position at that distance; the first of those by coordinates.
      const std::vector<float> all = collective_->allGather(
          chosen >= 0 ? points[static_cast<std::size_t>(chosen)] : std::vector<float>{});
      for (std::size_t at = 0; at < all.size(); at += static_cast<std::size_t>(d_))
        if (point.empty() || compareRows(&all[at], point.data(), d_) < 0)
          point.assign(all.begin() + static_cast<std::ptrdiff_t>(at),
                       all.begin() + static_cast<std::ptrdiff_t>(at) + d_);
    } else if (chosen >= 0) {
      point = points[static_cast<std::size_t>(chosen)];
    }
    if (point.empty()) throw DeviceError("internal error: re-seeding lost its farthest point");
    std::vector<float> centroid(d_);
    for (int c = 0; c < d_; ++c)
      centroid[c] = exact::add(point[c], 0.0f);      // −0 becomes +0, as on one GPU
    const unsigned long long pick_key = bits << 32;  // rounds compare positions, not indices
    for (std::size_t s = 0; s < active_; ++s) {
      shard(s).activate();
      KMS_CUDA_CHECK(cudaMemcpy(rounds[s].picked_keys + e, &pick_key, sizeof pick_key,
                                cudaMemcpyHostToDevice));
      KMS_CUDA_CHECK(cudaMemcpy(rounds[s].picked_points + static_cast<std::size_t>(e) * d_,
                                point.data(), d_ * sizeof(float), cudaMemcpyHostToDevice));
      shard(s).setNextCentroid(static_cast<std::size_t>(empties[e]), centroid.data());
    }
  }
  for (std::size_t s = 0; s < active_; ++s)
    shard(s).finishReseed(steps[s]);
}

void ShardedEngine::mergeParts(Snapshot& out, const IterationStats& stats, double copy_ms) {
  const Snapshot& first = parts_[0];
  out.iteration = first.iteration;
  out.n = local_n_;
  out.k = k_;
  out.d = d_;
  out.centroids = first.centroids;
  out.centred_centroids = first.centred_centroids;
  out.stats = stats;
  out.stats.ms.copy_ms = copy_ms;
  if (first.iteration <= 0) {
    out.labels.clear();
    return;
  }
  out.labels.resize(local_n_);
  for (std::size_t s = 0; s < active_; ++s)
    std::copy(parts_[s].labels.begin(), parts_[s].labels.end(),
              out.labels.begin() + static_cast<std::ptrdiff_t>(first_row_[s]));
}

void ShardedEngine::snapshot(Snapshot& out) {
  requireInitialized();
  forEachShard(active_, [&](std::size_t s) { shard(s).snapshot(parts_[s]); });
  capture_pending_ = false;  // the GPUs handed over or dropped their captures
  mergeParts(out, last_, parts_[0].stats.ms.copy_ms);
}

bool ShardedEngine::takeCapturedSnapshot(Snapshot& out) {
  if (!capture_pending_) return false;
  bool all = true;
  for (std::size_t s = 0; s < active_; ++s) {
    if (!part_taken_[s]) part_taken_[s] = shard(s).takeCapturedSnapshot(parts_[s]);
    all = all && part_taken_[s];
  }
  if (!all) return false;
  double copy_ms = 0.0;
  for (const Snapshot& part : parts_)
    copy_ms = std::max(copy_ms, part.stats.ms.copy_ms);
  mergeParts(out, captured_stats_, copy_ms);
  capture_pending_ = false;
  return true;
}

void ShardedEngine::assign(const std::vector<float>& centred_centroids,
                           std::vector<std::int32_t>& labels) {
  if (!has_data_) throw std::logic_error("ShardedEngine::assign called before setData");
  validateCentroidCount(centred_centroids.size(), d_);
  labels.resize(local_n_);
  std::vector<std::vector<std::int32_t>> parts(active_);
  forEachShard(active_, [&](std::size_t s) { shard(s).assign(centred_centroids, parts[s]); });
  for (std::size_t s = 0; s < active_; ++s)
    std::copy(parts[s].begin(), parts[s].end(),
              labels.begin() + static_cast<std::ptrdiff_t>(first_row_[s]));
}

Engine::CentroidsNow ShardedEngine::centroidsForHistory() const {
  return {shard(0).currentCentroids(), &summary_.mid};
}

}  // namespace kms::cuda
