// The arithmetic the high-dimensional tensor passes (high_dim_tensor_kernel.cuh) decide with:
// the error bound E of their scores ‖c‖² − 2x·c, the scaled FP16 copies of their operands, the
// lower bounds a decided row keeps, the run's drift as the bounds use it, and ‖x − c‖² exactly as
// the CPU backend computes it. The proofs are in docs/engine.md, "High-dimensional rows on tensor
// cores".
#pragma once

#include <cuda_fp16.h>

#include <cfloat>
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
///   one term on operands rounded to nearest beforehand (FP16 copies scaled by powers of two:
///     within 2^−11 of themselves in FP16's normal range, which the tensor cores then read
///     exactly): 2^−10 + 2^−22 of Σ|xᵢcᵢ|, plus d·2^−22 (highDimHalfErrorBound adds the rest).
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

/// The power of two 2^e by which values of largest magnitude `largest` are scaled before they are
/// rounded to FP16 (the one-term passes' operands): the largest lands in [2^14, 2^15), far below
/// FP16's 65,504, and the others keep as many bits as FP16's range allows. e is kept within
/// ±60 so that 2^−(e_x + e_c) is a normal float (held at −60, values beyond 2^75 overflow FP16:
/// their rows' ‖x‖² is far past the 10^37 that sends a row to the exact search); 0 for zero, ∞
/// or NaN (such data fall through to the exact search: highDimHalfScalesUsable).
__device__ __forceinline__ int halfScaleExponent(float largest) {
  if (!(largest > 0.0f) || !(largest <= FLT_MAX)) return 0;
  int e = 0;
  frexpf(largest, &e);  // largest = f·2^e, f in [0.5, 1)
  return max(-60, min(60, 15 - e));
}

/// Whether the FP16 copies hold every value finitely: the rows' largest magnitude and the
/// centroids' largest squared norm (which bounds each of their coordinates) are finite.
__device__ __forceinline__ bool highDimHalfScalesUsable(float rows_largest, float c_norm) {
  return rows_largest <= FLT_MAX && c_norm <= FLT_MAX;
}

/// E for the one-term passes on FP16 copies: each copy is v·2^e rounded to nearest, within
/// 2^−11 of itself where it is a normal FP16 value — the rounded factor of highDimDotFactor, as
/// for TF32-rounded copies — and within 2^−14 absolutely below FP16's normal range (subnormal,
/// or flushed to zero), 2^−14−e once unscaled: a = 2^−14−e_x for the rows, b = 2^−14−e_c for the
/// centroids. Then |x̃·c̃ − x·c| gains at most (a·Σ|cᵢ| + b·Σ|xᵢ|)(1 + 2^−11) + d·a·b ≤
/// 1.01(a·√d·‖c‖ + b·√d·‖x‖) + d·a·b, doubled in v and ×1.25 as the rest.
__device__ __forceinline__ float highDimHalfErrorBound(int d, float x_norm, float c_norm, int e_x,
                                                       int e_c) {
  const float a = ldexpf(1.0f, -14 - e_x), b = ldexpf(1.0f, -14 - e_c);
  const float root_d = sqrtf(static_cast<float>(d));
  const float floor_terms =
      1.01f * (a * root_d * sqrtf(c_norm) + b * root_d * sqrtf(x_norm)) + d * a * b;
  return highDimErrorBound(d, false, x_norm, c_norm, true) + 2.5f * 1.01f * floor_terms;
}

/// The largest finite |value| of `count` floats, as float bits, into *largest_bits (atomicMax:
/// for non-negative floats the bits order as the values). *largest_bits starts at 0. ∞ and NaN
/// are left out: their rows' ‖x‖² sends them to the exact search, and the other rows keep a
/// scale that fits them.
__global__ void largestMagnitudeKernel(const float* __restrict__ in, std::size_t count,
                                       unsigned* largest_bits) {
  unsigned bits = 0;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const unsigned magnitude = __float_as_uint(in[i]) & 0x7fffffffu;
    if (magnitude < 0x7f800000u) bits = max(bits, magnitude);
  }
  for (int offset = 16; offset > 0; offset >>= 1)
    bits = max(bits, __shfl_xor_sync(kFullWarp, bits, offset));
  if ((threadIdx.x & 31) == 0 && bits != 0) atomicMax(largest_bits, bits);
}

/// The FP16 copies the one-term passes multiply: out[r·pitch + c] = in[r·d + c]·2^e rounded to
/// nearest (c < d; 0 in the padding up to pitch, a multiple of 8 so that every row starts on 16
/// bytes). e from the rows' largest magnitude (`largest_bits`, largestMagnitudeKernel) or, for
/// centroids, from the square root of their largest squared norm (`norm_bits`), which no
/// coordinate exceeds. The scaling is exact (a power of two, normal results), so each value is
/// rounded once.
__global__ void toScaledHalfKernel(const float* __restrict__ in, std::size_t rows, int d, int pitch,
                                   const unsigned* largest_bits, bool from_norm,
                                   __half* __restrict__ out) {
  const float largest =
      from_norm ? sqrtf(__uint_as_float(*largest_bits)) : __uint_as_float(*largest_bits);
  const float scale = ldexpf(1.0f, halfScaleExponent(largest));
  // A warp a row, its lanes along the row (pitch ≥ 72 here: d > 64).
  const unsigned warps = blockDim.x / 32, lane = threadIdx.x & 31;
  for (std::size_t r = static_cast<std::size_t>(blockIdx.x) * warps + threadIdx.x / 32; r < rows;
       r += static_cast<std::size_t>(gridDim.x) * warps)
    for (int c = static_cast<int>(lane); c < pitch; c += 32)
      out[r * pitch + c] = __float2half_rn(c < d ? in[r * d + c] * scale : 0.0f);
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
/// `dist`: d non-negative terms, each rounded three times and summed in order, leave that within
/// 2(d + 4)·u of the real square where the terms are normal floats; the 2u more cover this
/// product's own rounding. Subnormal terms round by up to 2^−149 each, absolutely (a term of
/// 0.75·2^−149 becomes 2^−149): the 10^−30 taken off, E's floor, covers d·2^−149 for any d here.
__device__ __forceinline__ float highDimExactLowerBound(float dist, int d) {
  const float u = 5.9604645e-8f;
  const float square = dist * (1.0f - (2.04f * static_cast<float>(d + 4) + 2.0f) * u) - 1e-30f;
  return sqrtf(fmaxf(0.0f, square)) * (1.0f - kBoundSlack);
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
