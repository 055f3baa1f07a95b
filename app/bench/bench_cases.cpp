#include "bench_cases.h"

#include <cmath>
#include <random>

#include "synthetic_photo.h"

namespace kms::bench {
namespace {

/// `groups` Gaussian clusters with random centres in [0, 10)^d and unit-ish spread.
std::vector<float> gaussianMixture(std::size_t n, int d, int groups, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> centre(0.0f, 10.0f);
  std::normal_distribution<float> noise(0.0f, 0.35f);
  std::vector<float> centres(static_cast<std::size_t>(groups) * d);
  for (auto& c : centres)
    c = centre(rng);
  std::uniform_int_distribution<int> pick(0, groups - 1);
  std::vector<float> p(n * d);
  for (std::size_t i = 0; i < n; ++i) {
    const int g = pick(rng);
    for (int c = 0; c < d; ++c)
      p[i * d + c] = centres[static_cast<std::size_t>(g) * d + c] + noise(rng);
  }
  return p;
}

}  // namespace

std::vector<BenchCase> benchCases(bool quick) {
  const std::size_t side = quick ? 512 : 4096;
  const std::size_t million = quick ? 65536 : 1048576;
  const std::string photo = "photo " + std::to_string(side) + "², d=3";
  return {
      {photo + ", k=16", "photo", side * side, 3, 16, 0.10, true},
      {photo + ", k=64", "photo", side * side, 3, 64, 0.25, false},
      {photo + ", k=256", "photo", side * side, 3, 256, 0.80, false},
      {std::to_string(million) + " pts, d=1, k=16", "mix-d1", million, 1, 16, 0.015, true},
      {std::to_string(million) + " pts, d=64, k=256", "mix-d64", million, 64, 256, 1.0, quick},
      {"17695 pts, d=9, k=128", "mix-d9", 17695, 9, 128, 0.05, true},
  };
}

std::vector<float> benchData(const BenchCase& c) {
  if (c.data_key == "photo") {
    const int side = static_cast<int>(std::lround(std::sqrt(static_cast<double>(c.n))));
    return synthetic::syntheticPhoto(side, side, 7);
  }
  return gaussianMixture(c.n, c.d, c.d == 1 ? 24 : 2 * c.k, 1000 + c.d);
}

}  // namespace kms::bench
