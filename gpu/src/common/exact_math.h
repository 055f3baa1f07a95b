// Arithmetic that must give bit-identical results on the CPU and the GPU.
//
// Every backend computes distances, fixed-point quantisation and centroid means through these
// helpers. On the device they use the explicit round-to-nearest intrinsics so that nvcc cannot
// contract a multiply and an add into an FMA; the host side is compiled with -ffp-contract=off
// for the same reason (see gpu/CMakeLists.txt).
#pragma once

#include <cstdint>

#include "common/host_device.h"

#if !defined(__CUDA_ARCH__)
#include <cmath>
#endif

namespace kms::exact {

KMS_HD float sub(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fsub_rn(a, b);
#else
  return a - b;
#endif
}

KMS_HD float mul(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fmul_rn(a, b);
#else
  return a * b;
#endif
}

KMS_HD float add(float a, float b) {
#if defined(__CUDA_ARCH__)
  return __fadd_rn(a, b);
#else
  return a + b;
#endif
}

/// ‖a − b‖² summed in coordinate order, each term rounded separately (no FMA).
KMS_HD float squaredDistance(const float* a, const float* b, int d) {
  float s = 0.0f;
  for (int c = 0; c < d; ++c) {
    const float t = sub(a[c], b[c]);
    s = add(s, mul(t, t));
  }
  return s;
}

/// 2^e as a float, for −126 ≤ e ≤ 127 (callers clamp).
KMS_HD float pow2f(int e) {
#if defined(__CUDA_ARCH__)
  return __int_as_float((e + 127) << 23);
#else
  return std::ldexp(1.0f, e);
#endif
}

/// rint(v · scale) where scale is a power of two, so the product is exact and only the final
/// rounding to an integer (ties to even) happens.
KMS_HD std::int32_t quantize(float v, float scale) {
#if defined(__CUDA_ARCH__)
  return __float2int_rn(__fmul_rn(v, scale));
#else
  return static_cast<std::int32_t>(std::nearbyint(v * scale));
#endif
}

/// Mean of a cluster in centred coordinates from its exact integer sums:
/// (sum_q · 2^−coord_exp) / (sum_w · 2^−weight_exp), in double, rounded once to float.
KMS_HD float meanFromSums(std::int64_t sum_q, int coord_exp, std::int64_t sum_w, int weight_exp) {
#if defined(__CUDA_ARCH__)
  const double num =
      __dmul_rn(__ll2double_rn(sum_q), __longlong_as_double((1023LL - coord_exp) << 52));
  const double den =
      __dmul_rn(__ll2double_rn(sum_w), __longlong_as_double((1023LL - weight_exp) << 52));
  return __double2float_rn(__ddiv_rn(num, den));
#else
  const double num = static_cast<double>(sum_q) * std::ldexp(1.0, -coord_exp);
  const double den = static_cast<double>(sum_w) * std::ldexp(1.0, -weight_exp);
  return static_cast<float>(num / den);
#endif
}

}  // namespace kms::exact
