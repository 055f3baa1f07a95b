#include "common/seeding.h"

#include <algorithm>
#include <cmath>
#include <unordered_set>

#include "common/parallel_sampling.h"

namespace kms::seeding {
namespace {

constexpr std::uint64_t kStreamRandomInit = 0x52414e44;  // "RAND"
constexpr std::uint64_t kStreamPlusPlus = 0x4b4d5050;    // "KMPP"
constexpr std::uint64_t kStreamWeighted = 0x57524e44;    // "WRND"
constexpr std::uint64_t kStreamGreedy = 0x47524459;      // "GRDY"

/// Uniform integer in [0, bound) by multiply-high (Lemire), bias < 2^-64 · bound.
std::uint64_t below(std::uint64_t h, std::uint64_t bound) {
  __extension__ using u128 = unsigned __int128;
  return static_cast<std::uint64_t>((static_cast<u128>(h) * bound) >> 64);
}

}  // namespace

std::uint64_t hash(std::uint64_t seed, std::uint64_t stream, std::uint64_t counter) {
  return counterHash(seed, stream, counter);
}

double uniform(std::uint64_t seed, std::uint64_t stream, std::uint64_t counter) {
  return counterUniform(seed, stream, counter);
}

std::vector<std::size_t> distinctIndices(std::size_t n, int k, std::uint64_t seed) {
  std::vector<std::size_t> picked;
  picked.reserve(static_cast<std::size_t>(k));
  std::unordered_set<std::size_t> taken;
  taken.reserve(static_cast<std::size_t>(k) * 2);
  std::uint64_t counter = 0;
  // Floyd: for j = n−k .. n−1 draw t in [0, j]; take t unless already taken, then take j.
  for (std::size_t j = n - static_cast<std::size_t>(k); j < n; ++j) {
    const std::size_t t = below(hash(seed, kStreamRandomInit, counter++), j + 1);
    const std::size_t chosen = taken.count(t) ? j : t;
    taken.insert(chosen);
    picked.push_back(chosen);
  }
  return picked;
}

std::vector<std::size_t> weightedDistinctIndices(const std::uint32_t* counts, std::size_t n, int k,
                                                 std::uint64_t seed) {
  // Fenwick tree over the counts: prefix sums and "first index whose prefix exceeds t" in
  // O(log n); a drawn index has its count removed, so it cannot be drawn again.
  std::vector<std::uint64_t> tree(n + 1, 0);
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < n; ++i) {
    total += counts[i];
    tree[i + 1] += counts[i];
    const std::size_t parent = (i + 1) + ((i + 1) & (~(i + 1) + 1));
    if (parent <= n) tree[parent] += tree[i + 1];
  }
  std::size_t top = 1;
  while (top * 2 <= n)
    top *= 2;
  std::vector<std::size_t> picked;
  picked.reserve(static_cast<std::size_t>(k));
  for (int j = 0; j < k && total > 0; ++j) {
    std::uint64_t t = below(hash(seed, kStreamWeighted, static_cast<std::uint64_t>(j)), total);
    std::size_t pos = 0;  // largest pos with prefix(pos) ≤ t; the draw is index pos (0-based)
    for (std::size_t step = top; step > 0; step >>= 1) {
      if (pos + step <= n && tree[pos + step] <= t) {
        pos += step;
        t -= tree[pos];
      }
    }
    picked.push_back(pos);
    const std::uint64_t c = counts[pos];
    total -= c;
    for (std::size_t i = pos + 1; i <= n; i += i & (~i + 1))
      tree[i] -= c;
  }
  return picked;
}

double plusPlusUniform(std::uint64_t seed, int j) {
  return uniform(seed, kStreamPlusPlus, static_cast<std::uint64_t>(j));
}

int greedyCandidates(int k) {
  return std::min(16, 2 + static_cast<int>(std::log(static_cast<double>(std::max(k, 1)))));
}

double greedyUniform(std::uint64_t seed, int j, int l) {
  return uniform(seed, kStreamGreedy,
                 static_cast<std::uint64_t>(j) * 64 + static_cast<std::uint64_t>(l));
}

double potentialScale(double bound) {
  if (!(bound > 0.0) || !std::isfinite(bound)) return 1.0;
  int e = 0;
  std::frexp(bound, &e);  // bound < 2^e
  return std::ldexp(1.0, std::clamp(61 - e, -1000, 1000));
}

double potentialScale(const DataSummary& summary) {
  return potentialScale(summary.total_weight * squaredDiameter(summary) * 1.01 + 1.0);
}

ChunkPick pickChunk(const std::vector<double>& chunk_sums, double u) {
  double total = 0.0;
  for (double s : chunk_sums)
    total += s;
  ChunkPick pick;
  if (!(total > 0.0)) return pick;
  double target = u * total;
  long long last_nonzero = -1;
  for (std::size_t c = 0; c < chunk_sums.size(); ++c) {
    if (chunk_sums[c] > 0.0) last_nonzero = static_cast<long long>(c);
    if (target < chunk_sums[c]) {
      pick.chunk = static_cast<long long>(c);
      pick.target = target;
      return pick;
    }
    target -= chunk_sums[c];
  }
  // Rounding pushed the draw past the end: take the last chunk with mass, at its end.
  pick.chunk = last_nonzero;
  pick.target = chunk_sums[static_cast<std::size_t>(last_nonzero)];
  return pick;
}

}  // namespace kms::seeding
