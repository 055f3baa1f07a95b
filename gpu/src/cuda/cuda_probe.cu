// Is there a device the CUDA backend can run on? Any failure reads as "no", with the reason.
#include <cuda_runtime.h>

#include <string>

#include "cuda/cuda_backend.h"
#include "cuda/cuda_engine.cuh"
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

std::unique_ptr<Engine> createEngine(const EngineOptions& options) {
  const CudaStatus status = probe(options.cuda_device);
  if (!status.available) throw DeviceError("CUDA backend unavailable: " + status.reason);
  auto engine = std::make_unique<CudaEngine>(options.cuda_device, options.max_device_bytes,
                                             options.cuda_tensor_cores);
  engine->injectFaultAt(options.cuda_fault_at_iteration);
  return engine;
}

}  // namespace kms::cuda
