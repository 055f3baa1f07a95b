// Is there a device the CUDA backend can run on? Any failure reads as "no", with the reason.
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_engine.cuh"
#include "cuda/multi/sharded_engine.cuh"
#include "kmeans/errors.h"

namespace kms::cuda {

CudaStatus probe(int device) {
  CudaStatus status;
  status.compiled = true;
  int count = 0;
  const cudaError_t error = cudaGetDeviceCount(&count);
  if (error != cudaSuccess) {
    cudaGetLastError();  // clear the sticky error
    status.reason = std::string("no usable CUDA device (") + cudaGetErrorString(error) + ")";
    return status;
  }
  status.device_count = count;
  if (count == 0) {
    status.reason = "no CUDA device found";
    return status;
  }
  if (device < 0 || device >= count) {
    status.reason = "CUDA device " + std::to_string(device) + " does not exist (" +
                    std::to_string(count) + " found)";
    return status;
  }
  cudaDeviceProp props{};
  if (cudaGetDeviceProperties(&props, device) != cudaSuccess) {
    cudaGetLastError();
    status.reason = "cannot query CUDA device " + std::to_string(device);
    return status;
  }
  if (props.major * 10 + props.minor < 75) {
    status.reason = std::string(props.name) + " has compute capability " +
                    std::to_string(props.major) + "." + std::to_string(props.minor) +
                    "; KMeans Studio needs 7.5 or newer";
    return status;
  }
  status.available = true;
  status.device = props.name;
  return status;
}

namespace {

/// The GPUs a run uses: every device, the listed ones, or cuda_device alone. Each must exist
/// and be usable (DeviceError naming the first that is not).
std::vector<int> devicesFor(const EngineOptions& options) {
  std::vector<int> devices = options.cuda_devices;
  if (options.cuda_all_devices) {
    const CudaStatus status = probe(0);
    if (!status.available) throw DeviceError("CUDA backend unavailable: " + status.reason);
    devices.clear();
    for (int device = 0; device < status.device_count; ++device)
      devices.push_back(device);
  }
  if (devices.empty()) devices.push_back(options.cuda_device);
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const CudaStatus status = probe(devices[i]);
    if (!status.available) throw DeviceError("CUDA backend unavailable: " + status.reason);
    for (std::size_t j = 0; j < i; ++j)
      if (devices[j] == devices[i])
        throw DeviceError("CUDA device " + std::to_string(devices[i]) + " is listed twice");
  }
  return devices;
}

}  // namespace

std::unique_ptr<Engine> createEngine(const TestingOptions& options) {
  if (options.collective && options.collective->size() > 1) {
    // One process of a run over several: its GPU, connected to the others' through NCCL.
    const CudaStatus status = probe(options.cuda_device);
    if (!status.available) throw DeviceError("CUDA backend unavailable: " + status.reason);
    return std::make_unique<ShardedEngine>(std::vector<int>{options.cuda_device}, options,
                                           options.collective);
  }
  const std::vector<int> devices = devicesFor(options);
  if (devices.size() > 1) return std::make_unique<ShardedEngine>(devices, options);
  TestingOptions one = options;
  one.cuda_device = devices.front();
  return createSingleEngine(one);
}

std::unique_ptr<Engine> createSingleEngine(const TestingOptions& options) {
  const CudaStatus status = probe(options.cuda_device);
  if (!status.available) throw DeviceError("CUDA backend unavailable: " + status.reason);
  return std::make_unique<CudaEngine>(options.cuda_device, options);
}

}  // namespace kms::cuda
