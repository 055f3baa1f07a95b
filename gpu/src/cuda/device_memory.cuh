// RAII owners of every device resource the CUDA backend uses.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <functional>
#include <utility>

#include "cuda/cuda_check.cuh"

namespace kms::cuda {

/// Device memory for `count` values of T (cudaMalloc). Moves, never copies.
template <typename T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) { resize(count); }
  ~DeviceBuffer() { release(); }
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      release();
      ptr_ = std::exchange(o.ptr_, nullptr);
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  /// Reallocates only when the size changes; contents are undefined afterwards.
  void resize(std::size_t count) {
    if (count == count_) return;
    release();
    if (count > 0) KMS_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&ptr_), count * sizeof(T)));
    count_ = count;
  }
  /// resize(), but false (holding nothing) when the device has not the memory; other errors
  /// throw.
  bool tryResize(std::size_t count) {
    if (count == count_) return true;
    release();
    if (count == 0) return true;
    const cudaError_t e = cudaMalloc(reinterpret_cast<void**>(&ptr_), count * sizeof(T));
    if (e == cudaErrorMemoryAllocation) {
      cudaGetLastError();  // not sticky: clear it
      ptr_ = nullptr;
      return false;
    }
    KMS_CUDA_CHECK(e);
    count_ = count;
    return true;
  }
  void release() noexcept {
    if (ptr_) cudaFree(ptr_);
    ptr_ = nullptr;
    count_ = 0;
  }
  T* get() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

/// Page-locked host memory (cudaHostAlloc), optionally mapped into the device address space so
/// kernels can write results the host reads after an event, with no copy.
template <typename T>
class PinnedBuffer {
 public:
  PinnedBuffer() = default;
  PinnedBuffer(std::size_t count, bool mapped) { resize(count, mapped); }
  ~PinnedBuffer() { release(); }
  PinnedBuffer(PinnedBuffer&& o) noexcept
      : ptr_(std::exchange(o.ptr_, nullptr)),
        count_(std::exchange(o.count_, 0)),
        mapped_(o.mapped_) {}
  PinnedBuffer& operator=(PinnedBuffer&& o) noexcept {
    if (this != &o) {
      release();
      ptr_ = std::exchange(o.ptr_, nullptr);
      count_ = std::exchange(o.count_, 0);
      mapped_ = o.mapped_;
    }
    return *this;
  }
  PinnedBuffer(const PinnedBuffer&) = delete;
  PinnedBuffer& operator=(const PinnedBuffer&) = delete;

  void resize(std::size_t count, bool mapped = false) {
    if (count == count_ && mapped == mapped_) return;
    release();
    mapped_ = mapped;
    if (count > 0)
      KMS_CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&ptr_), count * sizeof(T),
                                   mapped ? cudaHostAllocMapped : cudaHostAllocDefault));
    count_ = count;
  }
  void release() noexcept {
    if (ptr_) cudaFreeHost(ptr_);
    ptr_ = nullptr;
    count_ = 0;
  }
  T* get() const { return ptr_; }
  /// Device-side address of a mapped buffer.
  T* device() const {
    T* d = nullptr;
    KMS_CUDA_CHECK(cudaHostGetDevicePointer(reinterpret_cast<void**>(&d), ptr_, 0));
    return d;
  }
  std::size_t size() const { return count_; }

 private:
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
  bool mapped_ = false;
};

/// Data the kernels read, in device memory when it fits and otherwise in page-locked host memory
/// mapped into the device's address space: the kernels then stream it through the interconnect
/// as they read it (zero-copy), with the same code and the same results. place() decides.
template <typename T>
class ResidentBuffer {
 public:
  /// Allocates `count` values: on the device when `on_device`, and there only while the device
  /// has the memory — an out-of-memory (also from another program holding it) falls back to host
  /// memory. Returns whether the values live on the device.
  bool place(std::size_t count, bool on_device) {
    release();
    if (count == 0) return true;
    if (on_device) {
      void* p = nullptr;
      const cudaError_t e = cudaMalloc(&p, count * sizeof(T));
      if (e == cudaSuccess) {
        device_ = static_cast<T*>(p);
        count_ = count;
        return true;
      }
      if (e != cudaErrorMemoryAllocation) KMS_CUDA_CHECK(e);
      cudaGetLastError();  // the failed allocation is not sticky; clear it
    }
    host_.resize(count, /*mapped=*/true);
    device_ = host_.device();
    count_ = count;
    return false;
  }
  void release() noexcept {
    if (device_ && !host_.get()) cudaFree(device_);
    host_.release();
    device_ = nullptr;
    count_ = 0;
  }
  ~ResidentBuffer() { release(); }
  ResidentBuffer() = default;
  ResidentBuffer(const ResidentBuffer&) = delete;
  ResidentBuffer& operator=(const ResidentBuffer&) = delete;

