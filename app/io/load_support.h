// What every file reader shares: opening and mapping the input, failing with a LoadError that
// names the file, progress and cancellation, the one number parser, value checks, and building
// the point Dataset. Internal to app/io.
#pragma once

#include <QByteArray>
#include <QFile>
#include <QString>
#include <QStringList>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

#include "core/dataset.h"
#include "io/load.h"
#include "io/mapped_file_guard.h"

namespace kms::app::io {

/// The whole content of an input file: memory-mapped when possible, read otherwise.
class InputFile {
 public:
  /// Opens `path`. Throws LoadError when it does not exist, is a directory or another non-regular
  /// file, cannot be read, or is empty.
  explicit InputFile(const QString& path);
  InputFile(const InputFile&) = delete;
  InputFile& operator=(const InputFile&) = delete;

  const QString& path() const { return path_; }
  std::string_view bytes() const { return bytes_; }
  std::size_t size() const { return bytes_.size(); }

  /// Throws LoadError("<file name>: <problem>").
  [[noreturn]] void fail(const QString& problem) const;

  /// Throws LoadError when the file was truncated, rewritten or replaced since it was opened
  /// (its size, modification time or identity differ, or a mapped page vanished): what was
  /// read may be a mix of two versions. Every loader calls it once it has everything it needs.
  void requireUnchanged() const;

 private:
  /// Identity and version of the file on disk.
  struct Stamp {
    std::uint64_t device = 0, inode = 0, size = 0;
    std::int64_t modifiedNs = 0;
    bool operator==(const Stamp&) const = default;
  };
  /// The stamp of the file at path_ now (all zero when it is gone).
  Stamp stampNow() const;

  QString path_;
  QFile file_;
  QByteArray copy_;  ///< the content when mapping was not possible
  std::string_view bytes_;
  Stamp opened_;
  std::unique_ptr<MappedFileGuard> guard_;  ///< while the content is a mapping
};

/// Forwards progress to LoadOptions::progress and turns a cancel request into LoadError.
class Progress {
 public:
  Progress(const InputFile& file, const LoadOptions& options) : file_(file), options_(options) {}
  /// Reports `fraction` done in [0, 1]; throws LoadError("loading cancelled") when the caller asked
  /// to cancel. Cheap enough to call every few thousand points.
  void update(double fraction) const;

 private:
  const InputFile& file_;
  const LoadOptions& options_;
};

/// Parses a whole token as a decimal number ("1", "-2.5e3", "+4", "nan", "inf"); nullopt when
/// it is not one. Locale-independent.
std::optional<double> parseNumber(std::string_view token);

/// Whether `value` can be a float32 coordinate: finite and within float32 range.
inline bool fitsFloat(double value) {
  return std::abs(value) <= double(std::numeric_limits<float>::max());  // false for NaN too
}

/// Why `value` cannot be stored as a float32 coordinate ("NaN is not allowed", "infinity is not
/// allowed", "1e39 is out of float32 range"), or an empty string when it can. `written` is how the
/// file spells the value, shown in the range message (default: the value itself).
QString coordinateProblem(double value, const QString& written = {});

/// "point 12, coordinate 3" (1-based) — where a problem is in an array of points.
QString pointLocation(std::size_t point, std::size_t coordinate);

/// Fails with a clear message unless `values` are all finite (the first bad one is named).
/// `firstRow`: the file's row of the first value's point (a share of the file).
void requireFinite(const InputFile& file, const std::vector<float>& values, std::size_t d,
                   std::size_t firstRow = 0);

/// The rows [first, last) of a file of `rows` rows to read: LoadOptions::rowShare's, or all.
std::pair<std::size_t, std::size_t> rowsToRead(const LoadOptions& options, std::size_t rows);

/// Fails unless n ≥ 1, d ≥ 1 and n × d ≤ maxValues (without overflowing).
/// Memory free for new data now (MemAvailable + SwapFree from /proc/meminfo, bytes); the
/// largest value when that cannot be read.
std::uint64_t availableMemoryBytes();

/// Throws LoadError when n × d float values would not fit in the free memory: a clear message
/// instead of std::bad_alloc or the kernel's out-of-memory killer. For readers that know n from
/// a header (binary, NumPy, PLY).
void requireMemoryFor(const InputFile& file, std::uint64_t n, std::uint64_t d);

void requireValueCount(const InputFile& file, std::uint64_t n, std::uint64_t d,
                       std::size_t maxValues);

/// Fails unless the file holds exactly `expected` bytes of `what` ("point data", ...), with
/// "expected X bytes of <what>, file has Y".
void requireDataSize(const InputFile& file, const QString& what, std::uint64_t expected,
                     std::uint64_t available);

/// A Points data set read from `file`; `names` may be empty (then x, y, z, x4, ...).
std::shared_ptr<Dataset> makePointDataset(const InputFile& file, std::size_t n, int d,
                                          std::vector<float> values, QStringList names = {});

}  // namespace kms::app::io
