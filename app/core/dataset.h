// A loaded or generated data set: what flows from the loaders to the session.
#pragma once

#include <QImage>
#include <QString>
#include <QStringList>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <utility>
#include <vector>

#include "kmeans/compact.h"
#include "kmeans/data.h"

namespace kms::app {

enum class DatasetKind {
  Image,   ///< pixels as RGB points; width × height rebuilds the picture
  Points,  ///< a point cloud (file or generator)
};

/// Immutable once built; shared between threads as DatasetPtr.
///
/// A data set is a list of rows (what the engine clusters) and a list of items (what the file
/// holds: pixels or points). Usually each item is a row. In the compact form — every 8-bit
/// picture, and point sets with repeated points when asked for — the rows are the distinct
/// values, `counts` says how many items have each, and `index` which row each item is. This is
/// the one place that form lives: the engine clusters rows with their counts (exactly as it
/// would cluster every item), views draw rows, and pictures and per-item exports go through
/// `index`.
struct Dataset {
  QString source;       ///< absolute file path, or "generator:<kind>" for generated data
  QString displayName;  ///< what the window title and reports show
  DatasetKind kind = DatasetKind::Points;

  std::size_t n = 0;  ///< number of rows (distinct values when compact)
  /// Only rows [firstRow, firstRow + n) of the file's fileRows were read (a rank's share of a
  /// run over several processes, LoadOptions::rowShare); fileRows is 0 when every row was.
  std::size_t firstRow = 0;
  std::size_t fileRows = 0;
  int d = 0;                   ///< coordinates per row
  std::vector<float> values;   ///< n × d, row-major
  std::vector<float> weights;  ///< empty (all 1) or n non-negative weights (never with counts)
  std::vector<std::uint32_t> counts;  ///< compact form: items per row (≥ 1); empty: 1 each
  /// Compact form: each item's row, or kms::kNoRow for an item left out of clustering (a fully
  /// transparent pixel). Empty: item i is row i.
  std::vector<std::uint32_t> index;
  QStringList dimensionNames;  ///< d names ("R", "G", "B" / "x", "y" / file header)

  // Images: rows are sRGB colours with R, G, B in [0, 1] (and alpha in [0, 1] as a fourth value
  // when some pixels are partly transparent); pixel (x, y) is item y · width + x.
  int width = 0;
  int height = 0;
  /// The picture as loaded (EXIF orientation applied), 8 bits per channel: Format_RGB32 when
  /// opaque, else Format_ARGB32. Null for generated pictures (built from the rows when needed).
  QImage picture;
  /// What the loader did that the user should know ("first frame of 12", "16-bit colours,
  /// clustered pixel by pixel", ...), one sentence each.
  QStringList notes;
  /// Where loading spent its time, step by step ("decode", "distinct colours"), in
  /// milliseconds (pictures; empty for other files).
  std::vector<std::pair<QString, double>> loadMs;

  /// Per-point colours from the file (PLY), 0xRRGGBB; empty when the file had none.
  std::vector<std::uint32_t> pointColours;

  /// Generated ground truth group of each point (generators only); empty otherwise.
  std::vector<std::int32_t> groundTruth;

  /// A projection of another data set for the views (its principal components,
  /// core/principal_components.h): drawn, never clustered, and its centroids are not edited.
  bool displayOnly = false;

  /// The engine's view of the data; valid while this Dataset lives.
  kms::DataView view() const {
    return kms::DataView{values.data(), n, d, weights.empty() ? nullptr : weights.data(),
                         counts.empty() ? nullptr : counts.data()};
  }
  bool isImage() const { return kind == DatasetKind::Image; }
  bool isCompact() const { return !index.empty(); }
  /// Pixels or points in the source: index.size() in the compact form, else n.
  std::size_t itemCount() const { return index.empty() ? n : index.size(); }
  /// The row of item i (kms::kNoRow when it is left out).
  std::uint32_t rowOf(std::size_t item) const {
    return index.empty() ? std::uint32_t(item) : index[item];
  }
  /// Items the rows stand for (left-out items excluded).
  std::uint64_t clusteredItems() const;
  /// Whether rows carry alpha as a fourth value (a picture with partly transparent pixels).
  bool hasAlphaChannel() const { return isImage() && d == 4; }
  /// Whether some items are left out of clustering (fully transparent pixels).
  bool hasLeftOutItems() const;
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