  T* get() const { return device_; }       ///< the address kernels use
  T* host() const { return host_.get(); }  ///< host address when in host memory, else null
  bool onHost() const { return host_.get() != nullptr; }
  std::size_t size() const { return count_; }
  /// Device memory held (0 in host memory).
  std::size_t deviceBytes() const { return onHost() ? 0 : count_ * sizeof(T); }

 private:
  PinnedBuffer<T> host_;
  T* device_ = nullptr;
  std::size_t count_ = 0;
};

/// A non-blocking stream.
class Stream {
 public:
  Stream() { KMS_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking)); }
  ~Stream() {
    if (stream_) cudaStreamDestroy(stream_);
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return stream_; }
  void synchronize() const { KMS_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

 private:
  cudaStream_t stream_ = nullptr;
};

/// An event with timing enabled (used both for ordering and for stage times).
class Event {
 public:
  Event() { KMS_CUDA_CHECK(cudaEventCreate(&event_)); }
  ~Event() {
    if (event_) cudaEventDestroy(event_);
  }
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }
  void record(cudaStream_t s) { KMS_CUDA_CHECK(cudaEventRecord(event_, s)); }
  /// Record while `s` is being captured into a graph: the graph then records this event each
  /// time it runs, and the host can wait on it and time with it as usual.
  void recordInGraph(cudaStream_t s) {
    KMS_CUDA_CHECK(cudaEventRecordWithFlags(event_, s, cudaEventRecordExternal));
  }
  void synchronize() const { KMS_CUDA_CHECK(cudaEventSynchronize(event_)); }
  /// True when all work before the event has finished; never blocks.
  bool done() const {
    const cudaError_t e = cudaEventQuery(event_);
    if (e == cudaErrorNotReady) return false;
    KMS_CUDA_CHECK(e);
    return true;
  }
  /// Milliseconds from `start` to this event (both must have completed).
  float msSince(const Event& start) const {
    float ms = 0.0f;
    KMS_CUDA_CHECK(cudaEventElapsedTime(&ms, start.event_, event_));
    return ms;
  }

 private:
  cudaEvent_t event_ = nullptr;
};

/// An instantiated CUDA graph: a whole iteration submitted with one launch, so the device runs
/// its kernels back to back instead of waiting for the host to enqueue each one.
class GraphExec {
 public:
  GraphExec() = default;
  ~GraphExec() {
    if (exec_) cudaGraphExecDestroy(exec_);
  }
  GraphExec(GraphExec&& o) noexcept : exec_(std::exchange(o.exec_, nullptr)) {}
  GraphExec& operator=(GraphExec&& o) noexcept {
    if (this != &o) {
      if (exec_) cudaGraphExecDestroy(exec_);
      exec_ = std::exchange(o.exec_, nullptr);
    }
    return *this;
  }
  GraphExec(const GraphExec&) = delete;
  GraphExec& operator=(const GraphExec&) = delete;

  /// Records what `enqueue` puts on `stream` into a graph and instantiates it.
  static GraphExec capture(cudaStream_t stream, const std::function<void()>& enqueue) {
    KMS_CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    cudaGraph_t graph = nullptr;
    try {
      enqueue();
    } catch (...) {
      cudaStreamEndCapture(stream, &graph);
      if (graph) cudaGraphDestroy(graph);
      throw;
    }
    KMS_CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    GraphExec exec;
    const cudaError_t status = cudaGraphInstantiate(&exec.exec_, graph, 0);
    cudaGraphDestroy(graph);
    KMS_CUDA_CHECK(status);
    return exec;
  }

  void launch(cudaStream_t stream) const { KMS_CUDA_CHECK(cudaGraphLaunch(exec_, stream)); }

 private:
  cudaGraphExec_t exec_ = nullptr;
};

}  // namespace kms::cuda
