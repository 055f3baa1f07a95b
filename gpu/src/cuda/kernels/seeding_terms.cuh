// The seedings' per-row quantities on the device, formed as the CPU engine forms them: a row's
// sampling weight and its exact integer potential term (seeding::potentialTerm).
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/exact_math.h"

namespace kms::cuda {

/// The weight of row i in the sampling mass: its weight, its count, or 1
/// (CpuEngine::pointWeight).
__device__ __forceinline__ float samplingWeight(const float* weights, const std::uint32_t* counts,
                                                std::size_t i) {
  if (weights) return weights[i];
  if (counts) return static_cast<float>(counts[i]);
  return 1.0f;
}

/// llrint((w·)d2 · scale): the term is w·d2 for weighted or counted rows (`scaled`), else d2.
__device__ __forceinline__ long long potentialTerm(float d2, float w, bool scaled, double scale) {
  const float term = scaled ? exact::mul(w, d2) : d2;
  return __double2ll_rn(__dmul_rn(static_cast<double>(term), scale));
}

}  // namespace kms::cuda
