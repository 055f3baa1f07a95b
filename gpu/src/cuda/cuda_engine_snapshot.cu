// CudaEngine: snapshots — captured in the background from a frozen label half (see the
// buffer arrangement in cuda_engine.cuh), or taken synchronously, and widened to int32 labels.
#include <algorithm>

#include "common/centring.h"
#include "cuda/cuda_engine.cuh"

namespace kms::cuda {

void CudaEngine::issueCapture(int iteration, const IterationStats& stats) {
  const std::size_t kd = static_cast<std::size_t>(k_) * d_;
  // Stage the centroids on the compute stream (they are overwritten two iterations from now),
  // then let the copy stream move labels and centroids to pinned memory in the background.
  KMS_CUDA_CHECK(cudaMemcpyAsync(staged_centroids_.get(), centroids_[cur_].get(),
                                 kd * sizeof(float), cudaMemcpyDeviceToDevice, compute_.get()));
  capture_source_ready_.record(compute_.get());
  KMS_CUDA_CHECK(cudaStreamWaitEvent(copy_.get(), capture_source_ready_.get(), 0));
  copy_start_.record(copy_.get());
  KMS_CUDA_CHECK(cudaMemcpyAsync(host_labels_.get(), labelHalf(frozen_), n_ * labelBytes(),
                                 cudaMemcpyDeviceToHost, copy_.get()));
  KMS_CUDA_CHECK(cudaMemcpyAsync(host_centroids_.get(), staged_centroids_.get(), kd * sizeof(float),
                                 cudaMemcpyDeviceToHost, copy_.get()));
  copy_done_.record(copy_.get());
  snapshot_requested_ = false;
  capture_pending_ = true;
  captured_iteration_ = iteration;
  captured_stats_ = stats;
}

bool CudaEngine::takeCapturedSnapshot(Snapshot& out) {
  activate();
  if (!capture_pending_ || !copy_done_.done()) return false;
  fillSnapshot(out, copy_done_.msSince(copy_start_));
  capture_pending_ = false;
  return true;
}

void CudaEngine::snapshot(Snapshot& out) {
  activate();
  requireInitialized();
  if (capture_pending_ && captured_iteration_ == iteration_) {
    copy_done_.synchronize();
    fillSnapshot(out, copy_done_.msSince(copy_start_));
    capture_pending_ = false;
    return;
  }
  // Take the newest state now: wait for any background copy (it uses the same pinned buffers),
  // then copy synchronously.
  copy_.synchronize();
  frozen_ = -1;
  compute_.synchronize();
  const std::size_t kd = static_cast<std::size_t>(k_) * d_;
  if (iteration_ > 0 && plan_.sorted) {  // the runs keep their labels by run
    writeSortedLabels(1 - cur_, latest_);
    compute_.synchronize();
  }
  if (iteration_ > 0)
    KMS_CUDA_CHECK(cudaMemcpy(host_labels_.get(), labelHalf(latest_), n_ * labelBytes(),
                              cudaMemcpyDeviceToHost));
  KMS_CUDA_CHECK(cudaMemcpy(host_centroids_.get(), centroids_[cur_].get(), kd * sizeof(float),
                            cudaMemcpyDeviceToHost));
  captured_iteration_ = iteration_;
  captured_stats_ = last_;
  capture_pending_ = false;
  fillSnapshot(out, 0.0);
}

void CudaEngine::fillSnapshot(Snapshot& out, double copy_ms) {
  out.iteration = captured_iteration_;
  out.n = n_;
  out.k = k_;
  out.d = d_;
  const std::size_t kd = static_cast<std::size_t>(k_) * d_;
  out.centroids = toDataUnits(host_centroids_.get(), kd, summary_.mid);
  out.centred_centroids.assign(host_centroids_.get(), host_centroids_.get() + kd);
  out.stats = captured_stats_;
  out.stats.ms.copy_ms = copy_ms;
  if (captured_iteration_ <= 0) {
    out.labels.clear();
    return;
  }
  out.labels.resize(n_);
  constexpr std::size_t kChunk = 1 << 20;
  const std::size_t chunks = (n_ + kChunk - 1) / kChunk;
  const bool narrow = labelBytes() == 1;
  const unsigned char* bytes = host_labels_.get();
  widen_pool_.parallelFor(chunks, [&](std::size_t c, int) {
    const std::size_t begin = c * kChunk, end = std::min(n_, begin + kChunk);
    if (narrow) {
      for (std::size_t i = begin; i < end; ++i)
        out.labels[i] = bytes[i];
    } else {
      const auto* wide = reinterpret_cast<const std::uint16_t*>(bytes);
      for (std::size_t i = begin; i < end; ++i)
        out.labels[i] = wide[i];
    }
  });
}

}  // namespace kms::cuda
