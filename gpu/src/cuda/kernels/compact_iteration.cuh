// Planning and launching the compact kernels' iteration (compact_kernel.cuh): compact data, and
// unweighted points with d ≤ 4 (every count 1).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda/kernels/assign_args.cuh"
#include "cuda/kernels/iteration_kernels.cuh"

namespace kms::cuda {

template <typename LabelT>
struct CompactArgs;

/// Whether data of this shape run on the compact kernels (unweighted points or distinct values
/// with counts; d ≤ 4 with k ≤ 1,024, or d ≤ 16 with k ≤ 256). Other compact data run on the
/// generic kernel, which handles counts too; other points on the assignment kernels of
/// assign_launch.cuh.
bool fitsCompactKernel(int d, int k);

/// Block count and shared memory of the assignment kernel: with `tiles` > 0 (d ≤ 4, point tiles
/// built) the tile kernel's, else the row kernel's. Throws DeviceError if the runtime refuses the
/// configuration.
template <typename LabelT>
AssignPlan planCompact(std::size_t n, int d, int k, std::size_t tiles, const DeviceLimits& limits);

/// An iteration is the assignment, then the update (or on a shard of a multi-GPU run, the
/// assignment and the scalars' reduction, the all-reduce, then the update). The assignment runs
/// over args.n rows — the data's, or one chunk's of streamed data, with the row arrays shifted
/// to the chunk — on plan.blocks blocks, which leave their results in args.block_* [0,
/// plan.blocks); the reduction and the update sum args.blocks of them (every chunk's). All
/// check their launches. `after_kernel`: the operation before in the stream is a kernel, and this
/// one is launched as its programmatic dependent (waitForPriorKernel, compact_args.cuh), its
/// launch overlapping that kernel's end.
template <typename LabelT>
void launchCompactAssign(const AssignPlan& plan, const CompactArgs<LabelT>& args,
                         cudaStream_t stream, bool after_kernel = false);
/// The update from args.update_totals (and on a shard the all-reduced args.scalars,
/// args.scalars_reduced).
template <typename LabelT>
void launchCompactUpdate(const CompactArgs<LabelT>& args, cudaStream_t stream,
                         bool after_kernel = false);
/// A shard's reduction of its blocks' scalars into args.scalars, for the all-reduce.
template <typename LabelT>
void launchCompactShardScalars(const CompactArgs<LabelT>& args, cudaStream_t stream);

/// The centroids' geometry (computeGeometry in compact_kernel.cuh) for `centroids` into
/// args.geometry/args.order: before the first iteration, and after a re-seed.
template <typename LabelT>
void launchCompactGeometry(const CompactArgs<LabelT>& args, const float* centroids,
                           cudaStream_t stream);

}  // namespace kms::cuda
