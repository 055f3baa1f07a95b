// The CPU engine's exact distances from one row to every centroid, vectorised over centroids.
#pragma once

#include <cstddef>

namespace kms::cpu {

/// dist[j] = Σ_c (x_c − C[c][j])² for the kp (a multiple of 8) columns of `transposed` (d × kp),
/// summed in coordinate order with separately rounded terms (exact::squaredDistance's bits).
void exactDistancesToAll(const float* x, const float* transposed, int d, int kp, float* dist);

/// The same for the `width` (a multiple of 8) columns from `first` of a d × stride matrix:
/// dist[e] for column first + e.
void exactDistancesToColumns(const float* x, const float* transposed, int d, std::size_t stride,
                             std::size_t first, int width, float* dist);

/// The smallest of values[0, width) (width a multiple of 4; no NaN).
float smallestOf(const float* values, int width);

/// The first position of the smallest of dist[0, width) (width a multiple of 8; no NaN): the
/// full search's label when columns past the centroids hold +∞.
int firstNearest(const float* dist, int width);

}  // namespace kms::cpu
