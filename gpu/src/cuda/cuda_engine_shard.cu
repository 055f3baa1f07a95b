// CudaEngine as one GPU of a sharded run (sharded_engine.cuh): its rows loaded with the whole
// data's summary, the seeding's pieces that ShardedEngine places across GPUs, its part of the
// all-reduce, and the re-seeding's pieces. Every call makes this engine's GPU current first.
#include <cstddef>

#include "common/constants.h"
#include "common/exact_math.h"
#include "cuda/cuda_engine.cuh"
#include "cuda/kernels/init_kernels.cuh"

namespace kms::cuda {

void CudaEngine::loadShard(const DataView& rows, const DataSummary& summary) {
  data_.shard = true;
  loadData(rows, &summary);
}

void CudaEngine::synchronize() const {
  activate();
  compute_.synchronize();
}

void CudaEngine::setStartCentroids(const float* centred, std::size_t first_row, std::size_t count) {
  activate();
  const std::size_t d = static_cast<std::size_t>(data_.d);
  KMS_CUDA_CHECK(cudaMemcpy(run_.centroids[0].get() + first_row * d, centred,
                            count * d * sizeof(float), cudaMemcpyHostToDevice));
}

void CudaEngine::copyCounts(std::uint32_t* out) const {
  activate();
  KMS_CUDA_CHECK(cudaMemcpy(out, data_.counts.get(), data_.n * sizeof(std::uint32_t),
                            cudaMemcpyDefault));  // device or mapped host memory
}

std::vector<float> CudaEngine::centredRow(std::size_t local) const {
  activate();
  std::vector<float> row(data_.d);
  // Centred rows (loadData centred them on the device); device or mapped host memory.
  KMS_CUDA_CHECK(cudaMemcpy(row.data(), data_.points.get() + local * data_.d,
                            data_.d * sizeof(float), cudaMemcpyDefault));
  return row;
}

void CudaEngine::enqueuePlusPlusMass(int j, double* chunk_sums) {
  activate();
  const cudaStream_t s = compute_.get();
  withLabelType([&](auto label_type) {
    using LabelT = decltype(label_type);
    launchPlusPlusMass<LabelT>(data_.points.get(), data_.weightsOrNull(), data_.countsOrNull(),
                               data_.n, data_.d, run_.centroids[0].get(), j,
                               reinterpret_cast<LabelT*>(labelHalf(0)), run_.chunk_sums.get(), s);
  });
  KMS_CUDA_CHECK(cudaMemcpyAsync(chunk_sums, run_.chunk_sums.get(),
                                 plusPlusChunks(data_.n) * sizeof(double), cudaMemcpyDeviceToHost,
                                 s));
}

std::vector<float> CudaEngine::plusPlusPick(int j, ChunkDraw draw) {
  activate();
  const cudaStream_t s = compute_.get();
  float* out = capture_.staged_centroids.get();  // free until the first capture
  withLabelType([&](auto label_type) {
    using LabelT = decltype(label_type);
    launchPlusPlusPickIn<LabelT>(data_.points.get(), data_.weightsOrNull(), data_.countsOrNull(),
                                 data_.n, data_.d, run_.centroids[0].get(), j, draw,
                                 reinterpret_cast<const LabelT*>(labelHalf(0)), out, s);
  });
  std::vector<float> row(data_.d);
  KMS_CUDA_CHECK(
      cudaMemcpyAsync(row.data(), out, data_.d * sizeof(float), cudaMemcpyDeviceToHost, s));
  compute_.synchronize();
  return row;
}

void CudaEngine::greedyPotentials(const std::vector<float>& candidates, int count, double scale,
                                  long long* potentials) {
  activate();
  const cudaStream_t s = compute_.get();
  reseed_.candidates.resize(candidates.size());
  reseed_.potentials.resize(count);
  KMS_CUDA_CHECK(cudaMemcpyAsync(reseed_.candidates.get(), candidates.data(),
                                 candidates.size() * sizeof(float), cudaMemcpyHostToDevice, s));
  withLabelType([&](auto label_type) {
    using LabelT = decltype(label_type);
    launchGreedyPotentials<LabelT>(
        data_.points.get(), data_.weightsOrNull(), data_.countsOrNull(), data_.n, data_.d,
        run_.centroids[0].get(), reinterpret_cast<const LabelT*>(labelHalf(0)),
        reseed_.candidates.get(), count, scale, reseed_.potentials.get(), s);
  });
  KMS_CUDA_CHECK(cudaMemcpyAsync(potentials, reseed_.potentials.get(), count * sizeof(long long),
                                 cudaMemcpyDeviceToHost, s));
  compute_.synchronize();
}

AllReduceBuffers CudaEngine::allReduceBuffers() {
  auto* scalars = reinterpret_cast<unsigned char*>(run_.scalars.get());
  AllReduceBuffers b;
  b.totals = run_.totals.get();
  b.global_totals = run_.global_totals.get();
  b.columns = run_.totals.size();
  b.inertia = reinterpret_cast<double*>(scalars + offsetof(IterationScalars, inertia));
  b.changed = reinterpret_cast<unsigned long long*>(scalars + offsetof(IterationScalars, changed));
  b.searched =
      reinterpret_cast<unsigned long long*>(scalars + offsetof(IterationScalars, searched));
  b.stream = compute_.get();
  return b;
}

std::vector<float> CudaEngine::currentCentroids() const {
  activate();
  std::vector<float> centred(static_cast<std::size_t>(k_) * data_.d);
  KMS_CUDA_CHECK(cudaMemcpyAsync(centred.data(), run_.centroids[cur_].get(),
                                 centred.size() * sizeof(float), cudaMemcpyDeviceToHost,
                                 compute_.get()));
  compute_.synchronize();
  return centred;
}

std::vector<unsigned char> CudaEngine::emptyFlags() const {
  activate();
  std::vector<unsigned char> flags(k_);
  KMS_CUDA_CHECK(cudaMemcpy(flags.data(), reseed_.empty_flags.get(), k_, cudaMemcpyDeviceToHost));
  return flags;
}

FarthestRound CudaEngine::farthestRound(const PendingStep& step) const {
  return FarthestRound{data_.points.get(),
                       data_.n,
                       data_.d,
                       labelHalf(step.out_half),
                       labelBytes() == 2,
                       run_.centroids[cur_].get(),
                       reseed_.picked_keys.get(),
                       reseed_.picked_points.get(),
                       reseed_.farthest_keys.get(),
                       reseed_.farthest_blocks};
}

void CudaEngine::setNextCentroid(std::size_t row, const float* centroid) {
  activate();
  KMS_CUDA_CHECK(cudaMemcpy(run_.centroids[1 - cur_].get() + row * data_.d, centroid,
                            data_.d * sizeof(float), cudaMemcpyHostToDevice));
}

void CudaEngine::finishReseed(const PendingStep& step) {
  activate();
  const cudaStream_t s = compute_.get();
  launchReshift(run_.centroids[cur_].get(), run_.centroids[1 - cur_].get(), run_.scalars.get(),
                run_.report_device, updateParams(), s);
  if (keepsBounds()) describeCentroids(step);  // the update described the old ones
  events_.after_update.record(s);
}

}  // namespace kms::cuda
