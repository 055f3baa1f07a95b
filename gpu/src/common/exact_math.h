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

/// An exact integer sum back in its units: v · 2^−exp in double (v rounded to double, the power
/// of two exact).
KMS_HD double unscaled(std::int64_t v, int exp) {
#if defined(__CUDA_ARCH__)
  return __dmul_rn(__ll2double_rn(v), __longlong_as_double((1023LL - exp) << 52));
#else
  return static_cast<double>(v) * std::ldexp(1.0, -exp);
#endif
}

/// Mean of a cluster in centred coordinates from its exact integer sums:
/// (sum_q · 2^−coord_exp) / (sum_w · 2^−weight_exp), in double, rounded once to float.
KMS_HD float meanFromSums(std::int64_t sum_q, int coord_exp, std::int64_t sum_w, int weight_exp) {
#if defined(__CUDA_ARCH__)
  return __double2float_rn(__ddiv_rn(unscaled(sum_q, coord_exp), unscaled(sum_w, weight_exp)));
#else
  return static_cast<float>(unscaled(sum_q, coord_exp) / unscaled(sum_w, weight_exp));
#endif
}

/// meanFromSums for every coordinate of one cluster: the divisor (its weight, sum_w ·
/// 2^−weight_exp) taken once. On the device each quotient comes from the divisor's correctly
/// rounded reciprocal y = RN(1/b) instead of a division of its own (a division is a subroutine
/// with a branch; the d of them in a row had been most of the compact update's chain): q₀ =
/// RN(a·y) is within 1.5 ulp of a/b; one correction q₁ = RN(q₀ + RN(a − b·q₀)·y) brings it
/// within one ulp (its error is 0.5 ulp plus terms of order 2⁻⁵³ ulp); a second, with the
/// remainder a − b·q₁ exact in an FMA, gives RN(a/b) by Markstein's theorem (y within half an ulp
/// of 1/b, q₁ within one ulp of a/b; no operand or remainder near double's underflow or
/// overflow: the sums are integers below 2⁶³ and the fixed-point exponents keep every mean within
/// float's range, hundreds of binades inside double's). So the
/// double is a / b exactly as meanFromSums and the CPU round it, then rounded once to float;
/// tests/gpu/test_cuda_division.cpp checks it against the device's IEEE division on random
/// quotients and on quotients within 2⁻²¹ ulp of a rounding midpoint.
struct MeanDivisor {
  double den = 1.0;
  double inv = 1.0;  ///< RN(1/den), on the device (the host divides)
  KMS_HD explicit MeanDivisor(std::int64_t sum_w, int weight_exp)
      : den(unscaled(sum_w, weight_exp)) {
#if defined(__CUDA_ARCH__)
    inv = __drcp_rn(den);
#endif
  }
  /// The double quotient num / den, rounded as IEEE division rounds it.
  KMS_HD double quotient(double num) const {
#if defined(__CUDA_ARCH__)
    const double q0 = __dmul_rn(num, inv);
    const double q1 = __fma_rn(__fma_rn(-den, q0, num), inv, q0);
    return __fma_rn(__fma_rn(-den, q1, num), inv, q1);
#else
    return num / den;
#endif
  }
  /// meanFromSums(sum_q, coord_exp, sum_w, weight_exp), bit for bit.
  KMS_HD float mean(std::int64_t sum_q, int coord_exp) const {
#if defined(__CUDA_ARCH__)
    return __double2float_rn(quotient(unscaled(sum_q, coord_exp)));
#else
    return static_cast<float>(quotient(unscaled(sum_q, coord_exp)));
#endif
  }
};

}  // namespace kms::exact
