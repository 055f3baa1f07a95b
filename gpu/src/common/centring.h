// Centroids out of the engine's centred frame into data units (c + mid per coordinate), rounded
// the same way by every backend and every place that reports them (snapshots, history).
#pragma once

#include <cstddef>
#include <vector>

#include "common/exact_math.h"

namespace kms {

/// `count` centred coordinates (k × d, d = mid.size()) in data units.
inline std::vector<float> toDataUnits(const float* centred, std::size_t count,
                                      const std::vector<float>& mid) {
  std::vector<float> out(count);
  for (std::size_t i = 0; i < count; ++i)
    out[i] = exact::add(centred[i], mid[i % mid.size()]);
  return out;
}

}  // namespace kms
