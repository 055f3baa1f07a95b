// k-means|| on the CUDA engine (common/parallel_seeding.h): one GPU's rows as a holder of the
// seeding's passes — the rows' D² and nearest candidate on the device, each round's candidates
// copied in, the sampled rows' indices and the candidates' weights copied out — and
// CudaEngine::initParallel for a run on one GPU (ShardedEngine drives one holder per GPU).
#include <algorithm>
#include <vector>

#include "common/parallel_seeding.h"
#include "common/seeding.h"
#include "cuda/cuda_engine.cuh"
#include "cuda/kernels/init_kernels.cuh"
#include "cuda/kernels/parallel_seeding_kernels.cuh"
#include "cuda/nvtx.cuh"
#include "kmeans/collective.h"

namespace kms::cuda {

class CudaEngine::ParallelRows final : public seeding::ParallelSeedingRows {
 public:
  ParallelRows(CudaEngine& engine, std::size_t first_global_row)
      : e_(engine), first_global_row_(first_global_row) {
    e_.activate();
    d2_.resize(e_.data_.n);
    nearest_.resize(e_.data_.n);
    scalar_.resize(1);
    host_scalar_.resize(1);
  }

  std::size_t firstGlobalRow() const override { return first_global_row_; }
  std::size_t rowCount() const override { return e_.data_.n; }

  void lowerWith(const float* candidates, std::size_t first, std::size_t count,
                 double scale) override {
    e_.activate();
    const cudaStream_t s = e_.compute_.get();
    const std::size_t d = static_cast<std::size_t>(e_.data_.d);
    candidates_.resize(std::max(candidates_.size(), count * d));
    KMS_CUDA_CHECK(cudaMemcpyAsync(candidates_.get(), candidates, count * d * sizeof(float),
                                   cudaMemcpyHostToDevice, s));
    KMS_CUDA_CHECK(cudaMemsetAsync(scalar_.get(), 0, sizeof(unsigned long long), s));
    launchParallelLower(e_.data_.points.get(), e_.data_.weightsOrNull(), e_.data_.countsOrNull(),
                        e_.data_.n, e_.data_.d, candidates_.get(), first, count, scale, d2_.get(),
                        nearest_.get(), scalar_.get(), s);
    enqueueScalarCopy();
  }
  std::int64_t lowered() override { return static_cast<std::int64_t>(readScalar()); }

  void sampleRound(std::uint64_t seed, int round, std::int64_t potential, double oversampling,
                   double scale) override {
    sample_ = {seed, round, potential, oversampling, scale};
    // Room for four times the expected number; a larger draw runs again with room for it.
    enqueueSample(
        std::max<std::size_t>(taken_.size(), static_cast<std::size_t>(4 * oversampling) + 1024));
  }

  std::vector<std::size_t> sampled() override {
    std::size_t taken = readScalar();
    if (taken > taken_.size()) {
      enqueueSample(taken);
      taken = readScalar();
    }
    std::vector<unsigned long long> rows(taken);
    e_.activate();
    KMS_CUDA_CHECK(cudaMemcpy(rows.data(), taken_.get(), taken * sizeof(unsigned long long),
                              cudaMemcpyDeviceToHost));
    std::sort(rows.begin(), rows.end());  // the kernel appends in any order
    return std::vector<std::size_t>(rows.begin(), rows.end());
  }

  void centredRows(const std::vector<std::size_t>& rows, float* out) override {
    if (rows.empty()) return;
    // One gather on the device for a round's ~2k rows (a copy each cost ~10 µs).
    e_.activate();
    const cudaStream_t s = e_.compute_.get();
    const std::vector<unsigned long long> indices(rows.begin(), rows.end());
    const std::size_t values = rows.size() * static_cast<std::size_t>(e_.data_.d);
    DeviceBuffer<unsigned long long> device_indices(indices.size());
    DeviceBuffer<float> gathered(values);
    KMS_CUDA_CHECK(cudaMemcpyAsync(device_indices.get(), indices.data(),
                                   indices.size() * sizeof(unsigned long long),
                                   cudaMemcpyHostToDevice, s));
    launchGather(e_.data_.points.get(), e_.data_.d, device_indices.get(),
                 static_cast<int>(indices.size()), gathered.get(), s);
    KMS_CUDA_CHECK(
        cudaMemcpyAsync(out, gathered.get(), values * sizeof(float), cudaMemcpyDeviceToHost, s));
    e_.compute_.synchronize();  // before the buffers go
  }

