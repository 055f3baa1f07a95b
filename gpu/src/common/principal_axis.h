// The direction along which a point set spreads most, as a unit vector: the compact kernels sort
// the centroids along it and search outwards from each point's projection.
#pragma once

#include <array>
#include <cstddef>

namespace kms {

/// Dimensions principalAxis serves (the compact CUDA kernels' largest d).
inline constexpr int kMaxAxisDims = 16;

/// Unit principal axis of n points of d ≤ kMaxAxisDims coordinates (row-major), from an even
/// sample of at most `sample` rows (fewer for large d: the covariance costs d² per row; power
/// iteration on it, in double). Only efficiency depends on it: any unit vector keeps the search
/// exact. Degenerate data (one point, or none) give the first coordinate axis. Components beyond
/// d are zero.
std::array<float, kMaxAxisDims> principalAxis(const float* points, std::size_t n, int d,
                                              std::size_t sample = 1u << 20);

}  // namespace kms
