#include "io/save_file.h"

#include <QFile>
#include <QFileInfo>
#include <QSaveFile>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <numeric>
#include <utility>

#include "core/dataset.h"

namespace kms::app::io {

namespace {

/// Where a write goes: a regular file is replaced atomically; anything else is written through.
enum class Target {
  RegularFile,  ///< a file (or a name not there yet): temporary file, then rename
  Descriptor,   ///< "-", /dev/stdout, /dev/stderr, /dev/fd/N: the process's open descriptor
  Special,      ///< an existing device, FIFO or socket: opened and written, never replaced
};

/// The target kind of `path`, and for Target::Descriptor the descriptor.
std::pair<Target, int> targetOf(const QString& path) {
  if (path == u"-" || path == u"/dev/stdout") return {Target::Descriptor, STDOUT_FILENO};
  if (path == u"/dev/stderr") return {Target::Descriptor, STDERR_FILENO};
  static const QString fdFolder = QStringLiteral("/dev/fd/");
  if (path.startsWith(fdFolder)) {
    bool ok = false;
    const int fd = path.mid(fdFolder.size()).toInt(&ok);
    if (ok && fd >= 0) return {Target::Descriptor, fd};
  }
  // stat follows links, so a link to a device counts as the device. A missing file is regular.
  struct stat info {};
  if (::stat(QFile::encodeName(path).constData(), &info) == 0 && !S_ISREG(info.st_mode) &&
      !S_ISDIR(info.st_mode))
    return {Target::Special, -1};
  return {Target::RegularFile, -1};
}

/// Passes every block to `file` until all of it is written or the file fails, and keeps the
/// first failure's reason: a QFileDevice takes part of a block without complaint when the disk
/// fills up, and QSaveFile::commit() forgets why a write failed ("Unknown error").
class CheckedSink final : public QIODevice {
 public:
  explicit CheckedSink(QFileDevice& file) : file_(file) {
    open(QIODevice::WriteOnly | QIODevice::Unbuffered);
  }
  bool failed() const { return !problem_.isEmpty(); }
  const QString& problem() const { return problem_; }

  bool isSequential() const override { return file_.isSequential(); }
  qint64 size() const override { return file_.size(); }
  bool seek(qint64 pos) override { return QIODevice::seek(pos) && file_.seek(pos); }

 protected:
  qint64 readData(char*, qint64) override { return -1; }
  qint64 writeData(const char* data, qint64 size) override {
    if (failed()) return -1;
    for (qint64 done = 0; done < size;) {
      const qint64 written = file_.write(data + done, size - done);
      if (written <= 0) {
        problem_ = file_.error() != QFileDevice::NoError
                       ? file_.errorString()
                       : QStringLiteral("the device accepts no more data");
        setErrorString(problem_);
        return -1;
      }
      done += written;
    }
    return size;
  }

 private:
  QFileDevice& file_;
  QString problem_;
};

/// Runs `write` on `file` through a CheckedSink; when the file failed, its reason wins over
/// whatever the writer made of the failure (a codec's "Unknown error").
void writeChecked(const QString& path, QFileDevice& file,
                  const std::function<void(QIODevice&)>& write) {
  CheckedSink sink(file);
  const auto fail = [&] {
    throw ExportError(path, QStringLiteral("cannot write the file: ") + sink.problem());
  };
  try {
    write(sink);
  } catch (const ExportError&) {
    if (sink.failed()) fail();
    throw;
  }
  if (sink.failed()) fail();
}

/// Writes through to a descriptor, device or FIFO: no temporary file, no rename (a rename would
/// put a regular file where the device was), and every write checked.
void writeThrough(const QString& path, Target target, int fd,
                  const std::function<void(QIODevice&)>& write) {
  QFile file;
  const QIODevice::OpenMode mode = QIODevice::WriteOnly | QIODevice::Unbuffered;
  const bool opened = target == Target::Descriptor
                          ? file.open(fd, mode, QFileDevice::DontCloseHandle)
                          : (file.setFileName(path), file.open(mode | QIODevice::ExistingOnly));
  if (!opened)
    throw ExportError(path, QStringLiteral("cannot open it for writing: ") + file.errorString());
  writeChecked(path, file, write);
  if (!file.flush() || file.error() != QFileDevice::NoError)
    throw ExportError(path, QStringLiteral("cannot write the file: ") + file.errorString());
}

/// Why `path` cannot be written, in the system's words ("Read-only file system", "Permission
/// denied"), or Qt's `fallback` when the system sees no problem. QSaveFile only says "Existing
/// file ... is not writable".
QString whyNotWritable(const QString& path, const QString& fallback) {
  const QFileInfo info(path);
  const QByteArray probe = QFile::encodeName(info.exists() ? path : info.absolutePath());
  if (::access(probe.constData(), W_OK) != 0) return QString::fromLocal8Bit(std::strerror(errno));
  return fallback;
}

}  // namespace

void saveFile(const QString& path, const std::function<void(QIODevice&)>& write) {
  const auto [target, fd] = targetOf(path);
  if (target != Target::RegularFile) return writeThrough(path, target, fd, write);
  QSaveFile file(path);
  // Unbuffered: a failing write fails at once with the system's reason; writers hand over large
  // blocks anyway.
  if (!file.open(QIODevice::WriteOnly | QIODevice::Unbuffered))
    throw ExportError(path, QStringLiteral("cannot create the file: ") +
                                whyNotWritable(path, file.errorString()));
  writeChecked(path, file, write);  // QSaveFile discards everything when this throws
  if (!file.commit())
    throw ExportError(path, QStringLiteral("cannot write the file: ") + file.errorString());
}

BlockWriter& BlockWriter::operator<<(const QByteArray& text) {
  buffer_ += text;
  flushIfFull();
  return *this;
}

BlockWriter& BlockWriter::operator<<(const char* text) {
  buffer_ += text;
  flushIfFull();
  return *this;
}

BlockWriter& BlockWriter::operator<<(char c) {
  buffer_ += c;
  flushIfFull();
  return *this;
}

BlockWriter& BlockWriter::operator<<(long long value) {
  return *this << QByteArray::number(value);
}

BlockWriter& BlockWriter::operator<<(float value) {
  char text[32];
  const auto result = std::to_chars(text, text + sizeof text, value);
  return *this << QByteArray(text, result.ptr - text);
}

BlockWriter& BlockWriter::operator<<(double value) {
  char text[32];
  const auto result = std::to_chars(text, text + sizeof text, value);
  return *this << QByteArray(text, result.ptr - text);
}

void BlockWriter::flushIfFull() {
  if (buffer_.size() >= (qsizetype(1) << 20)) flush();
}

void BlockWriter::flush() {
  // A failed write is remembered by QSaveFile and reported by commit().
  if (!buffer_.isEmpty()) device_.write(buffer_);
  buffer_.clear();
}

QByteArray csvField(const QString& text) {
  if (!text.contains(u',') && !text.contains(u'"') && !text.contains(u'\n') &&
      !text.contains(u'\r'))
    return text.toUtf8();
  QString quoted = text;
  quoted.replace(u'"', QStringLiteral("\"\""));
  return (u'"' + quoted + u'"').toUtf8();
}

std::vector<int> orderByShare(const std::vector<double>& shares) {
  std::vector<int> order(shares.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return shares[std::size_t(a)] > shares[std::size_t(b)]; });
  return order;
}

}  // namespace kms::app::io
