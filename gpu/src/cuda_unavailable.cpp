// Stands in for the CUDA backend in builds without nvcc.
#include "cuda/cuda_backend.h"
#include "kmeans/compact.h"
#include "kmeans/device_ceilings.h"
#include "kmeans/errors.h"

namespace kms::cuda {

CudaStatus probe(int) {
  CudaStatus status;
  status.compiled = false;
  status.available = false;
  status.reason = "this build of KMeans Studio has no CUDA backend (configured without nvcc)";
  return status;
}

std::unique_ptr<Engine> createEngine(const TestingOptions&) {
  throw DeviceError("CUDA backend unavailable: " + probe(0).reason);
}

std::unique_ptr<Engine> createSingleEngine(const TestingOptions& options) {
  return createEngine(options);
}

}  // namespace kms::cuda

namespace kms {

std::optional<DeviceCeilings> measureDeviceCeilings(int) {
  return std::nullopt;
}

DistinctColours distinctColoursOnDevice(const std::uint32_t*, std::size_t, int, double*) {
  throw DeviceError("CUDA backend unavailable: " + cuda::probe(0).reason);
}

}  // namespace kms
