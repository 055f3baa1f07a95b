#include "tools/photo_canvas.h"

namespace kms::app::tools {

QColor mix(const QColor& a, const QColor& b, double t) {
  return QColor::fromRgbF(float(a.redF() + (b.redF() - a.redF()) * t),
                          float(a.greenF() + (b.greenF() - a.greenF()) * t),
                          float(a.blueF() + (b.blueF() - a.blueF()) * t));
}

std::vector<double> ridge(int width, double amplitude, double roughness, Random& rng) {
  int size = 1;
  while (size < width)
    size <<= 1;
  std::vector<double> height(std::size_t(size) + 1);
  height.front() = rng.uniform(-0.5, 0.5) * amplitude;
  height.back() = rng.uniform(-0.5, 0.5) * amplitude;
  double scale = amplitude;
  for (int step = size; step > 1; step /= 2) {
    for (int i = step / 2; i < size; i += step)
      height[std::size_t(i)] =
          0.5 * (height[std::size_t(i - step / 2)] + height[std::size_t(i + step / 2)]) +
          rng.uniform(-1.0, 1.0) * scale;
    scale *= roughness;
  }
  height.resize(std::size_t(width) + 1);
  return height;
}

}  // namespace kms::app::tools
