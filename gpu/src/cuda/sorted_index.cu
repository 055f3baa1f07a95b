#include "cuda/sorted_index.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cmath>

#include "common/exact_math.h"
#include "cuda/cuda_check.cuh"

namespace kms::cuda {
namespace {

constexpr int kThreads = 256;

unsigned blocksFor(std::size_t items) {
  return static_cast<unsigned>((items + kThreads - 1) / kThreads);
}

__global__ void iotaKernel(std::uint32_t* index, std::size_t n) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i < n) index[i] = static_cast<std::uint32_t>(i);
}

/// Each sorted position's terms of the four prefix sums (position n: zeros, so that the
/// exclusive scans end with the totals), and its count.
__global__ void termsKernel(const float* __restrict__ values,
                            const std::uint32_t* __restrict__ counts,
                            const std::uint32_t* __restrict__ origin, std::size_t n,
                            float coord_scale, double inertia_scale, long long* term_q,
                            long long* term_w, __int128* term_b, __int128* term_a) {
  const std::size_t p = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (p > n) return;
  if (p == n) {
    term_q[p] = term_w[p] = 0;
    term_b[p] = term_a[p] = 0;
    return;
  }
  const float x = values[p];
  const std::uint32_t w = counts ? counts[origin[p]] : 1u;
  // Exactly the compact kernels' and the CPU's w·quantize(x): the centroids come from these.
  term_q[p] = static_cast<long long>(w) * exact::quantize(x, coord_scale);
  term_w[p] = w;
  // The inertia grid: x·2^e is exact in double (a float times a power of two); |qᵢ| ≤ 2^bits.
  const long long qi = __double2ll_rn(__dmul_rn(static_cast<double>(x), inertia_scale));
  term_b[p] = static_cast<__int128>(w) * qi;
  term_a[p] = static_cast<__int128>(w) * (static_cast<__int128>(qi) * qi);
}

/// The scanned prefix sums side by side.
__global__ void packKernel(const long long* __restrict__ sum_q, const long long* __restrict__ sum_w,
                           const __int128* __restrict__ sum_b, const __int128* __restrict__ sum_a,
                           std::size_t n, SortedPrefix* prefix) {
  const std::size_t p = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (p <= n) prefix[p] = {sum_q[p], sum_w[p], sum_b[p], sum_a[p]};
}

__global__ void samplesKernel(const float* __restrict__ values, std::size_t step, int count,
                              float* samples) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < count) samples[s] = values[static_cast<std::size_t>(s) * step];
}

struct Plus {
  template <typename T>
  __host__ __device__ __forceinline__ T operator()(const T& a, const T& b) const {
    return a + b;
  }
};

/// out[0..n] ← exclusive prefix sums of in[0..n] (in[n] = 0, so out[n] is the total).
template <typename T>
void exclusiveScan(const T* in, T* out, std::size_t count, cudaStream_t stream) {
  std::size_t scratch_bytes = 0;
  KMS_CUDA_CHECK(
      cub::DeviceScan::ExclusiveScan(nullptr, scratch_bytes, in, out, Plus{}, T(0), count, stream));
  DeviceBuffer<unsigned char> scratch(scratch_bytes);
  KMS_CUDA_CHECK(cub::DeviceScan::ExclusiveScan(scratch.get(), scratch_bytes, in, out, Plus{}, T(0),
                                                count, stream));
  KMS_CUDA_CHECK(cudaStreamSynchronize(stream));  // the scratch goes out of scope
}

}  // namespace

std::size_t SortedIndex::bytesFor(std::size_t n) {
  return (n + 1) * sizeof(SortedPrefix) +
         n * (sizeof(float) + sizeof(std::uint32_t) + 2 * sizeof(unsigned short)) +
         kMaxSamples * sizeof(float);
}

std::size_t SortedIndex::buildBytesFor(std::size_t n) {
  // The sort's index, four terms and four scanned arrays, scratch.
  return bytesFor(n) + n * sizeof(std::uint32_t) +
         2 * (n + 1) * (2 * sizeof(long long) + 2 * sizeof(__int128)) + (16u << 20);
}

