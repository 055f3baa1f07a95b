// Device pieces shared by the update stage and the fused compact-data iteration: the
// convergence test with the report, the centroid shift, and a max operator for CUB.
#pragma once

#include "common/constants.h"
#include "common/convergence.h"
#include "common/exact_math.h"
#include "cuda/kernels/iteration_kernels.cuh"

namespace kms::cuda {

/// max() as a reduction operator (CCCL 3 dropped cub::Max).
struct MaxOf {
  template <typename T>
  __device__ __forceinline__ T operator()(const T& a, const T& b) const {
    return a < b ? b : a;
  }
};

/// The convergence test and the report (one thread) from the iteration's inertia, changed
/// count, largest shift and empty count as given (the caller's own values: no read back of what
/// it has just written to `s`). `iteration` is the 1-based number of the iteration being
/// reported. Returns the verdict: converged.
__device__ __forceinline__ bool finalizeIterationFrom(IterationScalars* s, IterationReport* report,
                                                      const UpdateParams& p, int iteration,
                                                      double inertia, unsigned long long changed,
                                                      float shift, int empty_count) {
  const bool converged = passesConvergenceTest(changed, p.n, shift, p.scale, p.tolerance);
  s->converged = converged ? 1 : 0;
  report->inertia = inertia;
  report->changed = changed;
  report->max_shift = shift;
  report->empty_count = empty_count;
  report->converged = converged ? 1 : 0;
  report->iteration = iteration;
  if (p.reports_searched) {
    report->searched = s->searched;
    report->evaluated = s->evaluated;
  }
  return converged;
}

/// The same from the scalars the update's blocks accumulated in `s`.
__device__ __forceinline__ void finalizeIteration(IterationScalars* s, IterationReport* report,
                                                  const UpdateParams& p, int iteration) {
  finalizeIterationFrom(s, report, p, iteration, s->inertia, s->changed,
                        __uint_as_float(s->max_shift_bits), s->empty_count);
}

// (No system fence is needed after the report: the host reads the mapped report only after an
// event that follows the kernel's completion, which makes its writes visible.)

/// The drift after an update whose largest shift is `shift`: inflated by kBoundSlack (far above
/// the float rounding of the shift) and added rounding up, so every increment of the drift is at
/// least the true largest shift (compact_kernel.cuh).
__device__ __forceinline__ double grownDrift(double drift, float shift) {
  return __dadd_ru(drift, __dmul_ru(static_cast<double>(shift), 1.0 + double(kBoundSlack)));
}

/// An upper bound on ‖a − b‖ (d coordinates) for the drift, given `shift`, the float
/// √(squaredDistance) the report uses: that one is precise (its rounding far below kBoundSlack)
/// unless the squares of the differences fall among float's subnormals or underflow to zero;
/// there √d · max |aᵢ − bᵢ| bounds the distance instead.
/// shiftBound given `largest`, max |aᵢ − bᵢ|.
__device__ __forceinline__ float shiftBoundFrom(float largest, int d, float shift) {
  if (largest >= 1e-18f) return shift;  // squares ≥ 1e-36: normal floats
  return __fmul_ru(__fsqrt_ru(static_cast<float>(d)), __fmul_ru(largest, 1.0f + kBoundSlack));
}
__device__ __forceinline__ float shiftBound(const float* a, const float* b, int d, float shift) {
  float largest = 0.0f;
  for (int c = 0; c < d; ++c)
    largest = fmaxf(largest, fabsf(a[c] - b[c]));
  return shiftBoundFrom(largest, d, shift);
}

__device__ __forceinline__ float clusterShift(const float* a, const float* b, int d) {
  return sqrtf(exact::squaredDistance(a, b, d));
}

}  // namespace kms::cuda
