#include "io/save_file.h"

#include <QSaveFile>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>

#include "core/dataset.h"

namespace kms::app::io {

void saveFile(const QString& path, const std::function<void(QIODevice&)>& write) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly))
    throw ExportError(path, QStringLiteral("cannot create the file: ") + file.errorString());
  write(file);
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
