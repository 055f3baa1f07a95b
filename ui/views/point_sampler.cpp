#include "views/point_sampler.h"

#include <algorithm>
#include <numeric>
#include <unordered_set>

namespace kms::ui {
namespace {

std::uint64_t splitmix(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

}  // namespace

std::vector<std::uint32_t> samplePoints(std::size_t n, std::size_t limit, std::uint64_t seed) {
  std::vector<std::uint32_t> indices;
  if (n <= limit) {
    indices.resize(n);
    std::iota(indices.begin(), indices.end(), 0u);
    return indices;
  }
  // Floyd's algorithm: `limit` distinct indices in O(limit) expected time, any n.
  std::unordered_set<std::uint32_t> chosen;
  chosen.reserve(limit * 2);
  std::uint64_t state = seed;
  for (std::size_t j = n - limit; j < n; ++j) {
    const auto t = std::uint32_t(splitmix(state) % (j + 1));
    if (!chosen.insert(t).second) chosen.insert(std::uint32_t(j));
  }
  indices.assign(chosen.begin(), chosen.end());
  std::sort(indices.begin(), indices.end());
  return indices;
}

}  // namespace kms::ui
