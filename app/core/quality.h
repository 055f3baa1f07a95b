// How close a quantised picture is to the original, computed from the compact form (one term
// per distinct colour, weighted by its pixel count) so that it costs little per iteration:
// PSNR in sRGB (8-bit palette, as exported) and the mean CIEDE2000 colour difference.
#pragma once

#include <QRgb>

#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

#include "core/dataset.h"

namespace kms::app {

struct Quality {
  double psnr = std::numeric_limits<double>::quiet_NaN();     ///< dB, R, G and B together
  double deltaE = std::numeric_limits<double>::quiet_NaN();   ///< mean CIEDE2000 over pixels
  bool deltaEExact = false;  ///< false: estimated on a stratified sample of the pixels
  bool valid() const { return psnr == psnr; }
};

/// What the measures need of a picture, prepared once per data set: every row's 8-bit colour
/// and weight, and the rows (with weights) the ΔE estimate uses.
class QualityContext {
 public:
  /// Null for data sets that are not pictures.
  static std::shared_ptr<const QualityContext> build(const Dataset& dataset);

  /// PSNR (exact) and mean ΔE — exact when `exactDeltaE` or when the picture has few distinct
  /// colours, otherwise on a fixed stratified sample of kDeltaESamples pixels. `rowLabels` has a
  /// label per data set row; `palette` the colour of each cluster.
  Quality measure(const std::vector<std::int32_t>& rowLabels, const std::vector<QRgb>& palette,
                  bool exactDeltaE) const;

  static constexpr std::size_t kDeltaESamples = 8192;

 private:
  QualityContext() = default;
  std::vector<float> rgb_;  // rows × 3, 0..255
  std::vector<double> lab_;  // rows × 3
  std::vector<double> weight_;
  double total_ = 0.0;
  std::vector<std::uint32_t> sampleRows_;  // rows of the ΔE sample (with repeats merged)
  std::vector<double> sampleWeight_;
  bool sampleIsExact_ = false;
};

}  // namespace kms::app
