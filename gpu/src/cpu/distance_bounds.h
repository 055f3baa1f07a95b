// The CPU engine's bounds on real distances from its float squared distances (d ≤ 64 terms).
#pragma once

#include <algorithm>
#include <cmath>

#include "common/constants.h"

namespace kms::cpu {

/// At least the real distance whose float square (the CPU's operations) is `squared`.
inline float upperFromSquared(float squared) {
  return std::sqrt(squared) * (1.0f + kBoundSlack) + kUnderflowDistance;
}

/// At most the real distance whose float square is `squared`. A centroid whose real distance is
/// above upperFromSquared(s) has a float square above s: it can neither beat nor tie it.
inline float lowerFromSquared(float squared) {
  return std::max(0.0f, std::sqrt(squared) * (1.0f - kBoundSlack) - kUnderflowDistance);
}

}  // namespace kms::cpu
