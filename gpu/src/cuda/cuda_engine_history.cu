// CudaEngine: looking back — labels for given centroids (Engine::assign) and the record of
// every iteration's centroids (KMeansConfig::keep_history). See docs/engine.md.
#include "common/centring.h"
#include "cuda/cuda_engine.cuh"
#include "cuda/kernels/exact_assign.cuh"
#include "cuda/nvtx.cuh"
#include "kmeans/errors.h"

namespace kms::cuda {

void CudaEngine::assign(const std::vector<float>& centred_centroids,
                        std::vector<std::int32_t>& labels) {
  const NvtxRange range("kms: assign");
  activate();
  if (!data_.loaded) throw std::logic_error("CudaEngine::assign called before setData");
  const int k = validateCentroidCount(centred_centroids.size(), data_.d);
  // On the compute stream, after any iteration in flight (the points never change).
  const std::size_t bytes =
      data_.n * sizeof(std::int32_t) + centred_centroids.size() * sizeof(float);
  yieldChunksFor(bytes, 0);  // the run then reads streamed data in place
  checkFits(bytes, "Recomputing the labels", 0);
  DeviceBuffer<float> centroids(centred_centroids.size());
  DeviceBuffer<std::int32_t> out(data_.n);
  KMS_CUDA_CHECK(cudaMemcpyAsync(centroids.get(), centred_centroids.data(),
                                 centred_centroids.size() * sizeof(float), cudaMemcpyHostToDevice,
                                 compute_.get()));
  launchExactAssign(data_.points.get(), data_.n, data_.d, centroids.get(), k, out.get(),
                    compute_.get());
  labels.resize(data_.n);
  KMS_CUDA_CHECK(cudaMemcpyAsync(labels.data(), out.get(), data_.n * sizeof(std::int32_t),
                                 cudaMemcpyDeviceToHost, compute_.get()));
  compute_.synchronize();
}

Engine::CentroidsNow CudaEngine::centroidsForHistory() const {
  return {currentCentroids(), &data_.summary.mid};
}

}  // namespace kms::cuda
