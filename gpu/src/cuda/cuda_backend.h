// Entry points of the CUDA backend, callable from plain C++ (no CUDA headers here).
#pragma once

#include <cstddef>
#include <memory>

#include "kmeans/backend.h"
#include "kmeans/engine.h"

namespace kms::cuda {

/// Probes the runtime and device `device`; never throws. Any failure of cudaGetDeviceCount
/// (no driver, driver too old, no device) reads as "not available", with the CUDA error text.
CudaStatus probe(int device = 0);

/// Creates the CUDA engine on options.cuda_device with the CUDA options of `options`
/// (cuda_fault_at_iteration as given: the factory has already read the environment). Throws
/// DeviceError when the backend cannot run.
std::unique_ptr<Engine> createEngine(const EngineOptions& options);

}  // namespace kms::cuda
