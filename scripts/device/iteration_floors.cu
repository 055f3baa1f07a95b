// What one iteration costs at the least on this GPU, timed the way kmeans-bench times the engine:
// two events recorded in a CUDA graph around the kernels, the median of 500 graph launches.
// Its "two empty kernels" row is kmeans-bench's own iteration floor (DeviceCeilings in
// gpu/src/cuda/device_ceilings.cu), repeated here so the other rows have a same-run reference.
// A probe for docs/benchmarks.md ("What an iteration costs at the least"), not part of the build:
//
//   nvcc -O3 -arch=sm_90 -std=c++17 --extended-lambda scripts/device/iteration_floors.cu -o floors
//   ./floors
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                     \
  do {                                                                               \
    const cudaError_t e_ = (x);                                                      \
    if (e_ != cudaSuccess) {                                                         \
      std::printf("%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                  \
    }                                                                                \
  } while (0)

namespace {

/// The size of the engine's IterationReport, give or take.
struct Report {
  double inertia;
  unsigned long long changed;
  int iteration;
  int pad[11];
};

__global__ void emptyKernel() {}

__global__ void reportKernel(Report* r, int* counter) {
  if (threadIdx.x == 0) {
    r->inertia = 1.0;
    r->changed = 2;
    r->iteration = ++*counter;
  }
}

/// Reads every row once — a float, a label byte and a float bound: the inputs of the compact
/// kernels' test for d = 1 — and compares it with its centroid (float arithmetic); each block adds
/// its sum to one double with an atomic (no fixed order: a floor, not the engine's determinism),
/// and the last block to arrive sets the arrival count back.
__global__ void readRowsKernel(const float* x, const unsigned char* label, const float* bound,
                               const float* centroids, std::size_t n, unsigned* arrivals,
                               double* total) {
  __shared__ float c[16];
  if (threadIdx.x < 16) c[threadIdx.x] = centroids[threadIdx.x];
  __syncthreads();
  float sum = 0.0f;
  for (std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x; i < n;
       i += std::size_t(gridDim.x) * blockDim.x) {
    const float d = x[i] - c[label[i] & 15];
    sum += fabsf(d) > bound[i] ? 1.0f : d * d;
  }
  for (int o = 16; o > 0; o >>= 1)
    sum += __shfl_xor_sync(~0u, sum, o);
  __shared__ float warp_sums[32];
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0.0f;
    for (int w = 0; w < int(blockDim.x / 32); ++w)
      t += warp_sums[w];
    atomicAdd(total, double(t));
    __threadfence();
    if (atomicAdd(arrivals, 1u) == gridDim.x - 1) *arrivals = 0;
  }
}

}  // namespace

int main() {
  cudaDeviceProp prop;
  CHECK(cudaGetDeviceProperties(&prop, 0));
  std::printf("%s, %d SMs\n", prop.name, prop.multiProcessorCount);
  const std::size_t n = std::size_t(1) << 20;
  float *x, *bound, *centroids;
  unsigned char* label;
  double* total;
  unsigned* arrivals;
  int* counter;
  CHECK(cudaMalloc(&x, n * sizeof(float)));
  CHECK(cudaMalloc(&bound, n * sizeof(float)));
  CHECK(cudaMalloc(&label, n));
  CHECK(cudaMalloc(&centroids, 16 * sizeof(float)));
  CHECK(cudaMemset(x, 0, n * sizeof(float)));
  CHECK(cudaMemset(bound, 0x7f, n * sizeof(float)));
  CHECK(cudaMemset(label, 0, n));
  CHECK(cudaMemset(centroids, 0, 16 * sizeof(float)));
  CHECK(cudaMalloc(&total, sizeof(double)));
  CHECK(cudaMalloc(&arrivals, sizeof(unsigned)));
  CHECK(cudaMemset(arrivals, 0, sizeof(unsigned)));
  CHECK(cudaMalloc(&counter, sizeof(int)));
  CHECK(cudaMemset(counter, 0, sizeof(int)));
  Report* host_report;
  Report* mapped_report;
  Report* device_report;
  CHECK(cudaHostAlloc(&host_report, sizeof(Report), cudaHostAllocMapped));
  CHECK(cudaHostGetDevicePointer(&mapped_report, host_report, 0));
  CHECK(cudaMalloc(&device_report, sizeof(Report)));
  cudaStream_t s;
  CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t start, stop;
  CHECK(cudaEventCreate(&start));
  CHECK(cudaEventCreate(&stop));
  int per_sm = 0;
  CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, readRowsKernel, 256, 0));
  const int grid = prop.multiProcessorCount * std::min(per_sm, 8);

  const auto time = [&](const char* what, auto enqueue) {
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    CHECK(cudaEventRecordWithFlags(start, s, cudaEventRecordExternal));
    enqueue();
    CHECK(cudaEventRecordWithFlags(stop, s, cudaEventRecordExternal));
    CHECK(cudaStreamEndCapture(s, &graph));
    CHECK(cudaGraphInstantiate(&exec, graph, 0));
    std::vector<float> ms;
    for (int i = 0; i < 520; ++i) {
      CHECK(cudaGraphLaunch(exec, s));
      CHECK(cudaEventSynchronize(stop));
      float t = 0.0f;
      CHECK(cudaEventElapsedTime(&t, start, stop));
      if (i >= 20) ms.push_back(t);  // after warm-up
    }
    std::sort(ms.begin(), ms.end());
    std::printf("%-86s median %.4f ms, min %.4f\n", what, ms[ms.size() / 2], ms.front());
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(graph));
  };
  time("one empty kernel", [&] { emptyKernel<<<1, 32, 0, s>>>(); });
  time("two empty kernels (kmeans-bench's iteration floor)", [&] {
    emptyKernel<<<1, 32, 0, s>>>();
    emptyKernel<<<1, 32, 0, s>>>();
  });
  time("one kernel writing a 64-byte report to mapped host memory",
       [&] { reportKernel<<<1, 32, 0, s>>>(mapped_report, counter); });
  time("one kernel writing the report to device memory",
       [&] { reportKernel<<<1, 32, 0, s>>>(device_report, counter); });
  char what[160];
  std::snprintf(what, sizeof what,
                "reading 1 M rows of 9 bytes (in L2), %d blocks, their sums added atomically",
                grid);
  time(what, [&] {
    readRowsKernel<<<grid, 256, 0, s>>>(x, label, bound, centroids, n, arrivals, total);
  });
  time("the same, then a kernel writing the report to mapped host memory", [&] {
    readRowsKernel<<<grid, 256, 0, s>>>(x, label, bound, centroids, n, arrivals, total);
    reportKernel<<<1, 32, 0, s>>>(mapped_report, counter);
  });
  return 0;
}
