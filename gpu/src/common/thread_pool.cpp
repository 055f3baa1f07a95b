#include "common/thread_pool.h"

#include "kmeans/vector_state.h"

namespace kms {

ThreadPool::ThreadPool(int threads) {
  if (threads <= 0) threads = static_cast<int>(std::thread::hardware_concurrency());
  if (threads <= 0) threads = 1;
  workers_.reserve(static_cast<std::size_t>(threads - 1));
  for (int w = 1; w < threads; ++w)
    workers_.emplace_back([this, w] { workerLoop(w); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& t : workers_)
    t.join();
}

void ThreadPool::runTasks(int worker) {
  for (;;) {
    const std::size_t task = next_.fetch_add(1, std::memory_order_relaxed);
    if (task >= tasks_) return;
    try {
      (*job_)(task, worker);
    } catch (...) {
      std::lock_guard lock(mutex_);
      if (!error_) error_ = std::current_exception();
      next_.store(tasks_, std::memory_order_relaxed);  // stop handing out work
    }
  }
}

void ThreadPool::workerLoop(int worker) {
  clearUpperVectorState();  // the creating thread's state came along
  std::size_t seen = 0;
  for (;;) {
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return stopping_ || generation_ != seen; });
      if (stopping_) return;
      seen = generation_;
    }
    runTasks(worker);
    {
      std::lock_guard lock(mutex_);
      if (--busy_ == 0) done_.notify_all();
    }
  }
}

void ThreadPool::parallelFor(std::size_t tasks, const std::function<void(std::size_t, int)>& fn) {
  if (tasks == 0) return;
  clearUpperVectorState();  // the calling thread works too
  if (workers_.empty() || tasks == 1) {
    for (std::size_t t = 0; t < tasks; ++t)
      fn(t, 0);
    return;
  }
  {
    std::lock_guard lock(mutex_);
    job_ = &fn;
    tasks_ = tasks;
    next_.store(0, std::memory_order_relaxed);
    busy_ = static_cast<int>(workers_.size());
    error_ = nullptr;
    ++generation_;
  }
  wake_.notify_all();
  runTasks(0);
  std::exception_ptr error;
  {
    std::unique_lock lock(mutex_);
    done_.wait(lock, [&] { return busy_ == 0; });
    job_ = nullptr;
    error = error_;
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace kms
