// Reading data sets from files. Every loader reports failure as LoadError naming the file and the
// problem; none crashes or aborts on malformed input.
#pragma once

#include <QString>
#include <QStringList>

#include <vector>

#include <atomic>
#include <cstdint>
#include <functional>
#include <optional>
#include <utility>

#include "core/dataset.h"

namespace kms::app {

struct LoadOptions {
  /// Called now and then with the fraction done in [0, 1]; may be empty. Runs on the loading
  /// thread.
  std::function<void(double)> progress;
  /// When set and it becomes true, the loader stops and throws LoadError("... cancelled").
  const std::atomic<bool>* cancel = nullptr;
  /// Refuse inputs that would need more than this many values (n × d) in memory.
  std::size_t maxValues = std::size_t(1) << 31;
  /// Find an opaque 8-bit picture's distinct colours on CUDA device 0 when one answers (the
  /// same result as on the CPU; worth it for large pictures when the GPU is in use anyway).
  bool compactOnDevice = false;
  /// With compactOnDevice: asked once the picture is decoded; false (the GPU's context is still
  /// being made elsewhere, say) finds the colours on the CPU's threads rather than wait for it.
  std::function<bool()> deviceReady;
  /// A rank's share of a run spread over several processes: given the file's row count, the rows
  /// [first, last) to read. The .npy and classic binary readers convert only those rows (the
  /// file is mapped, so only their bytes are read) and name bad values by their row in the file;
  /// other formats read every row and the caller takes its share (Dataset::firstRow says which).
  std::function<std::pair<std::size_t, std::size_t>(std::size_t rows)> rowShare;

  /// A delimited text file read as rank `rank` of `ranks` (with rowShare; io/text_share.h): each
  /// rank scans only the lines that start in its slice of the file's bytes (slices in proportion
  /// to `weights`, else even), the ranks exchange their row and line counts, and each parses just
  /// the rows rowShare gives it. Messages name the file's own line numbers and the id-column rule
  /// is decided on the whole column, as when one process reads the file. Every rank must load the
  /// same file at once; a failure on any rank fails every rank with its message.
  struct TextShare {
    int rank = 0;
    int ranks = 1;
    std::vector<double> weights;
    /// Every rank's `mine` concatenated in rank order, on every rank (a collective: each rank
    /// makes the same calls in the same order).
    std::function<std::vector<std::int64_t>(const std::vector<std::int64_t>&)> allGather;
  };
  std::optional<TextShare> textShare;
};

/// Loads any supported file, choosing the reader from the content (magic bytes) and the suffix:
/// images (everything QImageReader reads), CSV/TSV/whitespace text, the classic binary
/// (int32 N, int32 d, N·d float32), PLY (ascii/binary), NumPy .npy. Throws LoadError.
///
/// The reader is chosen in this order:
///  1. magic bytes: PNG, JPEG, GIF, BMP, TIFF, RIFF/WebP → image; "ply" → PLY; "\x93NUMPY" → .npy;
///  2. suffix: .npy, .ply, .csv/.tsv/.txt/.xyz (text), .bin (classic binary), .dat (classic
///     binary when its header matches the file size, else text), any QImageReader format;
///  3. otherwise: classic binary when the header matches the file size, text when the start of
///     the file has no NUL byte, else LoadError("file format not recognised").
/// The format rules of each reader are documented in io/text_loader.h, io/binary_loader.h,
/// io/ply_loader.h, io/npy_loader.h and io/image_loader.h.
DatasetPtr loadDataset(const QString& path, const LoadOptions& options = {});

/// Initial centroids from a text file: k rows of d numbers (CSV, TSV or whitespace, optional
/// header), or a file written by --out-centroids / Export ▸ Centroids (its "cluster" and
/// "share" columns are skipped). Throws LoadError naming the file when the values are not k × d
/// for this d, or k < 1.
std::vector<float> loadCentroids(const QString& path, int d);

/// File-dialog name filters for everything loadDataset reads, "All supported (...)" first and
/// "All files (*)" last.
QStringList supportedNameFilters();

/// True when loadDataset would treat `path` as an image.
bool looksLikeImage(const QString& path);

/// True when loadDataset reads `path` with the delimited-text reader (io/text_loader.h), which
/// is the one that uses LoadOptions::textShare.
bool readsAsText(const QString& path);

}  // namespace kms::app
