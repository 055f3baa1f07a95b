// Writing a whole file atomically, and the text formatting every export shares. Internal to
// app/io.
#pragma once

#include <QByteArray>
#include <QIODevice>
#include <QRgb>
#include <QString>

#include <cstddef>
#include <functional>
#include <vector>

namespace kms::app::io {

/// Writes `path`: `write` fills the device. A regular file (or a new name) goes through
/// QSaveFile, so it appears or is replaced only when everything was written. "-", /dev/stdout,
/// /dev/stderr and /dev/fd/N write to the process's descriptor, and an existing device, FIFO or
/// socket is opened and written through: those are never replaced by a regular file. Throws
/// ExportError naming the file and the cause (the system's, e.g. "No space left on device",
/// when the device failed), and lets other exceptions from `write` through; a regular file is
/// left as it was either way.
void saveFile(const QString& path, const std::function<void(QIODevice&)>& write);

/// Collects text and hands it to the device in blocks of about 1 MiB, so million-line files
/// need neither a write call per line nor the whole text in memory.
class BlockWriter {
 public:
  explicit BlockWriter(QIODevice& device) : device_(device) {}
  ~BlockWriter() { flush(); }
  BlockWriter& operator<<(const QByteArray& text);
  BlockWriter& operator<<(const char* text);
  BlockWriter& operator<<(char c);
  BlockWriter& operator<<(long long value);
  /// The shortest decimal that reads back as exactly `value`.
  BlockWriter& operator<<(float value);
  BlockWriter& operator<<(double value);
  void flush();

 private:
  void flushIfFull();
  QIODevice& device_;
  QByteArray buffer_;
};

/// A CSV field: quoted (with doubled quotes) only when it holds a comma, quote or line break.
QByteArray csvField(const QString& text);

/// Cluster indices ordered by share, largest first (ties: lower index first).
std::vector<int> orderByShare(const std::vector<double>& shares);

}  // namespace kms::app::io
