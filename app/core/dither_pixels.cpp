#include "core/dither_pixels.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/parallel.h"

namespace kms::app {
namespace {

constexpr int kBayer8[8][8] = {{0, 32, 8, 40, 2, 34, 10, 42},  {48, 16, 56, 24, 50, 18, 58, 26},
                               {12, 44, 4, 36, 14, 46, 6, 38}, {60, 28, 52, 20, 62, 30, 54, 22},
                               {3, 35, 11, 43, 1, 33, 9, 41},  {51, 19, 59, 27, 49, 17, 57, 25},
                               {15, 47, 7, 39, 13, 45, 5, 37}, {63, 31, 55, 23, 61, 29, 53, 21}};

/// Nearest palette colours of a point: distances to all k colours at once, vectorised over the
/// colours (a transposed copy of the palette).
class PaletteSearch {
 public:
  PaletteSearch(const std::vector<float>& centroids, int d)
      : d_(d), k_(int(centroids.size() / std::size_t(d))), padded_((k_ + 7) & ~7) {
    columns_.assign(std::size_t(d_) * std::size_t(padded_), std::numeric_limits<float>::max() / 8);
    for (int j = 0; j < k_; ++j)
      for (int c = 0; c < d_; ++c)
        columns_[std::size_t(c) * std::size_t(padded_) + std::size_t(j)] =
            centroids[std::size_t(j) * std::size_t(d_) + std::size_t(c)];
    centroids_ = centroids;
  }

  int k() const { return k_; }
  const float* colour(int j) const { return &centroids_[std::size_t(j) * std::size_t(d_)]; }

  /// The nearest colour and the runner-up (−1 when k = 1); ties to the lower index.
  void nearestTwo(const float* x, float* scratch, int& best, int& second) const {
    distances(x, scratch);
    best = 0;
    second = -1;
    for (int j = 1; j < k_; ++j) {
      if (scratch[j] < scratch[best]) {
        second = best;
        best = j;
      } else if (second < 0 || scratch[j] < scratch[second]) {
        second = j;
      }
    }
  }
  int nearest(const float* x, float* scratch) const {
    distances(x, scratch);
    int best = 0;
    for (int j = 1; j < k_; ++j)
      if (scratch[j] < scratch[best]) best = j;
    return best;
  }
  int padded() const { return padded_; }

 private:
  void distances(const float* x, float* out) const {
    std::fill(out, out + padded_, 0.0f);
    for (int c = 0; c < d_; ++c) {
      const float v = x[c];
      const float* column = &columns_[std::size_t(c) * std::size_t(padded_)];
      for (int j = 0; j < padded_; ++j) {
        const float t = v - column[j];
        out[j] += t * t;
      }
    }
  }

