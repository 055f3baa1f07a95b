// A bitmap over the 2^24 RGB colour cube with rank queries: which colours occur, and how many
// occurring colours come before a given one (its row in key order).
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

#include "common/thread_pool.h"

namespace kms::compact {

class CubeBitmap {
 public:
  static constexpr std::size_t kWords = std::size_t(1) << 18;  // 2^24 bits: 2 MiB

  void allocate() {
    if (words_.empty()) words_.assign(kWords, 0);
  }
  bool allocated() const { return !words_.empty(); }

  void set(std::uint32_t key) { words_[key >> 6] |= std::uint64_t(1) << (key & 63); }

  /// ORs `other` into this bitmap.
  void merge(const CubeBitmap& other, ThreadPool& pool) {
    constexpr std::size_t kBlock = 1 << 14;
    pool.parallelFor(kWords / kBlock, [&](std::size_t b, int) {
      for (std::size_t w = b * kBlock; w < (b + 1) * kBlock; ++w)
        words_[w] |= other.words_[w];
    });
  }

  /// Computes the ranks; returns the number of colours present.
  std::uint32_t rank() {
    ranks_.resize(kWords);
    std::uint32_t total = 0;
    for (std::size_t w = 0; w < kWords; ++w) {
      ranks_[w] = total;
      total += static_cast<std::uint32_t>(std::popcount(words_[w]));
    }
    return total;
  }

  /// Number of present colours below `key` (rank() first).
  std::uint32_t rankOf(std::uint32_t key) const {
    const std::uint64_t below = words_[key >> 6] & ((std::uint64_t(1) << (key & 63)) - 1);
    return ranks_[key >> 6] + static_cast<std::uint32_t>(std::popcount(below));
  }

  /// Calls f(key) for every present colour, ascending.
  template <typename F>
  void forEachKey(F&& f) const {
    for (std::size_t w = 0; w < kWords; ++w)
      for (std::uint64_t bits = words_[w]; bits != 0; bits &= bits - 1)
        f(static_cast<std::uint32_t>((w << 6) | static_cast<std::size_t>(std::countr_zero(bits))));
  }

 private:
  std::vector<std::uint64_t> words_;
  std::vector<std::uint32_t> ranks_;
};

}  // namespace kms::compact
