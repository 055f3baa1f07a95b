// A small fixed-size pool for data-parallel loops on the CPU.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace kms {

class ThreadPool {
 public:
  /// threads ≤ 0: std::thread::hardware_concurrency(). The calling thread counts as one worker.
  explicit ThreadPool(int threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  /// Calls fn(task, worker) for every task in [0, tasks), spread over the workers (worker is in
  /// [0, size())). Returns when all calls returned; rethrows the first exception thrown.
  /// Which worker runs which task varies: callers keep results per task, or combine per-worker
  /// results with an associative, exact operation, to stay deterministic.
  void parallelFor(std::size_t tasks, const std::function<void(std::size_t, int)>& fn);

 private:
  void workerLoop(int worker);
  void runTasks(int worker);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  const std::function<void(std::size_t, int)>* job_ = nullptr;
  std::size_t tasks_ = 0;
  std::atomic<std::size_t> next_{0};
  std::size_t generation_ = 0;
  int busy_ = 0;
  bool stopping_ = false;
  std::exception_ptr error_;
};

}  // namespace kms
