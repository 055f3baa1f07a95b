#include "synthetic_photo.h"

#include <algorithm>
#include <cmath>
#include <thread>

namespace kms::synthetic {
namespace {

std::uint32_t hash2(int x, int y, std::uint32_t seed) {
  std::uint32_t h = static_cast<std::uint32_t>(x) * 0x8da6b343u ^
                    static_cast<std::uint32_t>(y) * 0xd8163841u ^ seed * 0xcb1ab31fu;
  h ^= h >> 13;
  h *= 0x5bd1e995u;
  return h ^ (h >> 15);
}

float lattice(int x, int y, std::uint32_t seed) {
  return (hash2(x, y, seed) & 0xffffff) / float(0xffffff);
}

/// Smooth value noise in [0, 1].
float valueNoise(float x, float y, std::uint32_t seed) {
  const int xi = static_cast<int>(std::floor(x)), yi = static_cast<int>(std::floor(y));
  const float fx = x - xi, fy = y - yi;
  const float sx = fx * fx * (3 - 2 * fx), sy = fy * fy * (3 - 2 * fy);
  const float a = lattice(xi, yi, seed), b = lattice(xi + 1, yi, seed);
  const float c = lattice(xi, yi + 1, seed), d = lattice(xi + 1, yi + 1, seed);
  return (a + (b - a) * sx) + ((c + (d - c) * sx) - (a + (b - a) * sx)) * sy;
}

float fractal(float x, float y, int octaves, std::uint32_t seed) {
  float sum = 0, amp = 0.5f, freq = 1;
  for (int o = 0; o < octaves; ++o) {
    sum += amp * valueNoise(x * freq, y * freq, seed + o * 101);
    amp *= 0.5f;
    freq *= 2.03f;
  }
  return sum;
}

struct Rgb {
  float r, g, b;
};
Rgb mix(Rgb a, Rgb b, float t) {
  return {a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t};
}

/// Colour of a point of the scene at normalised coordinates (u right, v down, both in [0, 1]).
Rgb scene(float u, float v, std::uint32_t seed) {
  const float horizon = 0.58f;
  // Sky: warm near the horizon, deep blue above, soft clouds, a sun.
  auto sky = [&](float su, float sv) {
    Rgb c =
        mix(Rgb{0.98f, 0.72f, 0.45f}, Rgb{0.18f, 0.36f, 0.72f}, std::pow(1 - sv / horizon, 0.8f));
    const float cloud = std::clamp(fractal(su * 6, sv * 14, 5, seed) * 1.6f - 0.62f, 0.0f, 1.0f);
    c = mix(c, Rgb{0.97f, 0.93f, 0.9f}, cloud * 0.8f);
    const float du = su - 0.72f, dv = (sv - 0.36f) * 1.1f;
    const float sun = std::exp(-(du * du + dv * dv) * 900.0f),
                glow = std::exp(-(du * du + dv * dv) * 25.0f);
    return mix(mix(c, Rgb{1.0f, 0.85f, 0.6f}, glow * 0.45f), Rgb{1.0f, 0.98f, 0.9f},
               std::min(1.0f, sun * 1.5f));
  };
  auto ridge = [&](float su, float base, float amp, int s) {
    return base - amp * fractal(su * 3.5f, s * 7.1f, 6, seed + s);
  };
  const float far_ridge = ridge(u, 0.50f, 0.22f, 1), near_ridge = ridge(u, 0.60f, 0.16f, 2);
  if (v < horizon) {
    if (v > near_ridge) {  // near mountains: green-brown slopes with rock
      const float t = fractal(u * 20, v * 20, 4, seed + 7);
      return mix(Rgb{0.20f, 0.32f, 0.14f}, Rgb{0.42f, 0.38f, 0.30f}, t);
    }
    if (v > far_ridge) {  // far mountains: hazy blue-violet, snow on the peaks
      const float snow = std::clamp((far_ridge + 0.05f - v) * 30.0f, 0.0f, 1.0f) *
                         (fractal(u * 40, v * 40, 3, seed + 9) > 0.45f);
      return mix(mix(Rgb{0.36f, 0.40f, 0.55f}, Rgb{0.55f, 0.58f, 0.70f}, (v - far_ridge) * 6),
                 Rgb{0.94f, 0.95f, 0.98f}, snow);
    }
    return sky(u, v);
  }
  // Below the horizon: a lake mirroring the sky and ridges with ripples, then a grassy shore
  // with trees.
  const float shore = 0.80f + 0.05f * fractal(u * 4, 3.3f, 4, seed + 11);
  if (v < shore) {
    const float ripple = 0.004f * std::sin(v * 900.0f + 6 * fractal(u * 30, v * 200, 3, seed + 13));
    const float mv = 2 * horizon - v + ripple;
    Rgb reflected = mv > near_ridge
                        ? Rgb{0.14f, 0.22f, 0.12f}
                        : (mv > far_ridge ? Rgb{0.30f, 0.34f, 0.48f} : sky(u + ripple, mv));
    return mix(reflected, Rgb{0.05f, 0.16f, 0.22f},
               0.35f + 0.3f * (v - horizon) / (shore - horizon));
  }
  const float tree = fractal(u * 60, v * 25, 5, seed + 17);
  if (tree > 0.55f && v < 0.93f)
    return mix(Rgb{0.06f, 0.20f, 0.08f}, Rgb{0.15f, 0.35f, 0.10f}, (tree - 0.55f) * 3);
  const float grass = fractal(u * 80, v * 80, 4, seed + 19);
  return mix(Rgb{0.35f, 0.50f, 0.18f}, Rgb{0.62f, 0.58f, 0.25f}, grass);
}

}  // namespace

std::vector<float> syntheticPhoto(int width, int height, std::uint32_t seed) {
  std::vector<float> rgb(static_cast<std::size_t>(width) * height * 3);
  const int threads = std::max(1u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      for (int y = t; y < height; y += threads) {
        for (int x = 0; x < width; ++x) {
          const Rgb c = scene((x + 0.5f) / width, (y + 0.5f) / height, seed);
          const float grain = (lattice(x, y, seed + 23) - 0.5f) * 0.04f;  // film grain
          float* px = &rgb[(static_cast<std::size_t>(y) * width + x) * 3];
          px[0] = std::clamp(c.r + grain, 0.0f, 1.0f);
          px[1] = std::clamp(c.g + grain, 0.0f, 1.0f);
          px[2] = std::clamp(c.b + grain, 0.0f, 1.0f);
        }
      }
    });
  }
  for (auto& th : pool)
    th.join();
  return rgb;
}

}  // namespace kms::synthetic
