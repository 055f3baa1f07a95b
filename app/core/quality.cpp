#include "core/quality.h"

#include <algorithm>
#include <cmath>

#include "core/colour_space.h"
#include "core/parallel.h"

namespace kms::app {

namespace {

/// Sums term(i) for i in [0, n) in fixed chunks spread over the hardware threads, then adds the
/// chunk sums in order: the same bits on any number of threads. Each term is (value, weight).
template <typename Term>
std::pair<double, double> chunkedSum(std::size_t n, Term term) {
  constexpr std::size_t kChunk = 16384;
  const std::size_t chunks = (n + kChunk - 1) / kChunk;
  std::vector<std::pair<double, double>> partial(chunks, {0.0, 0.0});
  parallelRanges(chunks, 2, [&](std::size_t begin, std::size_t end) {
    for (std::size_t c = begin; c < end; ++c)
      for (std::size_t i = c * kChunk, last = std::min(n, i + kChunk); i < last; ++i) {
        const auto [value, weight] = term(i);
        partial[c].first += value;
        partial[c].second += weight;
      }
  });
  std::pair<double, double> total{0.0, 0.0};
  for (const auto& p : partial)
    total.first += p.first, total.second += p.second;
  return total;
}

}  // namespace

std::shared_ptr<const QualityContext> QualityContext::build(const Dataset& dataset) {
  if (!dataset.isImage() || dataset.d < 3) return nullptr;
  std::shared_ptr<QualityContext> q(new QualityContext);
  const std::size_t n = dataset.n, d = std::size_t(dataset.d);
  q->rgb_.resize(n * 3);
  q->lab_.resize(n * 3);
  q->weight_.resize(n);
  // Every row on its own thread's share (the CIELAB conversion is most of the cost), the total
  // after, in row order.
  parallelRanges(n, 4096, [&](std::size_t begin, std::size_t end) {
    for (std::size_t r = begin; r < end; ++r) {
      double rgb[3];
      for (int c = 0; c < 3; ++c) {
        q->rgb_[r * 3 + c] = dataset.values[r * d + c] * 255.0f;
        rgb[c] = dataset.values[r * d + c];
      }
      srgbToLab(rgb, &q->lab_[r * 3]);
      q->weight_[r] = dataset.counts.empty() ? 1.0 : double(dataset.counts[r]);
    }
  });
  for (std::size_t r = 0; r < n; ++r)
    q->total_ += q->weight_[r];
  if (n <= kDeltaESamples) {
    q->sampleIsExact_ = true;
    return q;
  }
  // Stratified over pixels: sample j is the pixel at (j + ½)·total / S in row order.
  std::vector<double> prefix(n);
  double running = 0.0;
  for (std::size_t r = 0; r < n; ++r)
    prefix[r] = running += q->weight_[r];
  for (std::size_t j = 0; j < kDeltaESamples; ++j) {
    const double at = (double(j) + 0.5) * q->total_ / double(kDeltaESamples);
    const auto row =
        std::uint32_t(std::upper_bound(prefix.begin(), prefix.end(), at) - prefix.begin());
    const std::uint32_t clamped = std::min<std::uint32_t>(row, std::uint32_t(n - 1));
    if (!q->sampleRows_.empty() && q->sampleRows_.back() == clamped)
      q->sampleWeight_.back() += 1.0;
    else
      q->sampleRows_.push_back(clamped), q->sampleWeight_.push_back(1.0);
  }
  return q;
}

Quality QualityContext::measure(const std::vector<std::int32_t>& rowLabels,
                                const std::vector<QRgb>& palette, bool exactDeltaE) const {
  Quality out;
  const std::size_t n = weight_.size();
  if (rowLabels.size() != n || palette.empty() || !(total_ > 0.0)) return out;
  std::vector<double> paletteLab(palette.size() * 3);
  for (std::size_t j = 0; j < palette.size(); ++j) {
    // As the rows' colours are held (v / 255 in float), so that equal colours differ by 0.
    const double rgb[3] = {qRed(palette[j]) / 255.0f, qGreen(palette[j]) / 255.0f,
                           qBlue(palette[j]) / 255.0f};
    srgbToLab(rgb, &paletteLab[j * 3]);
  }
  const double squared = chunkedSum(n, [&](std::size_t r) {
                           const QRgb p = palette[std::size_t(rowLabels[r])];
                           const double dr = rgb_[r * 3] - qRed(p),
                                        dg = rgb_[r * 3 + 1] - qGreen(p),
                                        db = rgb_[r * 3 + 2] - qBlue(p);
                           return std::pair{weight_[r] * (dr * dr + dg * dg + db * db), 0.0};
                         }).first;
  const double mse = squared / (3.0 * total_);
  out.psnr =
      mse > 0.0 ? 10.0 * std::log10(255.0 * 255.0 / mse) : std::numeric_limits<double>::infinity();
  const auto term = [&](std::size_t r, double w) {
    return std::pair{w * deltaE2000(&lab_[r * 3], &paletteLab[std::size_t(rowLabels[r]) * 3]), w};
  };
  std::pair<double, double> sum;
  if (sampleIsExact_ || exactDeltaE) {
    sum = chunkedSum(n, [&](std::size_t r) { return term(r, weight_[r]); });
    out.deltaEExact = true;
  } else {
    sum = chunkedSum(sampleRows_.size(),
                     [&](std::size_t s) { return term(sampleRows_[s], sampleWeight_[s]); });
  }
  const auto [sumDeltaE, weight] = sum;
  out.deltaE = weight > 0.0 ? sumDeltaE / weight : 0.0;
  return out;
}

}  // namespace kms::app
