// The live report: what a run writes as it goes (kmeans-cli --live-report FILE) and kmeans-studio
// follows (--follow FILE). JSON Lines, one object a line, each flushed when written:
//   {"kind": "header", "began" (UTC, ms: which run wrote the file), "input", "n", "d", "k",
//    "ranks", "backend", "device", "settings" {"seed",
//    "max_iterations", "tolerance", "init"}, "centroids" [k × d, the start, data units]}
//   {"kind": "iteration", the run report's iteration fields (io/export.h) with "rank_ms" for
//    runs over several processes, and "centroids" [k × d after the iteration's update]}
//   {"kind": "end", "converged", "stop_rule"}
// Appending lines lets a reader take what is new without rereading the file, and a run that dies
// leaves every finished iteration readable.
#pragma once

#include <QFile>
#include <QString>

#include <optional>
#include <vector>

#include "kmeans/config.h"
#include "kmeans/stats.h"

namespace kms::app {

struct LiveRunHeader {
  QString input;  ///< the data's file (absolute path)
  std::size_t n = 0;
  int d = 0;
  int k = 0;
  int ranks = 1;
  QString backend, device;
  kms::KMeansConfig config;      ///< seed, max_iterations, tolerance, init
  std::vector<float> centroids;  ///< the start: k × d in data units
};

struct LiveIteration {
  kms::IterationStats stats;
  std::vector<float> centroids;  ///< after the update, k × d in data units
};

struct LiveRunEnd {
  bool converged = false;
  QString stopRule;
};

class LiveReportWriter {
 public:
  /// Creates (truncates) `path` and writes the header. Throws ExportError naming the file.
  LiveReportWriter(const QString& path, const LiveRunHeader& header);
  void iteration(const LiveIteration& iteration);
  void end(const LiveRunEnd& end);

 private:
  void line(const QByteArray& json);
  QFile file_;
};

/// Reads a live report as it grows: poll() takes the complete lines written since the last call.
class LiveReportReader {
 public:
  explicit LiveReportReader(QString path) : path_(std::move(path)) {}
  /// Reads what is new. Throws LoadError naming the file when it cannot be read or a line is not
  /// a live report's. Returns the number of new iterations.
  int poll();
  const std::optional<LiveRunHeader>& header() const { return header_; }
  const std::vector<LiveIteration>& iterations() const { return iterations_; }
  const std::optional<LiveRunEnd>& end() const { return end_; }
  const QString& path() const { return path_; }

 private:
  static constexpr qint64 kHeadBytes = 256;  ///< enough for the header's "began"
  QString path_;
  qint64 offset_ = 0;
  QByteArray head_;  ///< the file's first bytes when read from the start (its run)
  std::optional<LiveRunHeader> header_;
  std::vector<LiveIteration> iterations_;
  std::optional<LiveRunEnd> end_;
};

}  // namespace kms::app
