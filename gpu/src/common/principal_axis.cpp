#include "common/principal_axis.h"

#include <algorithm>
#include <cmath>

namespace kms {

std::array<float, 4> principalAxis(const float* points, std::size_t n, int d, std::size_t sample) {
  std::array<float, 4> axis{1.0f, 0.0f, 0.0f, 0.0f};
  if (d < 1 || d > 4 || n < 2) return axis;
  const std::size_t step = std::max<std::size_t>(1, n / std::max<std::size_t>(sample, 2));
  double mean[4] = {}, cov[4][4] = {};
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
  double v[4] = {1.0, 1.0, 1.0, 1.0};
  for (int it = 0; it < 100; ++it) {
    double w[4] = {}, norm = 0.0;
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
  for (int c = 0; c < 4; ++c)
    axis[c] = c < d ? static_cast<float>(v[c]) : 0.0f;
  return axis;
}

}  // namespace kms
