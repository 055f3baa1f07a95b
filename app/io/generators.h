// Synthetic point sets for teaching and testing.
#pragma once

#include <QString>

#include <cstdint>
#include <optional>

#include "core/dataset.h"

namespace kms::app {

enum class GeneratorKind {
  Blobs,    ///< `groups` isotropic Gaussian blobs in d dimensions
  Rings,    ///< `groups` concentric circles (2-D)
  Moons,    ///< two interleaving half circles (2-D); `groups` is ignored
  Uniform,  ///< uniform in the unit cube of d dimensions
};

struct GeneratorParams {
  GeneratorKind kind = GeneratorKind::Blobs;
  std::size_t n = 10000;
  int groups = 5;
  int d = 2;             ///< used by Blobs and Uniform; Rings and Moons are 2-D
  double noise = 0.05;   ///< Gaussian jitter relative to the layout's size
  std::uint64_t seed = 1;
};

/// Builds the data set (ground truth filled in). Throws std::invalid_argument for n = 0,
/// groups < 1, d < 1 or negative noise.
DatasetPtr generateDataset(const GeneratorParams& params);

QString toString(GeneratorKind kind);
std::optional<GeneratorKind> parseGeneratorKind(const QString& text);

}  // namespace kms::app
