// Host-side planning and launching of the assignment pass. The runtime dimension d becomes the
// kernel's template parameter D here, and only here.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

#include "cuda/kernels/assign_args.cuh"

namespace kms::cuda {

/// Chooses kernel, block count and shared memory for (n, d, k) on a device. Throws DeviceError
/// if the runtime refuses the configuration.
template <typename LabelT>
AssignPlan planAssign(std::size_t n, int d, int k, const DeviceLimits& limits);

/// The generic kernel's plan (any d and k; the one that takes counts besides the compact
/// kernels).
template <typename LabelT>
AssignPlan planGeneric(std::size_t n, const DeviceLimits& limits);

/// Launches one assignment pass on `stream` as planned (checks the launch).
template <typename LabelT>
void launchAssign(const AssignPlan& plan, const AssignArgs<LabelT>& args, cudaStream_t stream);

/// The separate summing pass of plans with separate_sums (large d), writing per-block rows.
template <typename LabelT>
void launchAccumulate(const AssignPlan& plan, const AccumulateArgs<LabelT>& args,
                      cudaStream_t stream);

/// The compiled dimensions of the templated kernel; any d ≤ 64 runs on the smallest D ≥ d.
inline constexpr int kTemplateDims[] = {1, 2, 3, 4, 8, 9, 16, 32, 64};

}  // namespace kms::cuda
