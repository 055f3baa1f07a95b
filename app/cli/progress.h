// How kmeans-cli shows a run while it iterates.
#pragma once

#include <cstddef>
#include <cstdio>

#include <QByteArray>
#include <QString>

#include "kmeans/engine.h"

namespace kms::app::cli {

/// One line per iteration when `out` is not a terminal (logs, pipes, tests):
///   iter  12  inertia 1.234567e+03  changed 1,234 (0.52%)  shift 1.2e-03  3.21 ms
/// and a single progress bar redrawn in place when it is.
class ProgressPrinter {
 public:
  /// `n` points, at most `maxIterations` iterations.
  ProgressPrinter(std::FILE* out, std::size_t n, int maxIterations);
  ~ProgressPrinter() { finish(); }

  void iteration(const IterationStats& stats);
  /// Ends the progress bar's line (no-op in line mode or when already finished).
  void finish();

 private:
  std::FILE* out_;
  std::size_t n_;
  int maxIterations_;
  bool terminal_;
  bool barShown_ = false;
};

/// "reading photo.jpg  45%" redrawn in place while a file loads, on a terminal only; the line is
/// cleared when the loading ends.
class LoadingBar {
 public:
  LoadingBar(std::FILE* out, const QString& name);
  ~LoadingBar();
  LoadingBar(const LoadingBar&) = delete;
  LoadingBar& operator=(const LoadingBar&) = delete;

  /// False when `out` is not a terminal: then update() is never needed.
  bool shown() const { return terminal_; }
  /// `fraction` of the file read, in [0, 1]; redraws only when the whole percent changes.
  void update(double fraction);

 private:
  std::FILE* out_;
  QByteArray name_;
  bool terminal_;
  int percent_ = -1;
};

}  // namespace kms::app::cli