  int d_, k_, padded_;
  std::vector<float> columns_;  // d × padded
  std::vector<float> centroids_;
};

std::uint32_t rowOf(const DitherPicture& p, std::size_t pixel) {
  return p.pixelRows ? p.pixelRows[pixel] : std::uint32_t(pixel);
}

/// Floyd–Steinberg over rows [first, last), starting the error at zero `warmup` rows above.
void diffuseBand(const DitherPicture& p, const PaletteSearch& search, const std::vector<float>& lo,
                 const std::vector<float>& hi, int first, int last, DitherSink& out) {
  const int width = p.width, d = p.d, none = search.k();
  const int start = std::max(0, first - kDitherWarmupRows);
  const std::size_t span = std::size_t(width + 2) * std::size_t(d);
  std::vector<float> current(span, 0.0f), next(span, 0.0f);
  std::vector<float> scratch(std::size_t(search.padded()));
  float v[8];
  for (int y = start; y < last; ++y) {
    const bool rightward = y % 2 == 0;  // by absolute row: warm-up rows run as in one pass
    for (int step = 0; step < width; ++step) {
      const int x = rightward ? step : width - 1 - step;
      const std::uint32_t row = rowOf(p, std::size_t(y) * std::size_t(width) + std::size_t(x));
      float* here = &current[std::size_t(x + 1) * std::size_t(d)];
      if (row == kNoPixelRow) {  // transparent: nothing to match, no error to pass on
        if (y >= first) out.set(x, y, none);
        continue;
      }
      const float* colour = &p.rows[std::size_t(row) * std::size_t(d)];
      for (int c = 0; c < d; ++c)
        v[c] = std::clamp(colour[c] + here[c], lo[std::size_t(c)], hi[std::size_t(c)]);
      const int chosen = search.nearest(v, scratch.data());
      if (y >= first) out.set(x, y, chosen);
      const float* got = search.colour(chosen);
      const int dir = rightward ? 1 : -1;
      float* ahead = here + dir * d;
      float* below_ahead = &next[std::size_t(x + 1 + dir) * std::size_t(d)];
      float* below = &next[std::size_t(x + 1) * std::size_t(d)];
      float* below_behind = &next[std::size_t(x + 1 - dir) * std::size_t(d)];
      for (int c = 0; c < d; ++c) {
        const float e = v[c] - got[c];
        ahead[c] += e * (7.0f / 16.0f);
        below_behind[c] += e * (3.0f / 16.0f);
        below[c] += e * (5.0f / 16.0f);
        below_ahead[c] += e * (1.0f / 16.0f);
      }
    }
    current.swap(next);
    std::fill(next.begin(), next.end(), 0.0f);
  }
}

}  // namespace

std::string_view toString(DitherMode mode) {
  switch (mode) {
    case DitherMode::None:
      return "none";
    case DitherMode::FloydSteinberg:
      return "fs";
    case DitherMode::Ordered:
      return "ordered";
  }
  return "?";
}

std::optional<DitherMode> parseDitherMode(std::string_view text) {
  if (text == "none" || text == "off") return DitherMode::None;
  if (text == "fs" || text == "floyd-steinberg") return DitherMode::FloydSteinberg;
  if (text == "ordered" || text == "bayer") return DitherMode::Ordered;
  return std::nullopt;
}

bool ditherPixels(const DitherPicture& p, const std::vector<float>& centroids, DitherMode mode,
                  DitherSink& out, const std::atomic<bool>* cancel) {
  const int d = p.d;
  if (p.width <= 0 || p.height <= 0 || d < 1 || d > 8 || p.rows == nullptr || centroids.empty() ||
      centroids.size() % std::size_t(d) != 0 ||
      (p.pixelRows == nullptr && p.rowCount < std::size_t(p.width) * std::size_t(p.height)))
    throw std::invalid_argument("ditherPixels: needs a picture, its rows and k centroids");
  const PaletteSearch search(centroids, d);
  const int none = search.k();
  const auto stop = [cancel] { return cancel && cancel->load(std::memory_order_relaxed); };

  if (mode == DitherMode::FloydSteinberg) {
    // Diffused colours stay inside the box of the data and the palette: error cannot pile up
    // in saturated areas, and a flat area can still reach the colours around it.
    std::vector<float> lo(std::size_t(d), std::numeric_limits<float>::max()),
        hi(std::size_t(d), std::numeric_limits<float>::lowest());
    const auto extend = [&](const float* v) {
      for (int c = 0; c < d; ++c) {
        lo[std::size_t(c)] = std::min(lo[std::size_t(c)], v[c]);
        hi[std::size_t(c)] = std::max(hi[std::size_t(c)], v[c]);
      }
    };
    for (std::size_t r = 0; r < p.rowCount; ++r)
      extend(&p.rows[r * std::size_t(d)]);
    for (int j = 0; j < search.k(); ++j)
      extend(search.colour(j));
    const int bands = (p.height + kDitherBandRows - 1) / kDitherBandRows;
    parallelRanges(std::size_t(bands), 1, [&](std::size_t b0, std::size_t b1) {
      for (std::size_t b = b0; b < b1 && !stop(); ++b)
        diffuseBand(p, search, lo, hi, int(b) * kDitherBandRows,
                    std::min(p.height, int(b + 1) * kDitherBandRows), out);
    });
  } else {
    parallelRanges(std::size_t(p.height), 16, [&](std::size_t y0, std::size_t y1) {
      std::vector<float> scratch(std::size_t(search.padded()));
      for (std::size_t y = y0; y < y1 && !stop(); ++y)
        for (int x = 0; x < p.width; ++x) {
          const std::uint32_t row = rowOf(p, y * std::size_t(p.width) + std::size_t(x));
          if (row == kNoPixelRow) {
            out.set(x, int(y), none);
            continue;
          }
          const float* v = &p.rows[std::size_t(row) * std::size_t(d)];
          int best = 0, second = -1;
          if (mode == DitherMode::None) {
            best = search.nearest(v, scratch.data());
          } else {
            search.nearestTwo(v, scratch.data(), best, second);
            if (second >= 0) {
              // Where v lies between its two nearest colours decides how often the second
              // shows: the pattern then averages to v's projection on their segment.
              const float* a = search.colour(best);
              const float* b = search.colour(second);
              float along = 0.0f, length = 0.0f;
              for (int c = 0; c < d; ++c) {
                along += (v[c] - a[c]) * (b[c] - a[c]);
                length += (b[c] - a[c]) * (b[c] - a[c]);
              }
              const float t = length > 0.0f ? along / length : 0.0f;
              const float threshold = (float(kBayer8[y & 7][x & 7]) + 0.5f) / 64.0f;
              if (t > threshold) best = second;
            }
          }
          out.set(x, int(y), best);
        }
    });
  }
  return !stop();
}

}  // namespace kms::app
