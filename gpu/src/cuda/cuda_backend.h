// Entry points of the CUDA backend, callable from plain C++ (no CUDA headers here).
#pragma once

#include <cstddef>
#include <memory>

#include "kmeans/backend.h"
#include "kmeans/engine.h"
#include "kmeans/testing.h"

namespace kms::cuda {

/// Probes the runtime and device `device`; never throws. Any failure of cudaGetDeviceCount
/// (no driver, driver too old, no device) reads as "not available", with the CUDA error text.
CudaStatus probe(int device = 0);

/// Creates the CUDA engine with the CUDA options of `options` (hooks.fault_at_iteration as given:
/// the factory has already read the environment): on several GPUs (cuda_devices,
/// cuda_all_devices) a sharded engine, else on options.cuda_device. Throws DeviceError when the
/// backend cannot run, naming the device or library that is missing.
std::unique_ptr<Engine> createEngine(const TestingOptions& options);

/// The one-GPU engine on options.cuda_device.
std::unique_ptr<Engine> createSingleEngine(const TestingOptions& options);

}  // namespace kms::cuda
