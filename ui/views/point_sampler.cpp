#include "views/point_sampler.h"

#include <algorithm>
#include <cmath>
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

DrawnRows drawnRows(const kms::app::Dataset& data, std::size_t limit, std::uint64_t seed) {
  DrawnRows out;
  if (data.counts.empty()) {
    out.rows = samplePoints(data.n, limit, seed);
    out.sizes.assign(out.rows.size(), 1);
    return out;
  }
  if (data.n <= limit) {
    out.rows.resize(data.n);
    std::iota(out.rows.begin(), out.rows.end(), 0u);
  } else {
    // Efraimidis–Spirakis: the `limit` largest keys log(u) / count are a sample without
    // replacement with probabilities proportional to the counts.
    kms::app::Random random(seed);
    std::vector<std::pair<double, std::uint32_t>> keys(data.n);
    for (std::size_t r = 0; r < data.n; ++r) {
      const double u = (double(random.next() >> 11) + 0.5) * 0x1.0p-53;
      keys[r] = {std::log(u) / double(data.counts[r]), std::uint32_t(r)};
    }
    std::nth_element(keys.begin(), keys.begin() + std::ptrdiff_t(limit), keys.end(),
                     [](const auto& a, const auto& b) { return a.first > b.first; });
    out.rows.resize(limit);
    for (std::size_t j = 0; j < limit; ++j)
      out.rows[j] = keys[j].second;
    std::sort(out.rows.begin(), out.rows.end());
  }
  std::uint32_t most = 1;
  for (std::uint32_t r : out.rows)
    most = std::max(most, data.counts[r]);
  // Thirds of the log scale from 1 to the largest count drawn.
  const double top = std::log(double(most) + 1.0);
  out.sizes.resize(out.rows.size());
  for (std::size_t j = 0; j < out.rows.size(); ++j) {
    const double level = std::log(double(data.counts[out.rows[j]])) / top;
    out.sizes[j] = std::uint8_t(std::clamp(int(level * kSizeClasses), 0, kSizeClasses - 1));
  }
  return out;
}

}  // namespace kms::ui
