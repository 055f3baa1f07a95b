// Planning and launching the iteration of compact data (compact_kernel.cuh).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda/kernels/assign_args.cuh"
#include "cuda/kernels/iteration_kernels.cuh"

namespace kms::cuda {

template <typename LabelT>
struct CompactArgs;

/// Whether compact data of this shape run on the compact kernels (d ≤ 4, k ≤ 1024); other
/// compact data run on the generic kernel, which handles counts too.
bool fitsCompactKernel(int d, int k);

/// Block count and shared memory of the assignment kernel. Throws DeviceError if the runtime
/// refuses the configuration.
template <typename LabelT>
AssignPlan planCompact(std::size_t n, int d, int k, const DeviceLimits& limits);

/// One iteration (assignment, then update) on `stream` (checks the launches).
template <typename LabelT>
void launchCompactIteration(const AssignPlan& plan, const CompactArgs<LabelT>& args,
                            cudaStream_t stream);

}  // namespace kms::cuda
