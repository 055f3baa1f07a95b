// Copy bandwidth and FP32 throughput measured on the device itself, so benchmark fractions are
// relative to what this card really does, not to a datasheet.
#include <algorithm>
#include <cstring>
#include <vector>

#include "cuda/cuda_backend.h"
#include "cuda/device_memory.cuh"
#include "cuda/kernels/tf32_mma.cuh"
#include "kmeans/device_ceilings.h"

namespace kms {
namespace {

constexpr int kFmaThreads = 256;
constexpr int kFmaChains = 8;
constexpr int kFmaIterations = 4096;

/// kFmaChains independent FMA chains per thread; the result is stored only if it is a value
/// that never occurs, so the compiler must compute everything.
__global__ void __launch_bounds__(kFmaThreads) fmaKernel(float seed, float* sink) {
  float v[kFmaChains];
#pragma unroll
  for (int c = 0; c < kFmaChains; ++c)
    v[c] = seed + c + threadIdx.x * 1e-3f;
  const float a = 0.9999f, b = 1e-4f;
  for (int i = 0; i < kFmaIterations; ++i)
#pragma unroll
    for (int c = 0; c < kFmaChains; ++c)
      v[c] = fmaf(v[c], a, b);
  float s = 0.0f;
#pragma unroll
  for (int c = 0; c < kFmaChains; ++c)
    s += v[c];
  if (s == -12345.0f) *sink = s;
}

constexpr int kMmaThreads = 256;
constexpr int kMmaChains = 4;
constexpr int kMmaIterations = 2048;

/// kMmaChains independent TF32 m16n8k8 accumulations per warp (2·16·8·8 flops each), operands
/// in registers: the tensor cores' sustained rate for the kernels' instruction.
__global__ void __launch_bounds__(kMmaThreads) mmaKernel(float seed, float* sink) {
  const float lane = threadIdx.x * 1e-3f;
  const uint4 a = make_uint4(cuda::toTf32(seed + lane), cuda::toTf32(seed + 1 + lane),
                             cuda::toTf32(seed + 2 + lane), cuda::toTf32(seed + 3 + lane));
  const uint2 b = make_uint2(cuda::toTf32(seed * 0.5f), cuda::toTf32(seed * 0.25f));
  float c[kMmaChains][4] = {};
  for (int i = 0; i < kMmaIterations; ++i)
#pragma unroll
    for (int chain = 0; chain < kMmaChains; ++chain)
      cuda::mmaTf32(c[chain], a, b);
  float s = 0.0f;
#pragma unroll
  for (int chain = 0; chain < kMmaChains; ++chain)
    s += c[chain][0] + c[chain][1] + c[chain][2] + c[chain][3];
  if (s == -12345.0f) *sink = s;
}

/// Does nothing: the iteration floor's stand-in for the assignment and the update.
__global__ void emptyKernel() {}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// Median milliseconds of `enqueue` on `stream` (CUDA events) over `runs` runs after two
/// warm-up runs.
template <typename Enqueue>
double medianMs(cudaStream_t stream, int runs, Enqueue&& enqueue) {
  cuda::Event start, stop;
  std::vector<double> ms;
  for (int r = 0; r < runs + 2; ++r) {
    start.record(stream);
    enqueue();
    stop.record(stream);
    stop.synchronize();
    if (r >= 2) ms.push_back(stop.msSince(start));
  }
  return median(ms);
}

}  // namespace

std::optional<DeviceCeilings> measureDeviceCeilings(int device) {
  const CudaStatus status = cuda::probe(device);
  if (!status.available) return std::nullopt;
  KMS_CUDA_CHECK(cudaSetDevice(device));
  cudaDeviceProp props{};
  KMS_CUDA_CHECK(cudaGetDeviceProperties(&props, device));
  DeviceCeilings ceilings;
  ceilings.device = props.name;
  cuda::Stream stream;
  const cudaStream_t s = stream.get();

  // Copy: 1 GiB device to device, counted as bytes read plus bytes written.
  const std::size_t bytes = std::size_t(1) << 30;
  cuda::DeviceBuffer<unsigned char> src(bytes), dst(bytes);
  KMS_CUDA_CHECK(cudaMemsetAsync(src.get(), 1, bytes, s));
  const double copy_ms = medianMs(s, 10, [&] {
    KMS_CUDA_CHECK(cudaMemcpyAsync(dst.get(), src.get(), bytes, cudaMemcpyDeviceToDevice, s));
  });
  ceilings.copy_gbs = 2.0 * bytes / (copy_ms * 1e-3) / 1e9;

  // Host to device: 256 MiB from page-locked memory (what streamed data can come in at).
  const std::size_t host_bytes = std::size_t(256) << 20;
  cuda::PinnedBuffer<unsigned char> host(host_bytes, /*mapped=*/false);
  std::memset(host.get(), 1, host_bytes);
  const double h2d_ms = medianMs(s, 5, [&] {
    KMS_CUDA_CHECK(cudaMemcpyAsync(dst.get(), host.get(), host_bytes, cudaMemcpyHostToDevice, s));
  });
  ceilings.host_to_device_gbs = host_bytes / (h2d_ms * 1e-3) / 1e9;

  // FP32 FMA throughput over a grid that fills every multiprocessor several times.
  cuda::DeviceBuffer<float> sink(1);
  const int blocks = props.multiProcessorCount * 16;
  const double fma_ms = medianMs(s, 5, [&] {
    fmaKernel<<<blocks, kFmaThreads, 0, s>>>(1.0f, sink.get());
    KMS_CHECK_LAUNCH();
  });
  const double flops = 2.0 * blocks * kFmaThreads * double(kFmaIterations) * kFmaChains;
  ceilings.fp32_gflops = flops / (fma_ms * 1e-3) / 1e9;

  // TF32 tensor-core throughput (mma.sync, as the tensor assignment kernel issues it).
  if (props.major >= 8) {
    const double mma_ms = medianMs(s, 5, [&] {
      mmaKernel<<<blocks, kMmaThreads, 0, s>>>(1.0f, sink.get());
      KMS_CHECK_LAUNCH();
    });
    const double mma_flops =
        2.0 * 16 * 8 * 8 * blocks * (kMmaThreads / 32) * double(kMmaIterations) * kMmaChains;
    ceilings.tf32_gflops = mma_flops / (mma_ms * 1e-3) / 1e9;
  }
  // The iteration floor: two empty dependent kernels between two events in one graph, timed
  // the way CudaEngine times a compact iteration.
  {
    cuda::Event start, stop;
    const cuda::GraphExec graph = cuda::GraphExec::capture(s, [&] {
      start.recordInGraph(s);
      emptyKernel<<<2 * props.multiProcessorCount, 256, 0, s>>>();
      KMS_CHECK_LAUNCH();
      emptyKernel<<<1, 256, 0, s>>>();
      KMS_CHECK_LAUNCH();
      stop.recordInGraph(s);
    });
    std::vector<double> ms;
    for (int r = 0; r < 210; ++r) {
      graph.launch(s);
      stop.synchronize();
      if (r >= 10) ms.push_back(stop.msSince(start));
    }
    ceilings.iteration_floor_ms = median(ms);
  }
  return ceilings;
}

}  // namespace kms
