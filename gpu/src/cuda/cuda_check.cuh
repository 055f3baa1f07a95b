// One throwing check for every CUDA runtime call and kernel launch.
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "kmeans/errors.h"

namespace kms::cuda {

/// Throws DeviceError("<what> failed at file:line: cudaErrorName (text)").
[[noreturn]] inline void throwCudaError(cudaError_t error, const char* what, const char* file,
                                        int line) {
  cudaGetLastError();  // clear a non-sticky error so the next launch check does not report it again
  throw DeviceError(std::string(what) + " failed at " + file + ":" + std::to_string(line) + ": " +
                    cudaGetErrorName(error) + " (" + cudaGetErrorString(error) + ")");
}

}  // namespace kms::cuda

#define KMS_CUDA_CHECK(expr)                                                    \
  do {                                                                          \
    const cudaError_t kms_cuda_status_ = (expr);                                \
    if (kms_cuda_status_ != cudaSuccess)                                        \
      ::kms::cuda::throwCudaError(kms_cuda_status_, #expr, __FILE__, __LINE__); \
  } while (0)

/// After every kernel launch: launch-configuration errors surface here, asynchronous faults at
/// the next synchronising call (also checked).
#define KMS_CHECK_LAUNCH() KMS_CUDA_CHECK(cudaGetLastError())
