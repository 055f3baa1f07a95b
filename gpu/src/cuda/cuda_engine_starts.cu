// CudaEngine::runStarts: best of N with several starts on the GPU at once.
//
// One start of a small input (a photo's distinct colours) is a string of short launches with the
// host waiting between them, and leaves most of the GPU idle. Here up to kMaxStartLanes starts
// run at once: this engine and "lanes" — engines of the same GPU holding copies of its data —
// each drive one start at a time from their own host thread on their own stream, taking the next
// start number as they finish. Each start runs through exactly the code a lone start runs
// (Engine::runOneStart: initialize, then steps() to the end), so its outcome is that start's,
// bit for bit, whichever lane ran it; the GPU overlaps the lanes' launches, and a start that has
// converged costs nothing more. Seeding runs in the lanes too, so N seedings overlap as well.
#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <thread>

#include "cuda/cuda_check.cuh"
#include "cuda/cuda_engine.cuh"
#include "cuda/nvtx.cuh"
#include "kmeans/errors.h"

namespace kms::cuda {

namespace {

template <typename T>
void copyDeviceBuffer(DeviceBuffer<T>& to, const DeviceBuffer<T>& from, cudaStream_t stream) {
  to.resize(from.size());
  if (from.size() > 0)
    KMS_CUDA_CHECK(cudaMemcpyAsync(to.get(), from.get(), from.size() * sizeof(T),
                                   cudaMemcpyDeviceToDevice, stream));
}

template <typename T>
void copyResident(ResidentBuffer<T>& to, const ResidentBuffer<T>& from, cudaStream_t stream) {
  if (from.size() == 0) {
    to.release();
    return;
  }
  if (!to.place(from.size(), true))
    throw DeviceError("not enough GPU memory for another copy of the data");
  KMS_CUDA_CHECK(cudaMemcpyAsync(to.get(), from.get(), from.size() * sizeof(T),
                                 cudaMemcpyDeviceToDevice, stream));
}

}  // namespace

void CudaEngine::loadCopyOf(const CudaEngine& source) {
  const NvtxRange range("kms: copy data to a lane");
  activate();
  releaseData();
  source.synchronize();
  const PlacedData& from = source.data_;
  const cudaStream_t s = compute_.get();
  copyResident(data_.points, from.points, s);
  copyResident(data_.weights, from.weights, s);
  copyResident(data_.counts, from.counts, s);
  copyDeviceBuffer(data_.coord_scale, from.coord_scale, s);
  copyDeviceBuffer(data_.coord_exp, from.coord_exp, s);
  compute_.synchronize();
  data_.summary = from.summary;
  data_.n = from.n;
  data_.d = from.d;
  data_.shard = false;
  // The same indexes as loadData builds (the rows are centred already); where memory is short
  // a lane may go without one and take another kernel family, with the same results.
  const std::size_t data_bytes =
      from.points.deviceBytes() + from.weights.deviceBytes() + from.counts.deviceBytes();
  if (!data_.weights.size() && data_.d <= 4) indexPointTiles(data_bytes);
  if (!data_.weights.size() && data_.d == 1) indexSortedRuns(data_bytes);
  data_.axis = from.axis;
  data_.loaded = true;
  resetRun();
}

int CudaEngine::prepareLanes(int wanted) {
  // One host thread waits on each lane's launches (spinning, as CUDA's default wait does):
  // leave the process a core.
  const int cores = static_cast<int>(std::max(2u, std::thread::hardware_concurrency()));
  wanted = std::min({wanted, kMaxStartLanes, cores - 1});
  // Each lane needs what this engine holds for the run (data, indexes, family, run buffers),
  // which initialize() has just allocated; a tenth of the free memory stays free.
  const std::size_t per_lane = std::max<std::size_t>(deviceBytes(), 1);
  std::size_t free_bytes = 0, total_bytes = 0;
  KMS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  std::size_t budget = free_bytes - free_bytes / 10;
  // max_device_bytes caps the data a run places; the lanes' copies count against it too.
  if (options_.max_device_bytes > 0) {
    const std::size_t data_bytes = std::max<std::size_t>(data_.deviceBytes(), 1);
    const std::size_t copies = options_.max_device_bytes / data_bytes;
    budget = std::min(budget, (copies > 0 ? copies - 1 : 0) * per_lane);
  }
  const int fitting = 1 + static_cast<int>(std::min<std::size_t>(budget / per_lane, 1 << 20));
  const int lanes = std::max(1, std::min(wanted, fitting));
  try {
    while (static_cast<int>(lanes_.size()) < lanes - 1) {
      auto lane = std::make_unique<CudaEngine>(device_, options_);
      lane->loadCopyOf(*this);
      lanes_.push_back(std::move(lane));
    }
  } catch (const DeviceError&) {
    // Another program took the memory meanwhile: fewer lanes, the same results.
    cudaGetLastError();
  }
  activate();
  return 1 + static_cast<int>(lanes_.size());
}

std::vector<StartOutcome> CudaEngine::runStarts(const KMeansConfig& config,
                                                const std::vector<int>& starts,
                                                const StartObserver& observer) {
  const NvtxRange range("kms: best of N");
  activate();
  if (!data_.loaded) throw std::logic_error("runStarts() before setData()");
  // Lanes need the data on the device, a run of its own on every lane (a shard's run is its
  // ShardedEngine's) and no test hook acting between iterations.
  const bool lanes_possible = starts.size() > 1 && !data_.shard && !data_.points.onHost() &&
                              !data_.chunked.active() && options_.hooks.fault_at_iteration == 0;
  if (!lanes_possible) return Engine::runStarts(config, starts, observer);
  requireStartNumbers(starts);
  if (interruptRequested()) throw Interrupted("best of N stopped");

  // The configuration is checked (and the run's buffers sized) here, before any start runs: this is
  // the first start's set-up, and this engine goes on to run that start.
  {
    KMeansConfig first = config;
    first.keep_history = false;
    first.seed = config.seed + static_cast<std::uint64_t>(starts.front());
    initialize(first);
  }
  const int lane_count = prepareLanes(static_cast<int>(starts.size()));
  // The lanes are given back when the starts are done, whatever happens: their copies of the
  // data would otherwise hold memory the next run of this engine may need.
  struct ReleaseLanes {
    CudaEngine& engine;
    ~ReleaseLanes() {
      engine.lanes_.clear();
      cudaSetDevice(engine.device_);
    }
  } release_lanes{*this};
  std::vector<CudaEngine*> engines{this};
  for (const auto& lane : lanes_)
    engines.push_back(lane.get());
  engines.resize(static_cast<std::size_t>(lane_count));

  std::vector<StartOutcome> outcomes(starts.size());
  std::atomic<bool> stop{false};
  std::mutex mutex;
  std::condition_variable wake;
  std::size_t next = 1;              // the next start not yet taken; this engine takes the first
  std::deque<std::size_t> returned;  // starts a lane gave back (it ran out of memory)
  std::deque<std::size_t> finished;  // outcomes not yet shown to the observer
  int running = 0;
  std::exception_ptr error;

  // Engine 0 (this one) runs the first start, so that it ends holding a finished run.
  const auto take = [&](std::size_t& i) {
    std::lock_guard lock(mutex);
    if (stop.load()) return false;
    if (!returned.empty()) {
      i = returned.front();
      returned.pop_front();
      return true;
    }
    if (next >= starts.size()) return false;
    i = next++;
    return true;
  };
  const auto drive = [&](CudaEngine* engine, bool first_lane) {
    std::size_t i = 0;
    bool have = first_lane;  // this engine, initialized above for start 0: its seeding is done
    try {
      engine->activate();
      while (have || take(i)) {
        const bool initialized = have;
        have = false;
        try {
          if (!engine->runOneStart(config, starts[i], outcomes[i], &stop, initialized)) break;
        } catch (const DeviceError&) {
          if (engine == this) throw;
          // A lane out of memory (or failing otherwise) retires and gives its start back; this
          // engine runs it, or fails with the error if the device itself is lost.
          std::lock_guard lock(mutex);
          returned.push_back(i);
          cudaGetLastError();
          break;
        }
        std::lock_guard lock(mutex);
        finished.push_back(i);
        wake.notify_one();
      }
    } catch (...) {
      std::lock_guard lock(mutex);
      if (!error) error = std::current_exception();
      stop.store(true);
    }
    std::lock_guard lock(mutex);
    --running;
    wake.notify_one();
  };

  // Every thread started is joined before this function returns, also when starting one fails.
  std::vector<std::thread> threads;
  struct JoinAll {
    std::vector<std::thread>& threads;
    std::atomic<bool>& stop;
    ~JoinAll() {
      stop.store(true);
      for (std::thread& t : threads)
        if (t.joinable()) t.join();
    }
  } join_all{threads, stop};
  threads.reserve(engines.size());
  for (std::size_t e = 0; e < engines.size(); ++e) {
    {
      std::lock_guard lock(mutex);
      ++running;
    }
    try {
      threads.emplace_back(drive, engines[e], e == 0);
    } catch (...) {
      std::lock_guard lock(mutex);
      --running;
      if (e == 0) throw;  // no thread at all: nothing runs
      break;              // fewer lanes, the same results
    }
  }
  // A lane that retired leaves its start to the others; this engine's thread picks it up, and
  // takes the last ones if every lane retired.

  // This thread tells the observer and watches the interrupt flag (a stop is seen within one
  // launch of every lane: milliseconds).
  bool cancelled = false;
  std::exception_ptr observer_error;
  {
    std::unique_lock lock(mutex);
    for (;;) {
      while (!finished.empty()) {
        const std::size_t i = finished.front();
        finished.pop_front();
        if (cancelled || !observer) continue;
        lock.unlock();
        bool go_on = false;
        try {
          go_on = observer(outcomes[i]);
        } catch (...) {  // the lanes stop first; rethrown after they are joined
          if (!observer_error) observer_error = std::current_exception();
        }
        lock.lock();
        if (!go_on) {
          cancelled = true;
          stop.store(true);
        }
      }
      if (!cancelled && interruptRequested()) {
        cancelled = true;
        stop.store(true);
      }
      if (running == 0) break;
      wake.wait_for(lock, std::chrono::milliseconds(5),
                    [&] { return !finished.empty() || running == 0; });
    }
    // Starts a retired lane gave back after every other thread had ended run here.
    while (!returned.empty() && !stop.load() && !error) {
      const std::size_t i = returned.front();
      returned.pop_front();
      lock.unlock();
      activate();
      runOneStart(config, starts[i], outcomes[i], nullptr);
      if (observer && !cancelled && !observer(outcomes[i])) cancelled = true;
      lock.lock();
    }
  }
  for (std::thread& t : threads)
    t.join();
  activate();
  if (error) std::rethrow_exception(error);
  if (observer_error) std::rethrow_exception(observer_error);
  if (cancelled) throw Interrupted("best of N stopped");
  return outcomes;
}

}  // namespace kms::cuda
