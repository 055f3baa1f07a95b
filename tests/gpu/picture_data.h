// A test picture for the point tiles' and the groups' tests: smooth channels with a little
// noise, quantised like a photo's 8-bit channels.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "gpu_test_support.h"

namespace kms::test {

/// A w × h picture of d smooth channels with a little noise, quantised to 8 bits (values
/// /255), or posterised to levels `step` apart: neighbouring pixels alike; posterised, most
/// pixels repeat a few hundred colours, as a photo's millions of pixels repeat its colours — what
/// point tiles are for.
inline std::vector<float> picture(int w, int h, int d, std::uint64_t seed, int step = 1) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<float> noise(0.0f, 3.0f);
  std::uniform_real_distribution<float> phase(0.0f, 6.28f);
  float ph[4][2];
  for (auto& p : ph) {
    p[0] = phase(rng);
    p[1] = phase(rng);
  }
  std::vector<float> p;
  p.reserve(std::size_t(w) * h * d);
  for (int y = 0; y < h; ++y)
    for (int x = 0; x < w; ++x)
      for (int c = 0; c < d; ++c) {
        const float v = 127.5f + 100.0f * std::sin(0.013f * (c + 1) * x + ph[c][0]) *
                                     std::cos(0.009f * (c + 2) * y + ph[c][1]);
        const float q = std::round(std::min(255.0f, std::max(0.0f, v + noise(rng))) / step);
        p.push_back(std::min(255.0f, q * step) / 255.0f);
      }
  return p;
}

/// Given centroids for the pictures' trajectories: k uniform in [0.1, 0.9]^d (seeded), and with
/// `far` every third of them moved 30 away along the first axis — clusters that empty and
/// re-seed (ReseedFarthest; KeepCentroid otherwise).
inline KMeansConfig pictureStart(int k, int d, std::uint64_t seed, bool far) {
  auto start = uniformPoints(std::size_t(k), d, seed, 0.1f, 0.9f);
  if (far)
    for (int j = 0; j < k; j += 3)
      start[std::size_t(j) * d] += 30.0f;
  KMeansConfig config = givenCentroids(start, k);
  config.empty_clusters =
      far ? EmptyClusterPolicy::ReseedFarthest : EmptyClusterPolicy::KeepCentroid;
  return config;
}

}  // namespace kms::test
