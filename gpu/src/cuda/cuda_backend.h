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

/// Creates the CUDA engine on `device`. Throws DeviceError when the backend cannot run.
/// `faultAtIteration`: see EngineOptions::cuda_fault_at_iteration; `maxDeviceBytes`:
/// EngineOptions::max_device_bytes.
std::unique_ptr<Engine> createEngine(int device = 0, int faultAtIteration = 0,
                                     std::size_t maxDeviceBytes = 0);

}  // namespace kms::cuda
