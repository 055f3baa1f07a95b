#include "support/reference_kmeans.h"

#include <limits>

namespace kms::test {

double referenceDistance(const std::vector<float>& points, int d, std::size_t i,
                         const std::vector<double>& centroids, int j) {
  double s = 0.0;
  for (int c = 0; c < d; ++c) {
    const double t =
        static_cast<double>(points[i * d + c]) - centroids[static_cast<std::size_t>(j) * d + c];
    s += t * t;
  }
  return s;
}

ReferenceStep referenceStep(const std::vector<float>& points, const std::vector<float>* weights,
                            int d, const std::vector<double>& centroids, int k) {
  const std::size_t n = points.size() / d;
  ReferenceStep r;
  r.labels.resize(n);
  r.distances.resize(n);
  std::vector<double> sums(static_cast<std::size_t>(k) * d, 0.0), wsum(k, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    int best = 0;
    double bd = std::numeric_limits<double>::infinity();
    for (int j = 0; j < k; ++j) {
      const double dist = referenceDistance(points, d, i, centroids, j);
      if (dist < bd) {
        bd = dist;
        best = j;
      }
    }
    const double w = weights ? (*weights)[i] : 1.0;
    r.labels[i] = best;
    r.distances[i] = bd;
    r.inertia += w * bd;
    for (int c = 0; c < d; ++c)
      sums[static_cast<std::size_t>(best) * d + c] += w * points[i * d + c];
    wsum[best] += w;
  }
  r.centroids = centroids;
  for (int j = 0; j < k; ++j) {
    if (wsum[j] == 0.0) {
      r.empty.push_back(j);
      continue;
    }
    for (int c = 0; c < d; ++c)
      r.centroids[static_cast<std::size_t>(j) * d + c] =
          sums[static_cast<std::size_t>(j) * d + c] / wsum[j];
  }
  return r;
}

std::vector<float> uniformPoints(std::size_t n, int d, std::uint64_t seed, float lo, float hi) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> u(lo, hi);
  std::vector<float> p(n * d);
  for (auto& v : p)
    v = u(rng);
  return p;
}

std::vector<float> blobPoints(std::size_t n, int d, int groups, std::uint64_t seed, float spacing,
                              float sigma, std::vector<float>* centres) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> g(0.0f, sigma);
  std::vector<float> c(static_cast<std::size_t>(groups) * d);
  for (int j = 0; j < groups; ++j)
    for (int k = 0; k < d; ++k)
      // Distinct lattice positions: digit k of j in base 3, plus a per-group offset on dim 0.
      c[static_cast<std::size_t>(j) * d + k] =
          spacing * static_cast<float>((k == 0 ? j : (j / (k + 1)) % 3));
  std::vector<float> p(n * d);
  for (std::size_t i = 0; i < n; ++i) {
    const int j = static_cast<int>(i % groups);
    for (int k = 0; k < d; ++k)
      p[i * d + k] = c[static_cast<std::size_t>(j) * d + k] + g(rng);
  }
  if (centres) *centres = c;
  return p;
}

std::vector<double> toDouble(const std::vector<float>& v) {
  return {v.begin(), v.end()};
}

}  // namespace kms::test
