#include "support/compact_data.h"

#include <map>
#include <random>

namespace kms::test {

CompactData compactOf(const std::vector<float>& points, int d) {
  CompactData out;
  out.d = d;
  const std::size_t n = points.size() / std::size_t(d);
  std::map<std::vector<float>, std::uint32_t> seen;
  out.index.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::vector<float> key(points.begin() + std::ptrdiff_t(i * d),
                           points.begin() + std::ptrdiff_t((i + 1) * d));
    const auto [it, inserted] = seen.emplace(key, std::uint32_t(out.counts.size()));
    if (inserted) {
      out.values.insert(out.values.end(), key.begin(), key.end());
      out.counts.push_back(0);
    }
    ++out.counts[it->second];
    out.index[i] = it->second;
  }
  return out;
}

std::vector<float> levelPoints(std::size_t n, int d, int levels, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> level(0, levels - 1);
  std::vector<float> p(n * std::size_t(d));
  for (auto& v : p)
    v = float(level(rng)) / float(levels - 1);
  return p;
}

}  // namespace kms::test