int SortedIndex::inertiaExponent(double reach, double total_weight, int& bits) {
  // Σ w·qᵢ² < total·2^(2·bits); the iteration's Σ w·(qᵢ − M)² = A − 2·M·B + M²·W stays below
  // 2^(2·bits + log₂ total + 3) ≤ 2^125 with |M| ≤ 2^bits.
  const int total_bits = std::max(1, std::ilogb(std::max(1.0, total_weight)) + 1);
  bits = std::min(60, (122 - total_bits) / 2);
  if (!(reach > 0.0)) return 0;
  return bits - (std::ilogb(reach) + 1);  // reach·2^e < 2^bits
}

std::size_t SortedIndex::bytes() const {
  return values_.bytes() + prefix_.bytes() + origin_.bytes() + samples_.bytes() + mixed_.bytes();
}

void SortedIndex::release() noexcept {
  n_ = 0;
  sample_count_ = 0;
  values_.release();
  prefix_.release();
  origin_.release();
  samples_.release();
  mixed_.release();
}

void SortedIndex::build(const float* points, const std::uint32_t* counts, std::size_t n,
                        float coord_scale, int inertia_exp, cudaStream_t stream) {
  release();
  if (n == 0) return;
  values_.resize(n);
  origin_.resize(n);
  {
    // A stable radix sort of the float values (its order of −0 and +0 is immaterial: every
    // centroid is at the same distance from both).
    DeviceBuffer<std::uint32_t> index(n);
    iotaKernel<<<blocksFor(n), kThreads, 0, stream>>>(index.get(), n);
    KMS_CHECK_LAUNCH();
    std::size_t scratch_bytes = 0;
    KMS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, scratch_bytes, points, values_.get(),
                                                   index.get(), origin_.get(), n, 0, 32, stream));
    DeviceBuffer<unsigned char> scratch(scratch_bytes);
    KMS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(scratch.get(), scratch_bytes, points,
                                                   values_.get(), index.get(), origin_.get(), n, 0,
                                                   32, stream));
    KMS_CUDA_CHECK(cudaStreamSynchronize(stream));  // the sort's buffers go out of scope
  }
  prefix_.resize(n + 1);
  {
    DeviceBuffer<long long> term_q(n + 1), term_w(n + 1), sum_q(n + 1), sum_w(n + 1);
    DeviceBuffer<__int128> term_b(n + 1), term_a(n + 1), sum_b(n + 1), sum_a(n + 1);
    termsKernel<<<blocksFor(n + 1), kThreads, 0, stream>>>(
        values_.get(), counts, origin_.get(), n, coord_scale, std::ldexp(1.0, inertia_exp),
        term_q.get(), term_w.get(), term_b.get(), term_a.get());
    KMS_CHECK_LAUNCH();
    exclusiveScan(term_q.get(), sum_q.get(), n + 1, stream);
    exclusiveScan(term_w.get(), sum_w.get(), n + 1, stream);
    exclusiveScan(term_b.get(), sum_b.get(), n + 1, stream);
    exclusiveScan(term_a.get(), sum_a.get(), n + 1, stream);
    packKernel<<<blocksFor(n + 1), kThreads, 0, stream>>>(sum_q.get(), sum_w.get(), sum_b.get(),
                                                          sum_a.get(), n, prefix_.get());
    KMS_CHECK_LAUNCH();
    KMS_CUDA_CHECK(cudaStreamSynchronize(stream));  // the temporaries go out of scope
  }
  sample_step_ = std::max<std::size_t>(1, (n + kMaxSamples - 1) / kMaxSamples);
  sample_count_ = static_cast<int>((n + sample_step_ - 1) / sample_step_);
  samples_.resize(sample_count_);
  samplesKernel<<<blocksFor(sample_count_), kThreads, 0, stream>>>(values_.get(), sample_step_,
                                                                   sample_count_, samples_.get());
  KMS_CHECK_LAUNCH();
  mixed_.resize(2 * n);
  KMS_CUDA_CHECK(cudaStreamSynchronize(stream));
  n_ = n;
  inertia_exp_ = inertia_exp;
}

}  // namespace kms::cuda
