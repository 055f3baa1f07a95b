// Compaction: distinct colours (bitmap of the colour cube) and distinct rows (hashing) against a
// plain std::map, for every keying and thread count, and the early give-up on distinct data.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "kmeans/compact.h"

namespace kms {
namespace {

/// A picture-like pixel stream: runs of similar colours, a few alphas when asked.
std::vector<std::uint32_t> pixelsWithRepeats(std::size_t n, std::uint64_t seed, bool alphas) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint32_t> p(n);
  std::uint32_t colour = 0x123456;
  for (std::size_t i = 0; i < n; ++i) {
    if (rng() % 8 == 0) colour = std::uint32_t(rng()) & 0xffffffu;
    if (rng() % 3 == 0) colour ^= 1u << (rng() % 24);
    std::uint32_t alpha = 0xff;
    if (alphas) {
      const auto r = rng() % 10;
      alpha = r == 0 ? 0x00 : r == 1 ? std::uint32_t(rng() % 255) : 0xff;
    }
    p[i] = alpha << 24 | colour;
  }
  return p;
}

void expectMatchesMap(const std::vector<std::uint32_t>& pixels, const ColourKeying& keying,
                      const DistinctColours& got) {
  std::map<std::uint32_t, std::uint32_t> counts;
  std::vector<std::uint32_t> key_of(pixels.size(), kNoRow);
  for (std::size_t i = 0; i < pixels.size(); ++i) {
    const std::uint32_t a = pixels[i] >> 24;
    if (keying.skip_transparent && a == 0) continue;
    const std::uint32_t key = keying.keep_alpha ? pixels[i] : (pixels[i] & 0xffffffu);
    ++counts[key];
    key_of[i] = key;
  }
  ASSERT_EQ(got.rows(), counts.size());
  std::size_t r = 0;
  for (const auto& [key, count] : counts) {  // ascending key order
    ASSERT_EQ(got.keys[r], key) << "row " << r;
    ASSERT_EQ(got.counts[r], count) << "row " << r;
    ++r;
  }
  ASSERT_EQ(got.index.size(), pixels.size());
  for (std::size_t i = 0; i < pixels.size(); ++i) {
    if (key_of[i] == kNoRow) {
      ASSERT_EQ(got.index[i], kNoRow) << "pixel " << i;
    } else {
      ASSERT_LT(got.index[i], got.rows());
      ASSERT_EQ(got.keys[got.index[i]], key_of[i]) << "pixel " << i;
    }
  }
}

TEST(DistinctColours, MatchesAMapForEveryKeyingAndThreadCount) {
  const auto opaque = pixelsWithRepeats(1'000'000, 1, false);
  for (int threads : {1, 2, 3})
    expectMatchesMap(opaque, {}, distinctColours(opaque.data(), opaque.size(), {}, threads));
  const auto translucent = pixelsWithRepeats(400'000, 2, true);
  for (ColourKeying keying : {ColourKeying{false, false}, ColourKeying{true, false},
                              ColourKeying{true, true}, ColourKeying{false, true}})
    for (int threads : {1, 2})
      expectMatchesMap(translucent, keying,
                       distinctColours(translucent.data(), translucent.size(), keying, threads));
}

TEST(DistinctColours, EdgeCases) {
  const std::vector<std::uint32_t> one = {0xff000000u};
  const auto a = distinctColours(one.data(), 1);
  EXPECT_EQ(a.keys, std::vector<std::uint32_t>{0u});
  EXPECT_EQ(a.counts, std::vector<std::uint32_t>{1u});
  const std::vector<std::uint32_t> extremes = {0xffffffffu, 0xff000000u, 0xffffffffu};
  const auto b = distinctColours(extremes.data(), extremes.size());
  EXPECT_EQ(b.keys, (std::vector<std::uint32_t>{0u, 0xffffffu}));
  EXPECT_EQ(b.counts, (std::vector<std::uint32_t>{1u, 2u}));
  EXPECT_EQ(b.index, (std::vector<std::uint32_t>{1u, 0u, 1u}));
  const std::vector<std::uint32_t> invisible = {0x00ff0000u, 0x00000000u};
  const auto c = distinctColours(invisible.data(), invisible.size(), {true, true});
  EXPECT_EQ(c.rows(), 0u);
  EXPECT_EQ(c.index, (std::vector<std::uint32_t>{kNoRow, kNoRow}));
  const auto none = distinctColours(nullptr, 0);
  EXPECT_EQ(none.rows(), 0u);
}

TEST(DistinctRows, MatchesAMapAndKeepsFirstOccurrenceOrder) {
  std::mt19937_64 rng(3);
  const int d = 3;
  std::vector<float> values;
  for (int i = 0; i < 50000; ++i)
    for (int c = 0; c < d; ++c)
      values.push_back(float(rng() % 6) * 0.25f - 0.5f);
  values[1] = -0.0f;  // the same value as +0
  const auto rows = distinctRows(values.data(), values.size() / d, d);
  ASSERT_TRUE(rows.has_value());
  std::map<std::vector<float>, std::uint32_t> seen;
  for (std::size_t i = 0; i < values.size() / d; ++i) {
    std::vector<float> key(values.begin() + std::ptrdiff_t(i * d),
                           values.begin() + std::ptrdiff_t(i * d + d));
    for (float& v : key)
      v += 0.0f;
    const auto [it, fresh] = seen.emplace(key, std::uint32_t(seen.size()));
    ASSERT_EQ(rows->index[i], it->second) << "item " << i;
  }
  ASSERT_EQ(rows->rows(), seen.size());
  std::uint64_t total = 0;
  for (auto c : rows->counts)
    total += c;
  EXPECT_EQ(total, values.size() / d);
  for (const auto& [key, row] : seen)
    for (int c = 0; c < d; ++c)
      EXPECT_EQ(rows->values[std::size_t(row) * d + c], key[std::size_t(c)]);
}

TEST(DistinctRows, GivesUpEarlyOnDistinctData) {
  std::vector<float> values(3'000'000 * 3);
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  for (float& v : values)
    v = u(rng);
  EXPECT_FALSE(distinctRows(values.data(), values.size() / 3, 3).has_value());
  // A small set that is half repeats does compact.
  std::vector<float> halves(values.begin(), values.begin() + 3000);
  halves.insert(halves.end(), values.begin(), values.begin() + 3000);
  const auto rows = distinctRows(halves.data(), halves.size() / 3, 3);
  ASSERT_TRUE(rows.has_value());
  EXPECT_EQ(rows->rows(), 1000u);
}

}  // namespace
}  // namespace kms
