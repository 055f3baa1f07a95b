#include "common/principal_axis.h"

#include <algorithm>
#include <cmath>

namespace kms {

std::array<float, kMaxAxisDims> principalAxis(const float* points, std::size_t n, int d,
                                              std::size_t sample) {
  constexpr int M = kMaxAxisDims;
  std::array<float, M> axis{};
  axis[0] = 1.0f;
  if (d < 1 || d > M || n < 2) return axis;
  sample = std::min<std::size_t>(sample, (std::size_t(1) << 24) / std::size_t(d * d));
  const std::size_t step = std::max<std::size_t>(1, n / std::max<std::size_t>(sample, 2));
  double mean[M] = {}, cov[M][M] = {};
  std::size_t m = 0;
  for (std::size_t i = 0; i < n; i += step, ++m)
    for (int c = 0; c < d; ++c)
      mean[c] += points[i * d + c];
  for (int c = 0; c < d; ++c)
    mean[c] /= double(m);
  for (std::size_t i = 0; i < n; i += step)
    for (int a = 0; a < d; ++a)
      for (int b = 0; b < d; ++b)
        cov[a][b] += (points[i * d + a] - mean[a]) * (points[i * d + b] - mean[b]);
  // Power iteration from the diagonal direction (the grey axis of colours): converges to the
  // dominant eigenvector unless the start is orthogonal to it, which rounding soon breaks.
  double v[M];
  for (double& x : v)
    x = 1.0;
  for (int it = 0; it < 100; ++it) {
    double w[M] = {}, norm = 0.0;
    for (int a = 0; a < d; ++a) {
      for (int b = 0; b < d; ++b)
        w[a] += cov[a][b] * v[b];
      norm += w[a] * w[a];
    }
    norm = std::sqrt(norm);
    if (!(norm > 0.0) || !std::isfinite(norm)) return axis;  // no spread: any axis will do
    for (int a = 0; a < d; ++a)
      v[a] = w[a] / norm;
  }
  for (int c = 0; c < M; ++c)
    axis[c] = c < d ? static_cast<float>(v[c]) : 0.0f;
  return axis;
}

}  // namespace kms
