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
#include "cuda/families/planner.cuh"
#include "cuda/kernels/init_kernels.cuh"
#include "cuda/nvtx.cuh"
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

CudaEngine::CudaEngine(int device, const TestingOptions& options)
    : device_(selectDevice(device)), options_(options) {
  const bool tensor_cores = options_.cuda.tensor_cores;
  KMS_CUDA_CHECK(cudaGetDeviceProperties(&props_, device_));
  limits_.multiprocessors = props_.multiProcessorCount;
  limits_.max_shared_per_block = props_.sharedMemPerBlockOptin;
  limits_.shared_per_multiprocessor = props_.sharedMemPerMultiprocessor;
  limits_.tensor_cores = tensor_cores && props_.major >= 8;  // TF32 mma needs sm_80
  run_.report.resize(1, /*mapped=*/true);
  run_.report_device = run_.report.device();
  run_.scalars.resize(1);
  run_.counters.resize(1);
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
  if (data_.loaded && data_.points.onHost()) {
    os << ", data streamed from host memory";
    if (data_.chunked.active())
      os << ", copied in chunks of " << data_.chunked.chunkRows() << " rows ("
         << data_.chunked.residentChunks() << " of " << data_.chunked.chunks()
         << " kept on the GPU)";
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
  if (data_.chunked.bytes() == 0) return;
  std::size_t free_bytes = 0, total_bytes = 0;
  KMS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  if (bytes <= free_bytes + reusable) return;
  compute_.synchronize();
  graphs_.clear();  // they hold the chunks' buffers
  data_.chunked.release();
}

bool CudaEngine::fitsOnDevice(std::size_t data_bytes, std::size_t n) const {
  std::size_t free_bytes = 0, total_bytes = 0;
  KMS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  free_bytes += deviceBytes();  // what this engine holds now is given back first
  // Labels (up to three arrays of up to 2 bytes) and bounds stay on the device in any case.
  const std::size_t run_bytes = n * (3 * sizeof(std::uint16_t) + sizeof(float));
  std::size_t budget = free_bytes > run_bytes ? free_bytes - run_bytes : 0;
  if (options_.max_device_bytes > 0) budget = std::min(budget, options_.max_device_bytes);
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
  const bool counted = data_.counts.size() > 0;
  if (options_.cuda.point_tiles == PointTiles::Never || data_.n == 0) return;
  if (options_.cuda.point_tiles == PointTiles::Auto && (counted || data_.n < kTileMinRows)) return;
  std::size_t free_bytes = 0, total_bytes = 0;
  KMS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  // The tiles are an index, not the data: they take only memory that leaves the run its labels
  // and bounds, and within max_device_bytes they count with the data.
  const std::size_t run_bytes = data_.n * (3 * sizeof(std::uint16_t) + sizeof(float));
  if (TileIndex::buildBytesFor(data_.n, data_.d, counted) + run_bytes > free_bytes) return;
  if (options_.max_device_bytes > 0 &&
      data_bytes + TileIndex::bytesFor(data_.n, data_.d, counted) > options_.max_device_bytes)
    return;
  double lo[4], hi[4];
  for (int c = 0; c < data_.d; ++c) {  // the box in centred coordinates
    lo[c] = double(data_.summary.lo[c]) - double(data_.summary.mid[c]);
    hi[c] = double(data_.summary.hi[c]) - double(data_.summary.mid[c]);
  }
  try {
    data_.tiles.build(data_.points.get(), data_.counts.size() ? data_.counts.get() : nullptr,
                      data_.n, data_.d, data_.coord_scale.get(), lo, hi, compute_.get());
  } catch (const DeviceError&) {
    // Another program took the memory meanwhile: the iterations look at every row instead.
    data_.tiles.release();
  }
  indexRepeatGroups(data_bytes);
}

void CudaEngine::indexRepeatGroups(std::size_t data_bytes) {
  data_.groups.release();
  // Counted data are distinct values already (their counts would be lost in the groups').
  if (data_.tiles.empty() || data_.shard || data_.counts.size() > 0 ||
      options_.cuda.repeated_rows == RepeatedRows::Never)
    return;
  // Auto: with Auto's tiles, when the rows repeat kRepeatMinFactor times or more on average
  // (PointTiles:: Always asks for the tiles themselves: tests, comparisons).
  std::size_t max_groups = data_.n;
  if (options_.cuda.repeated_rows == RepeatedRows::Auto) {
    if (options_.cuda.point_tiles != PointTiles::Auto) return;
    max_groups = data_.n / kRepeatMinFactor;
  }
  std::size_t free_bytes = 0, total_bytes = 0;
  KMS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t build_bytes = RepeatGroups::buildBytesFor(data_.n, data_.d);
  if (build_bytes > free_bytes) return;
  if (options_.max_device_bytes > 0 &&
      data_bytes + data_.tiles.bytes() + build_bytes > options_.max_device_bytes)
    return;
  try {
    data_.groups.build(data_.tiles.points(), data_.n, data_.d, max_groups, compute_.get());
  } catch (const DeviceError&) {
    data_.groups.release();  // as for the tiles: the iterations go on without the groups
  }
  // The groups replace the tiles, which keep only their sorted order (each group's rows).
  if (!data_.groups.empty()) data_.tiles.keepOrderOnly();
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
  return data_.deviceBytes() + (family_ ? family_->deviceBytes() : 0) + run_.bytes() +
         reseed_.bytes() + capture_.staged_centroids.bytes();
}

void CudaEngine::setData(const DataView& data) {
  data_.shard = false;
  loadData(data, nullptr);
}

void CudaEngine::loadData(const DataView& data, const DataSummary* given) {
  const NvtxRange range("kms: load data");
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
  const bool points_on_device = data_.points.place(n * d, on_device);
  copyIn(data_.points, data.points, n * d);
  DeviceBuffer<float> mid(d);
  KMS_CUDA_CHECK(cudaMemcpyAsync(mid.get(), summary.mid.data(), d * sizeof(float),
                                 cudaMemcpyHostToDevice, compute_.get()));
  launchCentre(data_.points.get(), n, d, mid.get(), compute_.get());
  if (data.weights) {
    data_.weights.place(n, points_on_device);
    copyIn(data_.weights, data.weights, n);
  }
  if (data.counts) {
    data_.counts.place(n, points_on_device);
    copyIn(data_.counts, data.counts, n);
  }
  std::vector<float> scale(d);
  for (int c = 0; c < d; ++c)
    scale[c] = exact::pow2f(summary.fixed.coord_exp[c]);
  data_.coord_scale.resize(d);
  data_.coord_exp.resize(d);
  KMS_CUDA_CHECK(cudaMemcpyAsync(data_.coord_scale.get(), scale.data(), d * sizeof(float),
                                 cudaMemcpyHostToDevice, compute_.get()));
  KMS_CUDA_CHECK(cudaMemcpyAsync(data_.coord_exp.get(), summary.fixed.coord_exp.data(),
                                 d * sizeof(int), cudaMemcpyHostToDevice, compute_.get()));
  compute_.synchronize();  // the host vectors above go out of scope

  data_.summary = std::move(summary);
  data_.n = n;
  data_.d = d;
  if (points_on_device && !data.weights && d <= 4) indexPointTiles(data_bytes);
  if (points_on_device && !data.weights && d == 1) indexSortedRuns(data_bytes);
  data_.axis = axis;
  data_.loaded = true;
  resetRun();
}

void CudaEngine::releaseData() {
  activate();
  copy_.synchronize();
  compute_.synchronize();
  graphs_.clear();
  initialized_ = false;
  family_.reset();
  lanes_.clear();
  data_.release();
  for (auto* b : {&run_.centroids[0], &run_.centroids[1], &capture_.staged_centroids})
    b->release();
  run_.labels.release();
  run_.totals.release();
  run_.global_totals.release();
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
        const double v = givenInDataUnits(config, j * d + c, s.mid);
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
  if (!data_.loaded) throw std::logic_error("CudaEngine::initialize called before setData");
  if (!data_.shard) validateConfig(config, data_.n, data_.d);  // a shard's rows may be fewer than k
  copy_.synchronize();
  compute_.synchronize();
  graphs_.clear();
  initialized_ = false;
  config_ = config;
  k_ = config.k;
  // The family's buffers of an earlier run go first: the new run's are planned in their room.
  family_.reset();
  family_ = planFamily(FamilyPlanInput{data_, k_, labelBytes(), limits_, options_.cuda,
                                       inertiaExponent(data_.summary, data_.d, config),
                                       dependentLaunches()});

  const std::size_t n = data_.n;
  const std::size_t kd = static_cast<std::size_t>(k_) * data_.d;
  const std::size_t columns = static_cast<std::size_t>(k_) * (data_.d + 1);
  run_.labels.release();
  const std::size_t run_bytes = family_->labelArrays() * n * labelBytes() +
                                family_->runBytes(data_, k_) + 4 * kd * sizeof(float);
  const std::size_t reusable =
      run_.centroids[0].bytes() + run_.centroids[1].bytes() + capture_.staged_centroids.bytes();
  yieldChunksFor(run_bytes, reusable);
  checkFits(run_bytes, "This run", reusable);
  run_.labels.resize(family_->labelArrays() * n * labelBytes());
  family_->allocate(data_, k_);
  for (auto& c : run_.centroids)
    c.resize(kd);
  capture_.staged_centroids.resize(kd);
  run_.totals.resize(columns);
  // Streamed data on a family that reads each row once an iteration (the bounds families):
  // copied in chunks through two device buffers (taken last, from the memory the run leaves
  // free). The first chunks stay on the device, as many as the data's share of it allows.
  if (data_.points.onHost() && family_->readsRowsInChunks()) {
    // What the run allocates after them: its blocks' result slots for up to kMaxChunks chunks
    // (less what it holds already).
    const std::size_t slots = family_->resultSlotsPerChunk() * ChunkedCopies::kMaxChunks *
                              (sizeof(double) + 3 * sizeof(unsigned long long));
    const std::size_t held =
        run_.block_inertia.bytes() + run_.block_changed.bytes() + run_.block_work.bytes();
    data_.chunked.reserve(data_.points.host(), data_.counts.host(), n, data_.d,
                          options_.cuda.stream_chunk_bytes,
                          options_.max_device_bytes > 0 ? options_.max_device_bytes : SIZE_MAX,
                          slots > held ? slots - held : 0, compute_.get());
  } else {
    data_.chunked.release();
  }
  run_.block_inertia.resize(resultSlots());
  run_.block_changed.resize(resultSlots());
  run_.block_work.resize(static_cast<std::size_t>(family_->workWordsPerSlot()) * resultSlots());
  reseed_.empty_flags.resize(k_);
  reseed_.empty_list.resize(k_);
  reseed_.picked_keys.resize(k_);
  reseed_.picked_points.resize(kd);
  run_.global_totals.resize(data_.shard ? columns : 0);
  reseed_.farthest_blocks = farthestBlocks(n, limits_.multiprocessors);
  reseed_.farthest_keys.resize(reseed_.farthest_blocks);
  run_.chunk_sums.resize(plusPlusChunks(n));
  capture_.host_labels.resize(n * labelBytes());
  capture_.host_centroids.resize(kd);
}

void CudaEngine::startRun() {
  // A sharded run calls this for each GPU in turn: the family's kernels must run on this
  // engine's GPU, not on whichever GPU was current last.
  activate();
  const cudaStream_t s = compute_.get();
  reseed_.candidates.release();  // a sharded seeding's scratch: the seeding is over
  reseed_.potentials.release();
  KMS_CUDA_CHECK(cudaMemsetAsync(run_.counters.get(), 0, run_.counters.bytes(), s));
  family_->startRun(data_, runBuffers(0, -1, 0), s);
  compute_.synchronize();

  cur_ = 0;
  latest_ = 0;
  frozen_ = -1;
  first_iteration_ = true;
  capture_.pending = false;
  capture_.iteration = -1;
  snapshot_requested_ = false;
  initialized_ = true;
  beginRun();  // a shard's configuration keeps no history: its ShardedEngine does
}

void CudaEngine::requireInitialized() const {
  if (!initialized_) throw std::logic_error("CudaEngine used before initialize");
}

}  // namespace kms::cuda
