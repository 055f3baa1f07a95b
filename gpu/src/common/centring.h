// Centroids out of the engine's centred frame into data units (c + mid per coordinate), rounded
// the same way by every backend and every place that reports them (snapshots, history).
#pragma once

#include <cstddef>
#include <vector>

#include "common/exact_math.h"
#include "kmeans/config.h"

namespace kms {

/// `count` centred coordinates (k × d, d = mid.size()) in data units.
inline std::vector<float> toDataUnits(const float* centred, std::size_t count,
                                      const std::vector<float>& mid) {
  std::vector<float> out(count);
  for (std::size_t i = 0; i < count; ++i)
    out[i] = exact::add(centred[i], mid[i % mid.size()]);
  return out;
}

/// InitMethod::Given's centroids in the centred frame (k × d): KMeansConfig::initial_centroids
/// less the midpoint, or as they are when initial_centroids_centred.
inline std::vector<float> givenCentred(const KMeansConfig& config, const std::vector<float>& mid) {
  std::vector<float> out(config.initial_centroids);
  if (!config.initial_centroids_centred)
    for (std::size_t i = 0; i < out.size(); ++i)
      out[i] = exact::sub(out[i], mid[i % mid.size()]);
  return out;
}

/// Given centroid coordinate i in data units, in double (where a bound needs it, not a result).
inline double givenInDataUnits(const KMeansConfig& config, std::size_t i,
                               const std::vector<float>& mid) {
  const double v = config.initial_centroids[i];
  return config.initial_centroids_centred ? v + double(mid[i % mid.size()]) : v;
}

}  // namespace kms
