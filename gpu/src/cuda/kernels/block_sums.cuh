// Block-wide sums of a block's inertia and changed count in a fixed reduction tree, so the
// result is the same every run (used by the assignment and reduce kernels).
#pragma once

#include <cub/block/block_reduce.cuh>

namespace kms::cuda {

struct BlockScalars {
  double inertia;
  unsigned long long changed;
};

/// Valid in thread 0 only.
template <int THREADS>
__device__ BlockScalars blockSumScalars(double inertia, unsigned long long changed) {
  using ReduceD = cub::BlockReduce<double, THREADS>;
  using ReduceU = cub::BlockReduce<unsigned long long, THREADS>;
  __shared__ union {
    typename ReduceD::TempStorage d;
    typename ReduceU::TempStorage u;
  } temp;
  BlockScalars total;
  total.inertia = ReduceD(temp.d).Sum(inertia);
  __syncthreads();
  total.changed = ReduceU(temp.u).Sum(changed);
  return total;
}

}  // namespace kms::cuda
