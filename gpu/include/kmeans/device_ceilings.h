// Measured limits of the GPU, for benchmarks that report how close they come to the hardware.
#pragma once

#include <optional>
#include <string>

namespace kms {

struct DeviceCeilings {
  std::string device;        ///< device name
  double copy_gbs = 0.0;     ///< device-to-device copy, (bytes read + bytes written) / second, GB/s
  double fp32_gflops = 0.0;  ///< sustained FP32 FMA throughput, GFLOP/s (an FMA counts 2)
  /// Sustained TF32 tensor-core throughput (mma.sync m16n8k8), GFLOP/s; 0 before sm_80.
  double tf32_gflops = 0.0;
  double host_to_device_gbs = 0.0;  ///< cudaMemcpy from page-locked host memory, GB/s
  /// The least an iteration can take as the engine times it, ms: a CUDA graph of two dependent
  /// kernels that do nothing (a grid of two blocks per multiprocessor, then one block — the
  /// shape of an assignment and its update) between two events recorded in the graph, median
  /// of many launches. Data small enough to sit in L2 cannot run an iteration faster.
  double iteration_floor_ms = 0.0;
};

/// Measures the ceilings on CUDA device `device` (about a second). Empty without a usable
/// CUDA device or in builds without the CUDA backend.
std::optional<DeviceCeilings> measureDeviceCeilings(int device = 0);

}  // namespace kms
