#include "cuda/kernels/exact_checks.cuh"

#include "common/exact_math.h"
#include "cuda/cuda_check.cuh"
#include "cuda/device_memory.cuh"

namespace kms::cuda {
namespace {

__global__ void meanQuotientsKernel(const std::int64_t* sum_q, const int* coord_exp,
                                    const std::int64_t* sum_w, std::size_t n, double* divided,
                                    double* corrected, float* means) {
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const exact::MeanDivisor divisor(sum_w[i], 0);
    const double num = exact::unscaled(sum_q[i], coord_exp[i]);
    divided[i] = __ddiv_rn(num, divisor.den);
    corrected[i] = divisor.quotient(num);
    means[i] = divisor.mean(sum_q[i], coord_exp[i]);
  }
}

template <typename T>
void toDevice(DeviceBuffer<T>& buffer, const std::vector<T>& v) {
  buffer.resize(v.size());
  KMS_CUDA_CHECK(cudaMemcpy(buffer.get(), v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
}

template <typename T>
void toHost(std::vector<T>& v, const DeviceBuffer<T>& buffer, std::size_t n) {
  v.resize(n);
  KMS_CUDA_CHECK(cudaMemcpy(v.data(), buffer.get(), n * sizeof(T), cudaMemcpyDeviceToHost));
}

}  // namespace

void deviceMeanQuotients(const std::vector<std::int64_t>& sum_q, const std::vector<int>& coord_exp,
                         const std::vector<std::int64_t>& sum_w, std::vector<double>& divided,
                         std::vector<double>& corrected, std::vector<float>& means) {
  const std::size_t n = sum_q.size();
  DeviceBuffer<std::int64_t> q, w;
  DeviceBuffer<int> e;
  DeviceBuffer<double> d1, d2;
  DeviceBuffer<float> m;
  toDevice(q, sum_q);
  toDevice(e, coord_exp);
  toDevice(w, sum_w);
  d1.resize(n);
  d2.resize(n);
  m.resize(n);
  meanQuotientsKernel<<<256, 256>>>(q.get(), e.get(), w.get(), n, d1.get(), d2.get(), m.get());
  KMS_CHECK_LAUNCH();
  KMS_CUDA_CHECK(cudaDeviceSynchronize());
  toHost(divided, d1, n);
  toHost(corrected, d2, n);
  toHost(means, m, n);
}

}  // namespace kms::cuda