  void sumCandidateWeights(std::size_t count, double weight_scale) override {
    e_.activate();
    const cudaStream_t s = e_.compute_.get();
    sums_.resize(count);
    host_sums_.resize(count);
    count_ = count;
    KMS_CUDA_CHECK(cudaMemsetAsync(sums_.get(), 0, count * sizeof(unsigned long long), s));
    launchParallelWeights(e_.data_.weightsOrNull(), e_.data_.countsOrNull(), e_.data_.n,
                          nearest_.get(), count, weight_scale, sums_.get(), s);
    KMS_CUDA_CHECK(cudaMemcpyAsync(host_sums_.get(), sums_.get(),
                                   count * sizeof(unsigned long long), cudaMemcpyDeviceToHost, s));
  }

  void addCandidateWeights(std::int64_t* sums) override {
    e_.activate();
    e_.compute_.synchronize();
    for (std::size_t j = 0; j < count_; ++j)
      sums[j] =
          static_cast<std::int64_t>(static_cast<unsigned long long>(sums[j]) + host_sums_.get()[j]);
  }

  void release() override {
    e_.activate();
    e_.compute_.synchronize();
    d2_.release();
    nearest_.release();
    candidates_.release();
    taken_.release();
    sums_.release();
  }

 private:
  struct SampleArgs {
    std::uint64_t seed = 0;
    int round = 0;
    std::int64_t potential = 0;
    double oversampling = 0.0, scale = 1.0;
  };

  void enqueueSample(std::size_t capacity) {
    e_.activate();
    const cudaStream_t s = e_.compute_.get();
    taken_.resize(capacity);
    KMS_CUDA_CHECK(cudaMemsetAsync(scalar_.get(), 0, sizeof(unsigned long long), s));
    launchParallelSample(e_.data_.weightsOrNull(), e_.data_.countsOrNull(), e_.data_.n, d2_.get(),
                         sample_.seed, sample_.round, first_global_row_, sample_.potential,
                         sample_.oversampling, sample_.scale, taken_.get(), capacity, scalar_.get(),
                         s);
    enqueueScalarCopy();
  }
  /// The scalar result to pinned host memory, behind the pass that wrote it.
  void enqueueScalarCopy() {
    KMS_CUDA_CHECK(cudaMemcpyAsync(host_scalar_.get(), scalar_.get(), sizeof(unsigned long long),
                                   cudaMemcpyDeviceToHost, e_.compute_.get()));
  }
  unsigned long long readScalar() {
    e_.activate();
    e_.compute_.synchronize();
    return *host_scalar_.get();
  }

  CudaEngine& e_;
  std::size_t first_global_row_;
  DeviceBuffer<float> d2_;
  DeviceBuffer<std::uint32_t> nearest_;
  DeviceBuffer<float> candidates_;
  DeviceBuffer<unsigned long long> taken_;
  DeviceBuffer<unsigned long long> scalar_;
  PinnedBuffer<unsigned long long> host_scalar_;
  DeviceBuffer<unsigned long long> sums_;
  PinnedBuffer<unsigned long long> host_sums_;  ///< the copy runs beside the other GPUs' passes
  std::size_t count_ = 0;                       ///< candidates of sumCandidateWeights
  SampleArgs sample_;
};

seeding::ReclusterEngineFactory CudaEngine::reclusterOnThisGpu() const {
  return [device = device_] {
    EngineOptions options;
    options.cuda_device = device;
    return createEngine(BackendKind::Cuda, options).engine;
  };
}

std::unique_ptr<seeding::ParallelSeedingRows> CudaEngine::parallelSeedingRows(
    std::size_t first_global_row) {
  return std::make_unique<ParallelRows>(*this, first_global_row);
}

void CudaEngine::initParallel() {
  const NvtxRange range("kms: k-means|| seeding");
  ParallelRows rows(*this, 0);
  const std::vector<float> centred = seeding::seedKMeansParallel(
      {&rows}, *soloCollective(), data_.n, data_.summary, k_, data_.d, config_.seed,
      [this] { return interruptRequested(); }, reclusterOnThisGpu());
  KMS_CUDA_CHECK(cudaMemcpy(run_.centroids[0].get(), centred.data(), centred.size() * sizeof(float),
                            cudaMemcpyHostToDevice));
}

}  // namespace kms::cuda
