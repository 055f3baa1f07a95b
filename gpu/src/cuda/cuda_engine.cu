#include "cuda/cuda_engine.cuh"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <stdexcept>

#include "common/centring.h"
#include "common/exact_math.h"
#include "common/principal_axis.h"
#include "common/seeding.h"
#include "cuda/kernels/assign_launch.cuh"
#include "cuda/kernels/compact_iteration.cuh"
#include "cuda/kernels/init_kernels.cuh"
#include "cuda/kernels/wide_iteration.cuh"
#include "kmeans/errors.h"

namespace kms::cuda {
namespace {

int selectDevice(int device) {
  KMS_CUDA_CHECK(cudaSetDevice(device));
  return device;
}

/// Physical memory the system could give this process now (bytes).
std::size_t availableHostBytes() {
  const long pages = sysconf(_SC_AVPHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page)
                               : 0;
}

std::string mib(std::size_t bytes) {
  std::ostringstream os;
  os << (bytes + (1u << 20) - 1) / (1u << 20) << " MiB";
  return os.str();
}

}  // namespace

CudaEngine::CudaEngine(int device, const EngineOptions& options)
    : device_(selectDevice(device)),
      max_device_bytes_(options.max_device_bytes),
      point_tiles_(options.cuda_point_tiles),
      repeated_rows_(options.cuda_repeated_rows),
      distance_bounds_(options.cuda_distance_bounds),
      sorted_runs_(options.cuda_sorted_runs),
      steps_past_convergence_(options.cuda_steps_past_convergence),
      stream_chunk_bytes_(options.cuda_stream_chunk_bytes) {
  const bool tensor_cores = options.cuda_tensor_cores;
  KMS_CUDA_CHECK(cudaGetDeviceProperties(&props_, device_));
  limits_.multiprocessors = props_.multiProcessorCount;
  limits_.max_shared_per_block = props_.sharedMemPerBlockOptin;
  limits_.shared_per_multiprocessor = props_.sharedMemPerMultiprocessor;
  limits_.tensor_cores = tensor_cores && props_.major >= 8;  // TF32 mma needs sm_80
  report_.resize(1, /*mapped=*/true);
  report_device_ = report_.device();
  scalars_.resize(1);
  counters_.resize(1);
}

CudaEngine::~CudaEngine() {
  // Let queued work finish before the buffers it uses are freed; errors are moot here.
  cudaSetDevice(device_);
  cudaStreamSynchronize(copy_.get());
  cudaStreamSynchronize(compute_.get());
}

void CudaEngine::activate() const {
  KMS_CUDA_CHECK(cudaSetDevice(device_));
}

BackendInfo CudaEngine::info() const {
  std::ostringstream os;
  os << props_.name << " (sm_" << props_.major << props_.minor << ", " << props_.multiProcessorCount
     << " SMs, " << mib(props_.totalGlobalMem) << ")";
  if (has_data_ && points_.onHost()) {
    os << ", data streamed from host memory";
    if (chunked_.active())
      os << ", copied in chunks of " << chunked_.chunkRows() << " rows ("
         << chunked_.residentChunks() << " of " << chunked_.chunks() << " kept on the GPU)";
  }
  return {"cuda", os.str()};
}

void CudaEngine::checkFits(std::size_t bytes, const char* what, std::size_t reusable) const {
  std::size_t free_bytes = 0, total_bytes = 0;
  KMS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  free_bytes += reusable;
  if (bytes > free_bytes)
    throw DeviceError(std::string(what) + " needs " + mib(bytes) + " of GPU memory but only " +
                      mib(free_bytes) + " of " + mib(total_bytes) + " are free on " + props_.name +
                      ". Use the CPU backend or a smaller data set.");
}

void CudaEngine::yieldChunksFor(std::size_t bytes, std::size_t reusable) {
  if (chunked_.bytes() == 0) return;
  std::size_t free_bytes = 0, total_bytes = 0;
  KMS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (bytes <= free_bytes + reusable) return;
  compute_.synchronize();
  graphs_.clear();  // they hold the chunks' buffers
  chunked_.release();
}

bool CudaEngine::fitsOnDevice(std::size_t data_bytes, std::size_t n) const {
  std::size_t free_bytes = 0, total_bytes = 0;
  KMS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  free_bytes += deviceBytes();  // what this engine holds now is given back first
  // Labels (up to three arrays of up to 2 bytes) and bounds stay on the device in any case.
  const std::size_t run_bytes = n * (3 * sizeof(std::uint16_t) + sizeof(float));
  std::size_t budget = free_bytes > run_bytes ? free_bytes - run_bytes : 0;
  if (max_device_bytes_ > 0) budget = std::min(budget, max_device_bytes_);
  if (data_bytes <= budget) return true;
  // Streamed from host memory: pinned pages must leave the system room to work.
  const std::size_t host_free = availableHostBytes();
  if (data_bytes > host_free / 4 * 3 || run_bytes > free_bytes)
    throw DeviceError("This data set needs " + mib(data_bytes) +
                      "; it fits neither in GPU memory (" + mib(free_bytes) + " of " +
                      mib(total_bytes) + " free on " + props_.name +
                      ") nor in host memory for streaming (" + mib(host_free) +
                      " available). Use a smaller data set.");
  return false;
}

void CudaEngine::indexPointTiles(std::size_t data_bytes) {
  const bool counted = counts_.size() > 0;
  if (point_tiles_ == PointTiles::Never || n_ == 0) return;
  if (point_tiles_ == PointTiles::Auto && (counted || n_ < kTileMinRows)) return;
  std::size_t free_bytes = 0, total_bytes = 0;
  KMS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  // The tiles are an index, not the data: they take only memory that leaves the run its labels
  // and bounds, and within max_device_bytes they count with the data.
  const std::size_t run_bytes = n_ * (3 * sizeof(std::uint16_t) + sizeof(float));
  if (TileIndex::buildBytesFor(n_, d_, counted) + run_bytes > free_bytes) return;
  if (max_device_bytes_ > 0 &&
      data_bytes + TileIndex::bytesFor(n_, d_, counted) > max_device_bytes_)
    return;
  double lo[4], hi[4];
  for (int c = 0; c < d_; ++c) {  // the box in centred coordinates
    lo[c] = double(summary_.lo[c]) - double(summary_.mid[c]);
    hi[c] = double(summary_.hi[c]) - double(summary_.mid[c]);
  }
  try {
    tiles_.build(points_.get(), counts_.size() ? counts_.get() : nullptr, n_, d_,
                 coord_scale_.get(), lo, hi, compute_.get());
  } catch (const DeviceError&) {
    // Another program took the memory meanwhile: the iterations look at every row instead.
    tiles_.release();
  }
  indexRepeatGroups(data_bytes);
}

void CudaEngine::indexRepeatGroups(std::size_t data_bytes) {
  groups_.release();
  // Counted data are distinct values already (their counts would be lost in the groups').
  if (tiles_.empty() || shard_ || counts_.size() > 0 || repeated_rows_ == RepeatedRows::Never)
    return;
  // Auto: with Auto's tiles, when the rows repeat eight times or more on average (PointTiles::
  // Always asks for the tiles themselves: tests, comparisons).
  std::size_t max_groups = n_;
  if (repeated_rows_ == RepeatedRows::Auto) {
    if (point_tiles_ != PointTiles::Auto) return;
    max_groups = n_ / 8;
  }
  std::size_t free_bytes = 0, total_bytes = 0;
  KMS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t build_bytes = RepeatGroups::buildBytesFor(n_, d_);
  if (build_bytes > free_bytes) return;
  if (max_device_bytes_ > 0 && data_bytes + tiles_.bytes() + build_bytes > max_device_bytes_)
    return;
  try {
    groups_.build(tiles_.points(), n_, d_, max_groups, compute_.get());
  } catch (const DeviceError&) {
    groups_.release();  // as for the tiles: the iterations go on without the groups
  }
  // The groups replace the tiles, which keep only their sorted order (each group's rows).
  if (!groups_.empty()) tiles_.keepOrderOnly();
}

template <typename T>
void CudaEngine::copyIn(ResidentBuffer<T>& buffer, const T* source, std::size_t count) {
  if (buffer.onHost())
    std::memcpy(buffer.host(), source, count * sizeof(T));
  else
    KMS_CUDA_CHECK(cudaMemcpyAsync(buffer.get(), source, count * sizeof(T), cudaMemcpyHostToDevice,
                                   compute_.get()));
}

std::size_t CudaEngine::deviceBytes() const {
  return points_.deviceBytes() + weights_.deviceBytes() + counts_.deviceBytes() + tiles_.bytes() +
         groups_.bytes() + group_labels_.bytes() + group_changed_.bytes() + sorted_.bytes() +
         runs_.bytes() + coord_scale_.bytes() + coord_exp_.bytes() + bounds_.bytes() +
         centroids_[0].bytes() + centroids_[1].bytes() + labels_.bytes() + block_sums_.bytes() +
         totals_.bytes() + block_inertia_.bytes() + chunk_sums_.bytes() + block_changed_.bytes() +
         block_work_.bytes() + picked_keys_.bytes() + farthest_keys_.bytes() + scalars_.bytes() +
         empty_flags_.bytes() + empty_list_.bytes() + staged_centroids_.bytes() +
         geometry_.bytes() + order_.bytes() + chunked_.bytes();
}

void CudaEngine::setData(const DataView& data) {
  shard_ = false;
  loadData(data, nullptr);
}

void CudaEngine::loadData(const DataView& data, const DataSummary* given) {
  activate();
  if (data.n > static_cast<std::size_t>(INT32_MAX))
    throw InvalidArgument(
        "The CUDA backend handles at most 2,147,483,647 points; this data set has " +
        std::to_string(data.n) + ".");
  const std::size_t n = data.n;
  const int d = data.d;
  // Sizes first (cheap, and before reading a possibly huge array), then validation; the current
  // data stays usable until both passed. Memory this engine already holds will be reused.
  const std::size_t data_bytes = n * d * sizeof(float) + (data.weights ? n * sizeof(float) : 0) +
                                 (data.counts ? n * sizeof(std::uint32_t) : 0);
  const bool on_device = n == 0 || d == 0 || fitsOnDevice(data_bytes, n);
  DataSummary summary = given ? *given : summarizeData(data);
  // The compact kernels' search order (a shard's own rows give its own: the order decides only
  // how many centroids a search visits, never the label).
  const std::array<float, kMaxAxisDims> axis = principalAxis(data.points, n, d);
  releaseData();

  // Points (then weights or counts) on the device while they fit there, else in mapped host
  // memory (also when an allocation finds the device full after all).
  const bool points_on_device = points_.place(n * d, on_device);
  copyIn(points_, data.points, n * d);
  DeviceBuffer<float> mid(d);
  KMS_CUDA_CHECK(cudaMemcpyAsync(mid.get(), summary.mid.data(), d * sizeof(float),
                                 cudaMemcpyHostToDevice, compute_.get()));
  launchCentre(points_.get(), n, d, mid.get(), compute_.get());
  if (data.weights) {
    weights_.place(n, points_on_device);
    copyIn(weights_, data.weights, n);
  }
  if (data.counts) {
    counts_.place(n, points_on_device);
    copyIn(counts_, data.counts, n);
  }
  std::vector<float> scale(d);
  for (int c = 0; c < d; ++c)
    scale[c] = exact::pow2f(summary.fixed.coord_exp[c]);
  coord_scale_.resize(d);
  coord_exp_.resize(d);
  KMS_CUDA_CHECK(cudaMemcpyAsync(coord_scale_.get(), scale.data(), d * sizeof(float),
                                 cudaMemcpyHostToDevice, compute_.get()));
  KMS_CUDA_CHECK(cudaMemcpyAsync(coord_exp_.get(), summary.fixed.coord_exp.data(), d * sizeof(int),
                                 cudaMemcpyHostToDevice, compute_.get()));
  compute_.synchronize();  // the host vectors above go out of scope

  summary_ = std::move(summary);
  n_ = n;
  d_ = d;
  if (points_on_device && !data.weights && d <= 4) indexPointTiles(data_bytes);
  if (points_on_device && !data.weights && d == 1) indexSortedRuns(data_bytes);
  axis_ = axis;
  has_data_ = true;
  iteration_ = 0;
  converged_ = false;
}

void CudaEngine::releaseData() {
  activate();
  copy_.synchronize();
  compute_.synchronize();
  graphs_.clear();
  initialized_ = false;
  has_data_ = false;
  for (auto* b : {&coord_scale_, &centroids_[0], &centroids_[1], &staged_centroids_})
    b->release();
  chunked_.release();
  points_.release();
  weights_.release();
  counts_.release();
  tiles_.release();
  groups_.release();
  group_labels_.release();
  group_changed_.release();
  sorted_.release();
  labels_.release();
  block_sums_.release();
  totals_.release();
  global_totals_.release();
  bounds_.release();
}

template <typename LabelT>
void CudaEngine::planFor() {
  // Small d and k, no weights: the compact kernels (bounds and sums kept across iterations), for
  // distinct values with counts and for plain points (every count 1). Measured on an H200 once
  // the wider rows (d > 4) searched a row per warp, against the assignment kernels: 17,695 × 9
  // with k = 128 0.023 ms per iteration (was 0.026), 262,144 × 9 0.027 (0.078), 1 M × 16 with
  // k = 256 0.118 (0.749), iterations 11–60 from a random start.
  // Shards run the compact iteration in two parts around the all-reduce.
  const bool compact_fits = fitsCompactKernel(d_, k_) && weights_.size() == 0;
  // d = 1 with its sorted runs (indexSortedRuns): one block per iteration, no row read (H100,
  // 1 M points, k = 16: see docs/benchmarks.md).
  if (!sorted_.empty() && !shard_ && k_ <= kSortedMaxK && weights_.size() == 0) {
    plan_ = AssignPlan{};
    plan_.sorted = true;
    return;
  }
  if (compact_fits && !groups_.empty()) {  // groups of equal rows: the row kernel over them
    plan_ = planCompact<LabelT>(groups_.groups(), d_, k_, 0, limits_);
    plan_.repeat_groups = true;
    // Their rows' labels: a warp a segment, as many as the first iteration's segments fill.
    const std::size_t warps = static_cast<std::size_t>(plan_.threads) / 32;
    plan_.group_blocks = static_cast<int>(
        std::clamp<std::size_t>((groups_.segments() + warps - 1) / warps, 1,
                                static_cast<std::size_t>(limits_.multiprocessors) * 8));
  } else if (compact_fits) {
    plan_ = planCompact<LabelT>(n_, d_, k_, tiles_.tiles(), limits_);
  } else if (distance_bounds_ && fitsWideKernel(d_, k_) && weights_.size() == 0)
    // 17 ≤ d ≤ 64, k ≤ 256: the wide kernels, with a distance bound per row (H200, 1 M × 64,
    // k = 256, iterations 11–60: 98 % of the rows settled by their bounds).
    plan_ = planWide<LabelT>(n_, d_, k_, limits_);
  else if (!summary_.fixed.counted)
    plan_ = planAssign<LabelT>(n_, d_, k_, limits_);
  else
    plan_ = planGeneric<LabelT>(n_, limits_);  // counts need 64-bit sums: the generic kernel's
  plan_.dependent_launches = dependentLaunches();
}

namespace {

/// The exponent of the tile kernel's inertia grid (CompactArgs::inertia_exp): a row's distance to
/// its own (nearest) centroid is at most its distance to the centroid nearest the data's box, so
/// below the box's diameter plus how far the nearest given start lies outside it (means and
/// re-seeds stay inside), and Σ w·distance² stays below 2^120 units. (The farthest start would
/// size the grid for distances no row has.)
int inertiaExponent(const DataSummary& s, int d, const KMeansConfig& config) {
  double outside2 = config.init == InitMethod::Given ? INFINITY : 0.0;
  if (config.init == InitMethod::Given) {
    for (std::size_t j = 0; j < config.initial_centroids.size() / std::size_t(d); ++j) {
      double away2 = 0.0;
      for (int c = 0; c < d; ++c) {
        const double v = config.initial_centroids[j * d + c];
        const double out = std::max({0.0, double(s.lo[c]) - v, v - double(s.hi[c])});
        away2 += out * out;
      }
      outside2 = std::min(outside2, away2);
    }
  }
  const double reach = std::sqrt(squaredDiameter(s)) + std::sqrt(outside2);
  const double bound = s.total_weight * reach * reach * 1.01;
  return bound > 0.0 ? std::ilogb(bound) + 1 - 120 : -120;
}

}  // namespace

void CudaEngine::prepareRun(const KMeansConfig& config) {
  activate();
  if (!has_data_) throw std::logic_error("CudaEngine::initialize called before setData");
  if (!shard_) validateConfig(config, n_, d_);  // a shard's rows alone may be fewer than k
  copy_.synchronize();
  compute_.synchronize();
  graphs_.clear();
  initialized_ = false;
  config_ = config;
  k_ = config.k;
  inertia_exp_ = inertiaExponent(summary_, d_, config);
  withLabelType([&](auto label_type) { planFor<decltype(label_type)>(); });

  const std::size_t kd = static_cast<std::size_t>(k_) * d_;
  const std::size_t columns = static_cast<std::size_t>(k_) * (d_ + 1);
  const std::size_t sum_rows = plan_.separate_sums ? plan_.sum_blocks : plan_.blocks;
  const std::size_t block_sum_count = plan_.per_block_sums ? sum_rows * columns : 0;
  labels_.release();
  block_sums_.release();
  const std::size_t run_bytes =
      labelArrays() * n_ * labelBytes() + block_sum_count * sizeof(long long) +
      4 * kd * sizeof(float) + (keepsRowBounds() ? compactRows() * sizeof(float) : 0) +
      (plan_.repeat_groups
           ? groups_.groups() * labelBytes() + groups_.changeListWords() * sizeof(unsigned)
           : 0);
  const std::size_t reusable = centroids_[0].bytes() + centroids_[1].bytes() +
                               staged_centroids_.bytes() + bounds_.bytes() + group_labels_.bytes() +
                               group_changed_.bytes();
  yieldChunksFor(run_bytes, reusable);
  checkFits(run_bytes, "This run", reusable);
  labels_.resize(labelArrays() * n_ * labelBytes());
  block_sums_.resize(block_sum_count);
  for (auto& c : centroids_)
    c.resize(kd);
  staged_centroids_.resize(kd);
  totals_.resize(columns);
  // Streamed data on the compact and wide kernels, which read each row once an iteration: copied
  // in chunks through two device buffers (taken last, from the memory the run leaves free).
  // The first chunks stay on the device, as many as the data's share of it allows.
  if (points_.onHost() && (plan_.compact || plan_.wide)) {
    // What the run allocates after them: its bounds (startRun) and its blocks' result slots for
    // up to kMaxChunks chunks (less what it holds already).
    const std::size_t bounds = keepsRowBounds() ? n_ * sizeof(float) : 0;
    const std::size_t slots = static_cast<std::size_t>(plan_.blocks) * ChunkedCopies::kMaxChunks *
                              (sizeof(double) + 3 * sizeof(unsigned long long));
    const std::size_t held =
        bounds_.bytes() + block_inertia_.bytes() + block_changed_.bytes() + block_work_.bytes();
    chunked_.reserve(points_.host(), counts_.host(), n_, d_, stream_chunk_bytes_,
                     max_device_bytes_ > 0 ? max_device_bytes_ : SIZE_MAX,
                     bounds + slots > held ? bounds + slots - held : 0, compute_.get());
  } else {
    chunked_.release();
  }
  // Groups of equal rows: their labels, and the lists of those that changed.
  group_labels_.resize(plan_.repeat_groups ? groups_.groups() * labelBytes() : 0);
  group_changed_.resize(plan_.repeat_groups ? groups_.changeListWords() : 0);
  block_inertia_.resize(resultSlots());
  block_changed_.resize(resultSlots());
  // Per block: rows searched and distances computed (compact kernels), rows searched (tensor).
  const std::size_t work_slots = keepsBounds() ? 2 : plan_.tensor ? 1 : 0;
  block_work_.resize(work_slots * resultSlots());
  empty_flags_.resize(k_);
  empty_list_.resize(k_);
  picked_keys_.resize(k_);
  picked_points_.resize(kd);
  global_totals_.resize(shard_ ? columns : 0);
  farthest_blocks_ = farthestBlocks(n_, limits_.multiprocessors);
  farthest_keys_.resize(farthest_blocks_);
  chunk_sums_.resize(plusPlusChunks(n_));
  host_labels_.resize(n_ * labelBytes());
  host_centroids_.resize(kd);
}

void CudaEngine::startRun() {
  // A sharded run calls this for each GPU in turn: the buffers below must be allocated, and the
  // geometry kernel launched, on this engine's GPU, not on whichever GPU was current last.
  activate();
  const cudaStream_t s = compute_.get();
  KMS_CUDA_CHECK(cudaMemsetAsync(counters_.get(), 0, counters_.bytes(), s));
  if (plan_.point_tiles)
    KMS_CUDA_CHECK(cudaMemsetAsync(tiles_.iteration(), 0, sizeof(TileIteration), s));
  runs_.resize(plan_.sorted ? 2 : 0);
  // Each iteration reads the previous runs up to k (past their groups: zeros, never used).
  if (plan_.sorted) KMS_CUDA_CHECK(cudaMemsetAsync(runs_.get(), 0, runs_.bytes(), s));
  if (plan_.repeat_groups)
    KMS_CUDA_CHECK(cudaMemsetAsync(group_changed_.get() + groups_.changeCountsAt(), 0,
                                   2 * sizeof(unsigned), s));
  if (keepsBounds()) {  // sums and bounds kept across iterations
    // The tile kernel keeps no bound per row; the groups one per group.
    bounds_.resize(keepsRowBounds() ? compactRows() : 0);
    geometry_.resize(2 * static_cast<std::size_t>(k_) + 1);
    order_.resize(k_);
    KMS_CUDA_CHECK(cudaMemsetAsync(totals_.get(), 0, totals_.bytes(), s));
    describe(0, -1, 0, centroids_[0].get());
  }
  compute_.synchronize();

  cur_ = 0;
  latest_ = 0;
  frozen_ = -1;
  first_iteration_ = true;
  capture_pending_ = false;
  captured_iteration_ = -1;
  snapshot_requested_ = false;
  iteration_ = 0;
  converged_ = false;
  last_ = IterationStats{};
  initialized_ = true;
}

void CudaEngine::requireInitialized() const {
  if (!initialized_) throw std::logic_error("CudaEngine used before initialize");
}

}  // namespace kms::cuda
