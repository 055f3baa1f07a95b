// A deliberately simple double-precision Lloyd k-means used as the oracle in engine tests.
#pragma once

#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

namespace kms::test {

struct ReferenceStep {
  std::vector<int> labels;
  std::vector<double> centroids;  // k × d means (empty clusters keep their old centroid)
  std::vector<double> distances;  // per point: squared distance to its assigned centroid
  double inertia = 0.0;
  std::vector<int> empty;
};

/// One brute-force Lloyd step from `centroids` (k × d) in double precision, ties to the lower
/// centroid index.
ReferenceStep referenceStep(const std::vector<float>& points, const std::vector<float>* weights,
                            int d, const std::vector<double>& centroids, int k);

/// Squared distance from point i to centroid j, in double.
double referenceDistance(const std::vector<float>& points, int d, std::size_t i,
                         const std::vector<double>& centroids, int j);

/// n points of d dims, uniform in [lo, hi).
std::vector<float> uniformPoints(std::size_t n, int d, std::uint64_t seed, float lo = -1.0f,
                                 float hi = 1.0f);

/// Well-separated Gaussian blobs: `groups` centres on a lattice `spacing` apart, stddev `sigma`.
/// Centres are returned through `centres` when non-null.
std::vector<float> blobPoints(std::size_t n, int d, int groups, std::uint64_t seed, float spacing,
                              float sigma, std::vector<float>* centres = nullptr);

std::vector<double> toDouble(const std::vector<float>& v);

}  // namespace kms::test
