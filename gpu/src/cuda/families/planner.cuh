// The one place a kernel family is chosen for a run (docs/engine.md, "Kernel families").
#pragma once

#include <memory>

#include "cuda/families/kernel_family.cuh"
#include "kmeans/testing.h"

namespace kms::cuda {

/// What the planner knows of a run.
struct FamilyPlanInput {
  const PlacedData& data;
  int k = 0;
  std::size_t label_bytes = 1;  ///< 1 for k ≤ 256, else 2
  const DeviceLimits& limits;
  const CudaTuning& tuning;  ///< the path switches (tests and kmeans-bench pin families)
  int inertia_exp = 0;       ///< the point tiles' inertia grid for this run
  /// Kernels may launch as programmatic dependents of the kernel before (compute capability 9.0
  /// and newer).
  bool dependent_launches = false;
};

/// The first family of the table that fits the run, its launch shape planned. Throws
/// DeviceError if the runtime refuses every configuration of the chosen family.
std::unique_ptr<KernelFamily> planFamily(const FamilyPlanInput& in);

}  // namespace kms::cuda
