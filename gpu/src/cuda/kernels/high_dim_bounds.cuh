// The arithmetic the high-dimensional tensor passes (high_dim_tensor_kernel.cuh) decide with:
// the error bound E of their scores ‖c‖² − 2x·c, the rounding of their operands to TF32, the
// lower bounds a decided row keeps, the run's drift as the bounds use it, and ‖x − c‖² exactly as
// the CPU backend computes it. The proofs are in docs/engine.md, "High-dimensional rows on tensor
// cores".
#pragma once

#include <cstddef>

#include "common/constants.h"
#include "cuda/kernels/assign_common.cuh"

namespace kms::cuda {

/// ε of the bound |v − v*| ≤ ε·2‖x‖·‖c‖ on the dot-product part of v = ‖c‖² − 2x·c, where v* is
/// the real value (docs/engine.md, "High-dimensional rows on tensor cores"; u = 2^−24):
///   one term: each TF32 operand within 2^−10 of its FP32 value (truncated, or rounded if the
///     hardware rounds): 2^−9 + 2^−20 of Σ|xᵢcᵢ| ≤ ‖x‖‖c‖; d additions in the tensor cores,
///     ≤ 2 ulps (2^−22) of the running Σ|xᵢcᵢ| each: d·2^−22.
///   three terms: hi exact, lo within 2^−10 of itself (|lo| ≤ 2^−10|x|), lo·lo left out:
///     3·2^−20 (×1.01); 96 additions a slice in the tensor cores: 96·2^−22; d/32 FP32 additions
///     of the slices: (d/32)·u.
/// The other terms — ‖c‖² in FP32 (d·u of C²), the final fma (2u of ‖x‖² + C²) and the CPU's
/// own rounding of ‖x − c‖² (2(d + 4)u of ‖x‖² + C²) — are highDimSmallFactor's.
///   one term on operands rounded to TF32 beforehand (to nearest: within 2^−11 of themselves,
///     which the tensor cores then read exactly): 2^−10 + 2^−22 of Σ|xᵢcᵢ|, plus d·2^−22.
__host__ __device__ constexpr float highDimDotFactor(int d, bool split, bool rounded = false) {
  return split ? 1.01f * 3.0f * 9.5367432e-7f + 96.0f * 2.3841858e-7f + (d / 32 + 1) * 5.9604645e-8f
         : rounded ? 9.765625e-4f + 2.3841858e-7f + d * 2.3841858e-7f
                   : 1.953125e-3f + 9.5367432e-7f + d * 2.3841858e-7f;
}
__host__ __device__ constexpr float highDimSmallFactor(int d) {
  return (3 * d + 10) * 5.9604645e-8f;
}

/// E for a row of squared norm x_norm against centroids of largest squared norm c_norm: the
/// most any one v (and the CPU's distance less ‖x‖²) can be off; ×1.25 covers the FP32
/// rounding of the bound itself and of ‖x‖ (relative errors below 10^−5). The floor covers
/// subnormal squares.
__device__ __forceinline__ float highDimErrorBound(int d, bool split, float x_norm, float c_norm,
                                                   bool rounded = false) {
  const float dot = 2.0f * sqrtf(x_norm) * sqrtf(c_norm);
  return 1.25f * (highDimDotFactor(d, split, rounded) * dot +
                  highDimSmallFactor(d) * (x_norm + c_norm)) +
         1e-30f;
}

/// v rounded to the nearest TF32 value (the 13 low mantissa bits dropped, half away from zero):
/// within 2^−11 of v relatively; ∞ and NaN unchanged.
__device__ __forceinline__ float roundToTf32(float v) {
  unsigned bits = __float_as_uint(v);
  if ((bits & 0x7f800000u) != 0x7f800000u) bits = (bits + 0x1000u) & 0xffffe000u;
  return __uint_as_float(bits);
}

/// out[i] = roundToTf32(in[i]): the one-term pass's operands (rows once a run, centroids every
/// iteration), so that its products are off by half what truncation leaves.
__global__ void roundToTf32Kernel(const float* __restrict__ in, float* __restrict__ out,
                                  std::size_t count) {
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    out[i] = roundToTf32(in[i]);
}

/// The lower bound a ranked row keeps on its real distance to every centroid but its own
/// (Hamerly's): from v_other, the smallest value of the others, within `err` (E) of its real
/// value, and x_norm, ‖x‖² by sequential FMAs (within (d + 1)·u of itself, relatively). The
/// 8u of the terms covers this sum's own rounding (the terms may nearly cancel), the factor the
/// square root's. Stored with the run's drift added (high_dim_row_kernels.cuh).
__device__ __forceinline__ float highDimLowerBound(float v_other, float err, float x_norm, int d) {
  const float u = 5.9604645e-8f;
  const float real_x_norm = x_norm * (1.0f - 1.02f * static_cast<float>(d + 1) * u);
  const float sum = v_other - err + real_x_norm;
  const float rounding = 8.0f * u * (fabsf(v_other) + err + x_norm);
  return sqrtf(fmaxf(0.0f, sum - rounding)) * (1.0f - kBoundSlack);
}

/// A lower bound on the real distance of a centroid whose CPU distance (exactRowDistance) is
/// `dist`: d non-negative terms, each rounded three times and summed in order, leave that
/// within 2(d + 4)·u of the real square; the 2u more cover this product's own rounding.
__device__ __forceinline__ float highDimExactLowerBound(float dist, int d) {
  const float u = 5.9604645e-8f;
  return sqrtf(dist * (1.0f - (2.04f * static_cast<float>(d + 4) + 2.0f) * u)) *
         (1.0f - kBoundSlack);
}

/// The run's drift D as the high-dimensional bounds use it. Each update grows D by its largest
/// shift as float computes it (√ of the FP32 squared distance, within (d + 4)·u/2 of the real
/// shift) times 1 + kBoundSlack, which covers that rounding only up to d ≈ 330; so a bound is
/// written with D rounded down and tested with D inflated by (d + 4)·u and rounded up: the
/// difference of the two is at least the centroids' real movement in between, for any d here.
__device__ __forceinline__ float highDimDrift(double drift, int d, bool testing) {
  if (!testing) return __double2float_rd(drift);
  return __double2float_ru(
      __dmul_ru(drift, 1.0 + static_cast<double>(d + 4) * 5.9604644775390625e-8));
}

/// ‖x − c‖² exactly as the CPU backend computes it (exactDistanceAt's operations in its order),
/// the rows read four floats at a time when d % 4 == 0; with ‖x‖² beside it (sequential FMAs:
/// only the bound reads it) when `x_norm` is given.
__device__ __forceinline__ float exactRowDistance(const float* __restrict__ x,
                                                  const float* __restrict__ c, int d, bool aligned,
                                                  float* x_norm = nullptr) {
  float s = 0.0f, xx = 0.0f;
  if (aligned) {
#pragma unroll 4
    for (int t = 0; t < d; t += 4) {
      const float4 xv = __ldg(reinterpret_cast<const float4*>(x + t));
      const float4 cv = __ldg(reinterpret_cast<const float4*>(c + t));
      const float e[4] = {exact::sub(xv.x, cv.x), exact::sub(xv.y, cv.y), exact::sub(xv.z, cv.z),
                          exact::sub(xv.w, cv.w)};
      s = exact::add(s, exact::mul(e[0], e[0]));
      s = exact::add(s, exact::mul(e[1], e[1]));
      s = exact::add(s, exact::mul(e[2], e[2]));
      s = exact::add(s, exact::mul(e[3], e[3]));
      if (x_norm) {
        xx = fmaf(xv.x, xv.x, xx);
        xx = fmaf(xv.y, xv.y, xx);
        xx = fmaf(xv.z, xv.z, xx);
        xx = fmaf(xv.w, xv.w, xx);
      }
    }
  } else {
    for (int t = 0; t < d; ++t) {
      const float xv = __ldg(x + t);
      const float e = exact::sub(xv, __ldg(c + t));
      s = exact::add(s, exact::mul(e, e));
      if (x_norm) xx = fmaf(xv, xv, xx);
    }
  }
  if (x_norm) *x_norm = xx;
  return s;
}

}  // namespace kms::cuda
