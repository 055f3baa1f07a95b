// A small deterministic random number generator for the data generators.
//
// Why not <random>: std::normal_distribution (and the other distributions) are specified by
// their results' distribution only, so libstdc++, libc++ and MSVC produce different sequences
// for the same seed. Generated data sets must be identical everywhere for a seed, so the
// generator (xoshiro256**, seeded through splitmix64) and the transforms (53-bit uniforms,
// Box-Muller) are spelled out here.
#pragma once

#include <cstdint>

namespace kms::app {

class Random {
 public:
  explicit Random(std::uint64_t seed);

  /// The next 64 random bits (xoshiro256**).
  std::uint64_t next();
  /// Uniform in [0, 1) with 53 random bits.
  double uniform();
  /// Uniform in [lo, hi).
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  /// Standard normal (mean 0, standard deviation 1), Box-Muller; the second value of each pair
  /// is kept for the next call.
  double normal();

 private:
  std::uint64_t state_[4];
  double spareNormal_ = 0.0;
  bool hasSpare_ = false;
};

}  // namespace kms::app
