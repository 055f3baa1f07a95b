// Test data with many repeated values and a deliberately simple compaction (std::map), used to
// check the engines' exactness on compact data against the expanded data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kmeans/data.h"

namespace kms::test {

/// Distinct rows in order of first occurrence, their counts, and each point's row.
struct CompactData {
  int d = 0;
  std::vector<float> values;
  std::vector<std::uint32_t> counts;
  std::vector<std::uint32_t> index;
  std::size_t rows() const { return counts.size(); }
  DataView view() const { return DataView{values.data(), rows(), d, nullptr, counts.data()}; }
};

CompactData compactOf(const std::vector<float>& points, int d);

/// n points whose coordinates take `levels` evenly spaced values in [0, 1] (like 8-bit colours
/// with few levels): many exact repeats.
std::vector<float> levelPoints(std::size_t n, int d, int levels, std::uint64_t seed);

}  // namespace kms::test
