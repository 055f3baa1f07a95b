// The benchmark cases of kmeans-bench and the data they run on.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace kms::bench {

struct BenchCase {
  std::string name;      ///< e.g. "photo 4096², d=3, k=16"
  std::string data_key;  ///< cases with the same key share one data set
  std::size_t n = 0;
  int d = 0;
  int k = 0;
  double target_ms = 0.0;  ///< per-iteration target on an H100/H200 (0 = none)
  bool run_cpu = false;    ///< also time the CPU backend
};

/// The cases of the issue (full size), or scaled-down ones for a quick smoke run.
std::vector<BenchCase> benchCases(bool quick);

/// The data of a case: a photo-like image for "photo", Gaussian mixtures otherwise.
std::vector<float> benchData(const BenchCase& c);

}  // namespace kms::bench
