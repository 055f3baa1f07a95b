// The principal components of a point set, for seeing data of more than three dimensions: the
// views can show the points, the centroids and their trails projected onto the first two or
// three (docs/engine.md has nothing to do with it: clustering always uses every coordinate).
//
// Computed once per data set, the same on every machine and thread count: the mean and the
// covariance are summed in double over fixed blocks of rows in row order (Eigen's product within
// a block, the blocks added in order), the covariance's eigenvectors found by Eigen's
// self-adjoint solver, and each axis's sign fixed so that its largest coordinate is positive.
// Rows count with their counts (compact data) or weights.
#pragma once

#include <QString>

#include <cstddef>
#include <vector>

#include "core/dataset.h"

namespace kms::app {

struct PrincipalComponents {
  int d = 0;                      ///< coordinates of the data
  int m = 0;                      ///< axes kept (≤ d)
  std::vector<double> mean;       ///< d
  std::vector<double> axes;       ///< m × d unit vectors, the largest variance first
  std::vector<double> explained;  ///< m shares of the total variance, in [0, 1]

  /// The first m scores of a d-vector: (v − mean)·axis for each axis, in float.
  void project(const float* v, float* out) const;
  /// k rows of d values → k rows of m scores.
  std::vector<float> project(const std::vector<float>& rows) const;
  /// "PC1 (41.2 %)", … for axis a.
  QString axisName(int a) const;
};

/// The largest principal data sets it takes: d up to this (the eigen-solver's d³ stays under a
/// second).
inline constexpr int kMaxPrincipalDims = 1024;

/// The first min(m, d) principal components of `data` (points, d ≤ kMaxPrincipalDims). Throws
/// std::invalid_argument for a picture, an empty set or a larger d.
PrincipalComponents principalComponents(const Dataset& data, int m = 3);

/// `data` projected onto `pcs`: the same rows (and counts, weights, index, ground truth, point
/// colours), m coordinates named by axisName, displayOnly set.
DatasetPtr projectedDataset(const Dataset& data, const PrincipalComponents& pcs);

}  // namespace kms::app
