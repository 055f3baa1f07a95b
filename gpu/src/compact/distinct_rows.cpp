// distinctRows: one pass with an open-addressing hash table of row numbers, keyed by the rows'
// bit patterns (−0 made +0 first), giving up early when the data are nearly all distinct.
#include <bit>
#include <cstring>

#include "kmeans/compact.h"

namespace kms {
namespace {

constexpr std::size_t kCheckEvery = std::size_t(1) << 18;
constexpr std::uint32_t kEmpty = 0xffffffffu;

std::uint64_t hashRow(const std::uint32_t* bits, int d) {
  std::uint64_t h = 0x9e3779b97f4a7c15ull ^ std::uint64_t(d);
  for (int c = 0; c < d; ++c) {
    h ^= bits[c];
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 32;
  }
  return h;
}

}  // namespace

std::optional<DistinctRows> distinctRows(const float* values, std::size_t n, int d,
                                         double max_distinct_fraction) {
  if (d <= 0 || n == 0 || n >= kEmpty) return std::nullopt;
  DistinctRows out;
  out.d = d;
  out.index.resize(n);
  std::vector<std::uint32_t> table(1024, kEmpty);
  std::vector<std::uint32_t> bits(static_cast<std::size_t>(d));  // the canonical row being looked up
  std::vector<std::uint32_t> stored;                               // canonical bits of every row
  for (std::size_t i = 0; i < n; ++i) {
    for (int c = 0; c < d; ++c)
      bits[c] = std::bit_cast<std::uint32_t>(values[i * d + c] + 0.0f);  // −0 + 0 = +0
    const std::size_t mask = table.size() - 1;
    std::size_t slot = hashRow(bits.data(), d) & mask;
    std::uint32_t row = kEmpty;
    while (table[slot] != kEmpty) {
      const std::uint32_t candidate = table[slot];
      if (std::memcmp(&stored[std::size_t(candidate) * d], bits.data(), sizeof(std::uint32_t) * d) ==
          0) {
        row = candidate;
        break;
      }
      slot = (slot + 1) & mask;
    }
    if (row == kEmpty) {
      row = static_cast<std::uint32_t>(out.counts.size());
      table[slot] = row;
      stored.insert(stored.end(), bits.begin(), bits.end());
      out.counts.push_back(0);
      if (out.counts.size() * 2 > table.size()) {  // keep the load under one half
        std::vector<std::uint32_t> grown(table.size() * 2, kEmpty);
        const std::size_t grown_mask = grown.size() - 1;
        for (std::uint32_t r = 0; r < out.counts.size(); ++r) {
          std::size_t s = hashRow(&stored[std::size_t(r) * d], d) & grown_mask;
          while (grown[s] != kEmpty)
            s = (s + 1) & grown_mask;
          grown[s] = r;
        }
        table.swap(grown);
      }
    }
    ++out.counts[row];
    out.index[i] = row;
    if ((i + 1) % kCheckEvery == 0 &&
        double(out.counts.size()) > max_distinct_fraction * double(i + 1))
      return std::nullopt;  // nearly every item is new: compaction would not pay
  }
  if (double(out.counts.size()) > max_distinct_fraction * double(n)) return std::nullopt;
  out.values.resize(stored.size());
  std::memcpy(out.values.data(), stored.data(), stored.size() * sizeof(float));
  return out;
}

}  // namespace kms
