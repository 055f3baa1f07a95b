#include "views/point_sampler.h"

#include <algorithm>
#include <numeric>
#include <unordered_set>

#include "core/random.h"

namespace kms::ui {

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
  kms::app::Random random(seed);
  for (std::size_t j = n - limit; j < n; ++j) {
    const auto t = std::uint32_t(random.next() % (j + 1));
    if (!chosen.insert(t).second) chosen.insert(std::uint32_t(j));
  }
  indices.assign(chosen.begin(), chosen.end());
  std::sort(indices.begin(), indices.end());
  return indices;
}

}  // namespace kms::ui
