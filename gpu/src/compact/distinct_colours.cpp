// distinctColours on the CPU: a bitmap of the 2^24 colour cube per worker (2 MiB, stays in
// cache), OR-ed together; the rank of a key is the number of set bits before it (a prefix count
// per 64-bit word plus one popcount), which is the key's row because rows are in key order.
// Pixels with partial alpha, when alpha is kept, are few (edges): they are sorted instead.
#include <algorithm>

#include "common/thread_pool.h"
#include "compact/colour_cube.h"
#include "kmeans/compact.h"

namespace kms {
namespace {

constexpr std::size_t kChunk = std::size_t(1) << 20;  // pixels per task

std::size_t chunksOf(std::size_t n) {
  return (n + kChunk - 1) / kChunk;
}

/// Which class a pixel falls in under `keying`.
enum class PixelClass { Skipped, Opaque, Translucent };

PixelClass classify(std::uint32_t pixel, const ColourKeying& keying) {
  const std::uint32_t alpha = pixel >> 24;
  if (keying.skip_transparent && alpha == 0) return PixelClass::Skipped;
  if (keying.keep_alpha && alpha != 255) return PixelClass::Translucent;
  return PixelClass::Opaque;
}

}  // namespace

DistinctColours distinctColours(const std::uint32_t* pixels, std::size_t n,
                                const ColourKeying& keying, int threads) {
  ThreadPool pool(threads);
  const std::size_t chunks = chunksOf(n);
  const int workers = pool.size();

  // Pass 1: which opaque colours occur (a bitmap per worker), and the translucent pixels.
  std::vector<compact::CubeBitmap> seen(static_cast<std::size_t>(workers));
  std::vector<std::vector<std::uint32_t>> translucent(chunks);  // keys with partial alpha
  pool.parallelFor(chunks, [&](std::size_t c, int worker) {
    compact::CubeBitmap& bits = seen[static_cast<std::size_t>(worker)];
    bits.allocate();
    const std::size_t begin = c * kChunk, end = std::min(n, begin + kChunk);
    for (std::size_t i = begin; i < end; ++i) {
      const std::uint32_t p = pixels[i];
      switch (classify(p, keying)) {
        case PixelClass::Opaque:
          bits.set(p & 0xffffffu);
          break;
        case PixelClass::Translucent:
          translucent[c].push_back(p);
          break;
        case PixelClass::Skipped:
          break;
      }
    }
  });
  compact::CubeBitmap cube;
  cube.allocate();
  for (const compact::CubeBitmap& bits : seen)
    if (bits.allocated()) cube.merge(bits, pool);
  seen.clear();
  const std::uint32_t opaque_rows = cube.rank();

  // Translucent keys (alpha < 255) sort before every opaque key (alpha 255).
  std::vector<std::uint32_t> translucent_keys;
  for (const auto& list : translucent)
    translucent_keys.insert(translucent_keys.end(), list.begin(), list.end());
  std::sort(translucent_keys.begin(), translucent_keys.end());
  translucent_keys.erase(std::unique(translucent_keys.begin(), translucent_keys.end()),
                         translucent_keys.end());
  const auto first_opaque = static_cast<std::uint32_t>(translucent_keys.size());

  DistinctColours out;
  const std::size_t rows = std::size_t(first_opaque) + opaque_rows;
  out.keys.reserve(rows);
  out.keys = translucent_keys;
  const std::uint32_t opaque_tag = keying.keep_alpha ? 0xff000000u : 0u;
  cube.forEachKey([&](std::uint32_t key) { out.keys.push_back(opaque_tag | key); });

  // Pass 2: every pixel's row, and the counts (per worker, then added: exact in any order).
  out.index.resize(n);
  std::vector<std::vector<std::uint32_t>> counts(static_cast<std::size_t>(workers));
  pool.parallelFor(chunks, [&](std::size_t c, int worker) {
    std::vector<std::uint32_t>& mine = counts[static_cast<std::size_t>(worker)];
    if (mine.empty()) mine.assign(rows, 0);
    const std::size_t begin = c * kChunk, end = std::min(n, begin + kChunk);
    for (std::size_t i = begin; i < end; ++i) {
      const std::uint32_t p = pixels[i];
      std::uint32_t row = kNoRow;
      switch (classify(p, keying)) {
        case PixelClass::Opaque:
          row = first_opaque + cube.rankOf(p & 0xffffffu);
          break;
        case PixelClass::Translucent:
          row = static_cast<std::uint32_t>(
              std::lower_bound(translucent_keys.begin(), translucent_keys.end(), p) -
              translucent_keys.begin());
          break;
        case PixelClass::Skipped:
          break;
      }
      out.index[i] = row;
      if (row != kNoRow) ++mine[row];
    }
  });
  out.counts.assign(rows, 0);
  for (const auto& mine : counts)
    if (!mine.empty())
      for (std::size_t r = 0; r < rows; ++r)
        out.counts[r] += mine[r];
  return out;
}

}  // namespace kms
