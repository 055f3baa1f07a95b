// Synthetic point sets for teaching and testing. Deterministic: the same parameters give the
// same points on every platform (see core/random.h).
#pragma once

#include <QString>

#include <cstdint>
#include <optional>

#include "core/dataset.h"

namespace kms::app {

enum class GeneratorKind {
  Blobs,    ///< `groups` isotropic Gaussian blobs in d dimensions, centres spread in [-1, 1]^d
  Rings,    ///< `groups` concentric circles (2-D), radii 1/groups, 2/groups, ..., 1
  Moons,    ///< two interleaving half circles of radius 1 (2-D); `groups` is ignored
  Uniform,  ///< uniform in the cube [-1, 1]^d; `groups` and `noise` are ignored
  Photo,    ///< a procedural landscape picture (an image data set) of about n pixels, square;
            ///< `groups`, `d` and `noise` are ignored. For benchmarks and large-image demos.
  // The textbook cases where k-means struggles (2-D; blobs placed as for Blobs):
  Anisotropic,       ///< blobs stretched into parallel ellipses (noise along the long axis ×4)
  UnequalVariances,  ///< blobs whose spreads differ: noise × 0.4, 1, 2.5, repeating
  UnequalSizes,      ///< blobs of very different sizes: group g has weight 1 / (g + 1)²
};

struct GeneratorParams {
  GeneratorKind kind = GeneratorKind::Blobs;
  std::size_t n = 10000;
  int groups = 5;
  int d = 2;  ///< used by Blobs and Uniform; Rings and Moons are 2-D
  /// Standard deviation of the Gaussian jitter, as a fraction of the layout's half-size (the
  /// blob box half-width, the outer ring radius, the moon radius — all 1).
  double noise = 0.05;
  std::uint64_t seed = 1;
};

/// Largest n × d a generator builds (the default LoadOptions::maxValues).
inline constexpr std::size_t kMaxGeneratedValues = std::size_t(1) << 31;

/// Builds the data set: values, groundTruth (the group each point was drawn from; all 0 for
/// Uniform), dimensionNames (x, y, z, x4, ...), source "generator:<kind>" and a displayName like
/// "Blobs — 10,000 points, 5 groups". Point i belongs to group i mod groups, so groups differ in
/// size by at most one point (UnequalSizes: groups sized by weight, in order). Throws
/// std::invalid_argument for n = 0, groups < 1, d < 1, negative or non-finite noise, more groups
/// than points (Blobs, Rings) or n × d > kMaxGeneratedValues.
DatasetPtr generateDataset(const GeneratorParams& params);

/// "blobs", "rings", "moons", "uniform", "photo", "anisotropic", "unequal-variances",
/// "unequal-sizes".
QString toString(GeneratorKind kind);
/// One line on what k-means makes of this kind of data (shown beside the view); empty for blobs
/// and photos.
QString explanation(GeneratorKind kind);
/// The inverse of toString (case-insensitive).
std::optional<GeneratorKind> parseGeneratorKind(const QString& text);

}  // namespace kms::app
