// CudaEngine's initialisation: the run prepared, then the starting centroids — random rows,
// k-means++ or greedy k-means++ on the device (the host places each draw with the same numbers
// as the CPU backend), or given ones.
#include "cuda/cuda_engine.cuh"

#include <vector>

#include "common/centring.h"
#include "common/exact_math.h"
#include "common/seeding.h"
#include "cuda/kernels/init_kernels.cuh"
#include "cuda/nvtx.cuh"

namespace kms::cuda {

void CudaEngine::initialize(const KMeansConfig& config) {
  const NvtxRange range("kms: prepare and seed");
  prepareRun(config);
  const std::size_t kd = static_cast<std::size_t>(k_) * data_.d;
  const cudaStream_t s = compute_.get();
  switch (config.init) {
    case InitMethod::Random: {
      std::vector<std::uint32_t> host_counts;
      if (data_.counts.size()) {
        host_counts.resize(data_.n);
        KMS_CUDA_CHECK(cudaMemcpy(host_counts.data(), data_.counts.get(),
                                  data_.n * sizeof(std::uint32_t),
                                  cudaMemcpyDefault));  // device or mapped host memory
      }
      const auto picks = data_.counts.size() ? seeding::weightedDistinctIndices(
                                                   host_counts.data(), data_.n, k_, config.seed)
                                             : seeding::distinctIndices(data_.n, k_, config.seed);
      const std::vector<unsigned long long> indices(picks.begin(), picks.end());
      DeviceBuffer<unsigned long long> device_indices(k_);
      KMS_CUDA_CHECK(cudaMemcpyAsync(device_indices.get(), indices.data(),
                                     k_ * sizeof(unsigned long long), cudaMemcpyHostToDevice, s));
      launchGather(data_.points.get(), data_.d, device_indices.get(), k_, run_.centroids[0].get(),
                   s);
      compute_.synchronize();
      break;
    }
    case InitMethod::KMeansPlusPlus:
    case InitMethod::GreedyKMeansPlusPlus:
      withLabelType([&](auto label_type) {
        initPlusPlus<decltype(label_type)>(config.init == InitMethod::GreedyKMeansPlusPlus);
      });
      break;
    case InitMethod::KMeansParallel:
      initParallel();
      break;
    case InitMethod::Given: {
      const std::vector<float> centred = givenCentred(config, data_.summary.mid);
      KMS_CUDA_CHECK(cudaMemcpyAsync(run_.centroids[0].get(), centred.data(), kd * sizeof(float),
                                     cudaMemcpyHostToDevice, s));
      compute_.synchronize();
      break;
    }
  }
  startRun();
}

template <typename LabelT>
void CudaEngine::initPlusPlus(bool greedy) {
  auto* nearest = reinterpret_cast<LabelT*>(labelHalf(0));
  const float* weights = data_.weights.size() ? data_.weights.get() : nullptr;
  const std::uint32_t* counts = data_.counts.size() ? data_.counts.get() : nullptr;
  const cudaStream_t s = compute_.get();
  const int count = greedy ? seeding::greedyCandidates(k_) : 1;
  DeviceBuffer<float> candidates(greedy ? static_cast<std::size_t>(count) * data_.d : 0);
  DeviceBuffer<long long> potentials(greedy ? count : 0);
  const double scale = seeding::potentialScale(data_.summary);  // the CPU backend's
  for (int j = 0; j < k_; ++j) {
    if (!greedy || j == 0) {
      launchPlusPlusStep<LabelT>(
          data_.points.get(), weights, counts, data_.n, data_.d, run_.centroids[0].get(), j,
          seeding::plusPlusUniform(config_.seed, j), nearest, run_.chunk_sums.get(), s);
      continue;
    }
    double u[kMaxGreedyCandidates];
    for (int l = 0; l < count; ++l)
      u[l] = seeding::greedyUniform(config_.seed, j, l);
    launchGreedyStep<LabelT>(data_.points.get(), weights, counts, data_.n, data_.d,
                             run_.centroids[0].get(), j, u, count, scale, nearest,
                             run_.chunk_sums.get(), candidates.get(), potentials.get(), s);
    long long host[kMaxGreedyCandidates];
    KMS_CUDA_CHECK(cudaMemcpyAsync(host, potentials.get(), sizeof(long long) * count,
                                   cudaMemcpyDeviceToHost, s));
    compute_.synchronize();
    int best = 0;
    for (int l = 1; l < count; ++l)  // ties keep the earlier candidate
      if (host[l] < host[best]) best = l;
    KMS_CUDA_CHECK(cudaMemcpyAsync(run_.centroids[0].get() + static_cast<std::size_t>(j) * data_.d,
                                   candidates.get() + static_cast<std::size_t>(best) * data_.d,
                                   sizeof(float) * data_.d, cudaMemcpyDeviceToDevice, s));
  }
  compute_.synchronize();  // the candidate buffers go out of scope
}

}  // namespace kms::cuda
