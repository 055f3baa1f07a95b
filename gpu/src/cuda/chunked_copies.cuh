// Streamed data copied to the GPU a chunk of rows at a time (CudaTuning::stream_chunk_bytes). The
// rows stay in page-locked host memory (ResidentBuffer). The first chunks, as many as the data's
// share of GPU memory holds, are copied to the device once and kept there; an iteration copies each
// further chunk j into one of two device buffers on its own stream while the compute stream runs
// the kernels of the chunk before on the other, so the copy engine streams the rest back to back at
// the interconnect's rate and the kernels read device memory. The kernels run chunk by chunk as on
// data of that many rows (BoundsFamily::assignByChunks shifts their row arrays); the sums they
// leave are integers, so labels and centroids are the in-memory run's.
//
// Ordering, per copied chunk j of buffer b (the copied chunks alternate between the two; also
// inside a graph capture, where the events only order the captured nodes):
//   copy stream:     wait(used[b]: the kernels of the chunk copied two before) → copy j →
//                    record(copied[b])
//   compute stream:  wait(copied[b]) → kernels of chunk j → record(used[b])
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda/device_memory.cuh"

namespace kms::cuda {

class ChunkedCopies {
 public:
  /// Chunks of a data set at most, where the free memory allows (larger data: larger chunks).
  static constexpr std::size_t kMaxChunks = 256;

  /// One chunk's rows as the kernels read them: rows [first, first + rows) of the data, in
  /// device memory.
  struct Chunk {
    std::size_t first = 0;
    std::size_t rows = 0;
    const float* points = nullptr;          ///< rows × d
    const std::uint32_t* counts = nullptr;  ///< rows counts, or null for uncounted data
  };

  /// Sets up chunks of n rows of `d` floats (and a count each when `host_counts` is given) of
  /// `chunk_bytes`, or a kMaxChunks-th of the data when that is more: two device buffers for the
  /// copies (smaller when a quarter of the free memory is less), then as many whole chunks kept
  /// on the device as `resident_bytes` and the memory left free allow, copied from the host
  /// arrays on `stream` (and waited for); `pending_bytes` of the free memory are the caller's,
  /// to allocate next. False, holding nothing, when not even one row fits, more than kMaxChunks
  /// would be needed or the device has not the memory after all (the kernels then read the host
  /// memory in place); other device errors throw. The kept chunks stay if a later call asks for
  /// the same.
  bool reserve(const float* host_points, const std::uint32_t* host_counts, std::size_t n, int d,
               std::size_t chunk_bytes, std::size_t resident_bytes, std::size_t pending_bytes,
               cudaStream_t stream);
  void release() noexcept;

  bool active() const { return chunk_rows_ > 0; }
  /// Chunks of the data (1 when inactive: the whole data read in place).
  std::size_t chunks() const { return active() ? (n_ + chunk_rows_ - 1) / chunk_rows_ : 1; }
  std::size_t chunkRows() const { return chunk_rows_; }
  /// The chunks kept on the device (the first ones).
  std::size_t residentChunks() const { return resident_chunks_; }
  std::size_t bytes() const;

  /// Starts an iteration's copies after the work enqueued on `compute` so far (in a capture, this
  /// brings the copy stream into it).
  void begin(cudaStream_t compute);
  /// Chunk j: a kept chunk as it is, or its copy from the host arrays enqueued (after the kernels
  /// that read its buffer two copies before) with `compute` waiting for it.
  Chunk stage(std::size_t j, cudaStream_t compute);
  /// After chunk j's kernels are enqueued on `compute`: its buffer may be refilled once they end.
  void finish(std::size_t j, cudaStream_t compute);

 private:
  /// The copy buffer of copied chunk j.
  int bufferOf(std::size_t j) const { return static_cast<int>((j - resident_chunks_) % 2); }
  /// The first `rows` rows copied to the device (false: no memory for them).
  bool keepResident(std::size_t rows, cudaStream_t stream);
  void releaseCopyBuffers() noexcept;

  const float* host_points_ = nullptr;
  const std::uint32_t* host_counts_ = nullptr;
  std::size_t n_ = 0;
  int d_ = 0;
  std::size_t chunk_rows_ = 0;  // 0: inactive
  std::size_t resident_chunks_ = 0;
  DeviceBuffer<float> resident_points_;
  DeviceBuffer<std::uint32_t> resident_counts_;
  DeviceBuffer<float> points_[2];
  DeviceBuffer<std::uint32_t> counts_[2];
  Stream copy_;
  Event started_, copied_[2], used_[2];
};

}  // namespace kms::cuda
