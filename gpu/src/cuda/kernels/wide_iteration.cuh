// Planning and launching the wide kernels' iteration (wide_kernel.cuh): rows of 17 ≤ d ≤ 64,
// k ≤ 256, unweighted or with counts, with a distance bound per row and the sums kept.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>

#include "cuda/kernels/assign_args.cuh"

namespace kms::cuda {

template <typename LabelT>
struct CompactArgs;

/// Whether data of this shape run on the wide kernels.
bool fitsWideKernel(int d, int k);

/// Block count and shared memory of the wide assignment. Throws DeviceError if the runtime
/// refuses the configuration.
template <typename LabelT>
AssignPlan planWide(std::size_t n, int d, int k, const DeviceLimits& limits);

/// The assignment over args.n rows (the data's, or one chunk's of streamed data, its row arrays
/// shifted to the chunk) on plan.blocks blocks, which leave their results in args.block_* [0,
/// plan.blocks).
template <typename LabelT>
void launchWideAssign(const AssignPlan& plan, const CompactArgs<LabelT>& args, cudaStream_t stream);
/// The reduction of args.blocks blocks' results (every chunk's) into args.scalars: with the
/// assignment, the first part of an iteration (a shard's part before the all-reduce).
template <typename LabelT>
void launchWideReduce(const CompactArgs<LabelT>& args, cudaStream_t stream);

/// The update from args.update_totals (growing the drift) and the new centroids' half gaps.
template <typename LabelT>
void launchWideUpdate(const CompactArgs<LabelT>& args, cudaStream_t stream);

/// The half gaps of `centroids` into args.geometry: before the first iteration, after a re-seed.
template <typename LabelT>
void launchWideGeometry(const CompactArgs<LabelT>& args, const float* centroids,
                        cudaStream_t stream);

}  // namespace kms::cuda
