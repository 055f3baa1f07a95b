#include "cuda/chunked_copies.cuh"

#include <algorithm>

namespace kms::cuda {

bool ChunkedCopies::reserve(const float* host_points, const std::uint32_t* host_counts,
                            std::size_t n, int d, std::size_t chunk_bytes,
                            std::size_t resident_bytes, std::size_t pending_bytes,
                            cudaStream_t stream) {
  releaseCopyBuffers();
  const bool counted = host_counts != nullptr;
  const std::size_t row_bytes = d * sizeof(float) + (counted ? sizeof(std::uint32_t) : 0);
  if (n == 0 || d <= 0 || chunk_bytes == 0) {
    release();
    return false;
  }
  std::size_t free_bytes = 0, total_bytes = 0;
  KMS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  const std::size_t held = resident_points_.bytes() + resident_counts_.bytes();
  free_bytes += held;  // given back first if the kept chunks change
  // What the run allocates after this (each chunk's block results) is not ours.
  free_bytes = free_bytes > pending_bytes ? free_bytes - pending_bytes : 0;
  // Two copy buffers in at most half the free memory: the rest stays for other programs. Larger
  // chunks for data of more than kMaxChunks of them: each chunk has its own slots of block
  // results, which the update sums.
  const std::size_t wanted = std::max(chunk_bytes, (n * row_bytes + kMaxChunks - 1) / kMaxChunks);
  std::size_t rows = std::min({n, wanted / row_bytes, free_bytes / 4 / row_bytes});
  if (rows == 0) {
    release();
    return false;
  }
  if (rows >= 256) rows -= rows % 256;  // whole warps and batches of the kernels' blocks
  const std::size_t chunks = (n + rows - 1) / rows;
  // Chunks cut smaller by a nearly full device: more than kMaxChunks would take more result
  // slots and graph nodes than they save; read in place instead.
  if (chunks > kMaxChunks) {
    release();
    return false;
  }
  // Whole chunks kept on the device: within resident_bytes, and leaving the copy buffers and an
  // eighth of the free memory (at least 256 MiB) to other programs.
  const std::size_t copy_bytes = 2 * rows * row_bytes;
  const std::size_t margin = std::max(free_bytes / 8, std::size_t(256) << 20);
  const std::size_t room = free_bytes > copy_bytes + margin ? free_bytes - copy_bytes - margin : 0;
  const std::size_t kept = std::min(chunks, std::min(resident_bytes, room) / row_bytes / rows);
  const bool same_kept = host_points == host_points_ && host_counts == host_counts_ && n == n_ &&
                         d == d_ && rows == chunk_rows_ && kept == resident_chunks_;
  if (!same_kept) {
    release();
    host_points_ = host_points;
    host_counts_ = host_counts;
    n_ = n;
    d_ = d;
    chunk_rows_ = rows;
    resident_chunks_ = kept;
  }
  // Another program may have taken the memory since it was counted: then read in place.
  if ((!same_kept && !keepResident(std::min(n, kept * rows), stream)) ||
      (kept < chunks &&
       !(points_[0].tryResize(rows * d) && points_[1].tryResize(rows * d) &&
         counts_[0].tryResize(counted ? rows : 0) && counts_[1].tryResize(counted ? rows : 0)))) {
    release();
    return false;
  }
  return true;
}

bool ChunkedCopies::keepResident(std::size_t rows, cudaStream_t stream) {
  if (!resident_points_.tryResize(rows * d_) ||
      !resident_counts_.tryResize(host_counts_ ? rows : 0))
    return false;
  if (rows == 0) return true;
  KMS_CUDA_CHECK(cudaMemcpyAsync(resident_points_.get(), host_points_, rows * d_ * sizeof(float),
                                 cudaMemcpyHostToDevice, stream));
  if (host_counts_)
    KMS_CUDA_CHECK(cudaMemcpyAsync(resident_counts_.get(), host_counts_,
                                   rows * sizeof(std::uint32_t), cudaMemcpyHostToDevice, stream));
  KMS_CUDA_CHECK(cudaStreamSynchronize(stream));
  return true;
}

void ChunkedCopies::releaseCopyBuffers() noexcept {
  for (int b = 0; b < 2; ++b) {
    points_[b].release();
    counts_[b].release();
  }
}

void ChunkedCopies::release() noexcept {
  releaseCopyBuffers();
  resident_points_.release();
  resident_counts_.release();
  host_points_ = nullptr;
  host_counts_ = nullptr;
  n_ = 0;
  chunk_rows_ = 0;
  resident_chunks_ = 0;
}

std::size_t ChunkedCopies::bytes() const {
  return resident_points_.bytes() + resident_counts_.bytes() + points_[0].bytes() +
         points_[1].bytes() + counts_[0].bytes() + counts_[1].bytes();
}

void ChunkedCopies::begin(cudaStream_t compute) {
  if (resident_chunks_ >= chunks()) return;  // nothing to copy
  started_.record(compute);
  KMS_CUDA_CHECK(cudaStreamWaitEvent(copy_.get(), started_.get(), 0));
}

ChunkedCopies::Chunk ChunkedCopies::stage(std::size_t j, cudaStream_t compute) {
  Chunk c;
  c.first = j * chunk_rows_;
  c.rows = std::min(chunk_rows_, n_ - c.first);
  if (j < resident_chunks_) {
    c.points = resident_points_.get() + c.first * d_;
    c.counts = host_counts_ ? resident_counts_.get() + c.first : nullptr;
    return c;
  }
  const int b = bufferOf(j);
  const cudaStream_t copy = copy_.get();
  // The kernels of the chunk copied two before read this buffer: the copy waits for them.
  if (j >= resident_chunks_ + 2) KMS_CUDA_CHECK(cudaStreamWaitEvent(copy, used_[b].get(), 0));
  KMS_CUDA_CHECK(cudaMemcpyAsync(points_[b].get(), host_points_ + c.first * d_,
                                 c.rows * d_ * sizeof(float), cudaMemcpyHostToDevice, copy));
  c.points = points_[b].get();
  if (host_counts_) {
    KMS_CUDA_CHECK(cudaMemcpyAsync(counts_[b].get(), host_counts_ + c.first,
                                   c.rows * sizeof(std::uint32_t), cudaMemcpyHostToDevice, copy));
    c.counts = counts_[b].get();
  }
  copied_[b].record(copy);
  KMS_CUDA_CHECK(cudaStreamWaitEvent(compute, copied_[b].get(), 0));
  return c;
}

void ChunkedCopies::finish(std::size_t j, cudaStream_t compute) {
  if (j >= resident_chunks_) used_[bufferOf(j)].record(compute);
}

}  // namespace kms::cuda
