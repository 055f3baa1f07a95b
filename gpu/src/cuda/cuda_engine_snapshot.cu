// CudaEngine: snapshots — captured in the background from a frozen label half (see the
// buffer arrangement in cuda_engine.cuh), or taken synchronously, and widened to int32 labels.
#include <algorithm>

#include "common/centring.h"
#include "cuda/cuda_engine.cuh"
#include "cuda/nvtx.cuh"

namespace kms::cuda {

void CudaEngine::issueCapture(int iteration, const IterationStats& stats) {
  const std::size_t kd = static_cast<std::size_t>(k_) * data_.d;
  // Stage the centroids on the compute stream (they are overwritten two iterations from now),
  // then let the copy stream move labels and centroids to pinned memory in the background.
  KMS_CUDA_CHECK(cudaMemcpyAsync(capture_.staged_centroids.get(), run_.centroids[cur_].get(),
                                 kd * sizeof(float), cudaMemcpyDeviceToDevice, compute_.get()));
  capture_.source_ready.record(compute_.get());
  KMS_CUDA_CHECK(cudaStreamWaitEvent(copy_.get(), capture_.source_ready.get(), 0));
  capture_.copy_start.record(copy_.get());
  KMS_CUDA_CHECK(cudaMemcpyAsync(capture_.host_labels.get(), labelHalf(frozen_),
                                 data_.n * labelBytes(), cudaMemcpyDeviceToHost, copy_.get()));
  KMS_CUDA_CHECK(cudaMemcpyAsync(capture_.host_centroids.get(), capture_.staged_centroids.get(),
                                 kd * sizeof(float), cudaMemcpyDeviceToHost, copy_.get()));
  capture_.copy_done.record(copy_.get());
  snapshot_requested_ = false;
  capture_.pending = true;
  capture_.iteration = iteration;
  capture_.stats = stats;
}

bool CudaEngine::takeCapturedSnapshot(Snapshot& out) {
  activate();
  if (!capture_.pending || !capture_.copy_done.done()) return false;
  fillSnapshot(out, capture_.copy_done.msSince(capture_.copy_start));
  capture_.pending = false;
  return true;
}

void CudaEngine::snapshot(Snapshot& out) {
  const NvtxRange range("kms: snapshot");
  activate();
  requireInitialized();
  if (capture_.pending && capture_.iteration == iteration_) {
    capture_.copy_done.synchronize();
    fillSnapshot(out, capture_.copy_done.msSince(capture_.copy_start));
    capture_.pending = false;
    return;
  }
  // Take the newest state now: wait for any background copy (it uses the same pinned buffers),
  // then copy synchronously.
  copy_.synchronize();
  frozen_ = -1;
  compute_.synchronize();
  const std::size_t kd = static_cast<std::size_t>(k_) * data_.d;
  if (iteration_ > 0) {  // a family that keeps its labels otherwise (sorted runs: by run)
    writeRowLabels(1 - cur_, latest_);
    compute_.synchronize();
  }
  if (iteration_ > 0)
    KMS_CUDA_CHECK(cudaMemcpy(capture_.host_labels.get(), labelHalf(latest_),
                              data_.n * labelBytes(), cudaMemcpyDeviceToHost));
  KMS_CUDA_CHECK(cudaMemcpy(capture_.host_centroids.get(), run_.centroids[cur_].get(),
                            kd * sizeof(float), cudaMemcpyDeviceToHost));
  capture_.iteration = iteration_;
  capture_.stats = last_;
  capture_.pending = false;
  fillSnapshot(out, 0.0);
}

void CudaEngine::fillSnapshot(Snapshot& out, double copy_ms) {
  out.iteration = capture_.iteration;
  out.n = data_.n;
  out.k = k_;
  out.d = data_.d;
  const std::size_t kd = static_cast<std::size_t>(k_) * data_.d;
  out.centroids = toDataUnits(capture_.host_centroids.get(), kd, data_.summary.mid);
  out.centred_centroids.assign(capture_.host_centroids.get(), capture_.host_centroids.get() + kd);
  out.stats = capture_.stats;
  out.stats.ms.copy_ms = copy_ms;
  if (capture_.iteration <= 0) {
    out.labels.clear();
    return;
  }
  out.labels.resize(data_.n);
  constexpr std::size_t kChunk = 1 << 20;
  const std::size_t chunks = (data_.n + kChunk - 1) / kChunk;
  const bool narrow = labelBytes() == 1;
  const unsigned char* bytes = capture_.host_labels.get();
  widen_pool_.parallelFor(chunks, [&](std::size_t c, int) {
    const std::size_t begin = c * kChunk, end = std::min(data_.n, begin + kChunk);
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
