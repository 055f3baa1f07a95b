// libFuzzer target: the centroids reader behind --init-centroids (k rows of d values, or a file
// written by --out-centroids / Export ▸ Centroids with its cluster and share columns). The first
// byte picks d (1 to 8). Anything but centroids or a LoadError is a bug.
#include "fuzz_support.h"

extern "C" int LLVMFuzzerInitialize(int* argc, char*** argv) {
  kms::fuzz::initialize(argc, argv);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  using namespace kms::app;
  try {
    const int d = 1 + data[0] % 8;
    const std::vector<float> centroids =
        loadCentroids(kms::fuzz::inputFile(data + 1, size - 1, ".csv"), d);
    if (centroids.empty() || centroids.size() % std::size_t(d) != 0) __builtin_trap();
  } catch (const LoadError&) {
  }
  return 0;
}
