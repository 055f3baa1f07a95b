// A loaded or generated data set: what flows from the loaders to the session.
#pragma once

#include <QString>
#include <QStringList>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <vector>

#include "kmeans/data.h"

namespace kms::app {

enum class DatasetKind {
  Image,   ///< pixels as RGB points; width × height rebuilds the picture
  Points,  ///< a point cloud (file or generator)
};

/// Immutable once built; shared between threads as DatasetPtr.
struct Dataset {
  QString source;       ///< absolute file path, or "generator:<kind>" for generated data
  QString displayName;  ///< what the window title and reports show
  DatasetKind kind = DatasetKind::Points;

  std::size_t n = 0;           ///< number of points (pixels for images)
  int d = 0;                   ///< coordinates per point
  std::vector<float> values;   ///< n × d, row-major
  std::vector<float> weights;  ///< empty (all 1) or n non-negative weights
  QStringList dimensionNames;  ///< d names ("R", "G", "B" / "x", "y" / file header)

  // Images: values are R, G, B in [0, 1], pixel (x, y) is point y · width + x.
  int width = 0;
  int height = 0;
  std::vector<std::uint8_t>
      alpha;  ///< empty when opaque, else n values (kept aside, not clustered)

  /// Per-point colours from the file (PLY), 0xRRGGBB; empty when the file had none.
  std::vector<std::uint32_t> pointColours;

  /// Generated ground truth group of each point (generators only); empty otherwise.
  std::vector<std::int32_t> groundTruth;

  /// The engine's view of the data; valid while this Dataset lives.
  kms::DataView view() const {
    return kms::DataView{values.data(), n, d, weights.empty() ? nullptr : weights.data()};
  }
  bool isImage() const { return kind == DatasetKind::Image; }
};

using DatasetPtr = std::shared_ptr<const Dataset>;

/// Names for d unnamed coordinates: "x", "y", "z", then "x4", "x5", ...
QStringList defaultDimensionNames(int d);

/// A file could not be read. what() is "<file name>: <problem>", fit to show a user.
class LoadError : public std::runtime_error {
 public:
  LoadError(const QString& file, const QString& problem);
  const QString& file() const { return file_; }
  const QString& problem() const { return problem_; }
  QString message() const { return QString::fromUtf8(what()); }

 private:
  QString file_;
  QString problem_;
};

/// A file could not be written. what() is "<file name>: <problem>".
class ExportError : public std::runtime_error {
 public:
  ExportError(const QString& file, const QString& problem);
  const QString& file() const { return file_; }
  QString message() const { return QString::fromUtf8(what()); }

 private:
  QString file_;
};

}  // namespace kms::app
