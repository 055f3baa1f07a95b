#include "io/load_support.h"

#include <QFileInfo>

#include <sys/stat.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>

#include "core/format.h"

namespace kms::app::io {

InputFile::InputFile(const QString& path) : path_(path), file_(path) {
  const QFileInfo info(path);
  if (!info.exists()) fail(QStringLiteral("file does not exist"));
  if (info.isDir()) fail(QStringLiteral("is a directory, not a file"));
  if (!info.isFile()) fail(QStringLiteral("is not a regular file"));
  if (!file_.open(QIODevice::ReadOnly))
    fail(QStringLiteral("cannot be opened: ") + file_.errorString());
  if (file_.size() == 0) fail(QStringLiteral("file is empty"));
  opened_ = stampNow();
  if (const uchar* mapped = file_.map(0, file_.size())) {
    auto guard = std::make_unique<MappedFileGuard>(mapped, std::size_t(file_.size()));
    if (guard->valid()) {
      guard_ = std::move(guard);
      bytes_ = std::string_view(reinterpret_cast<const char*>(mapped), std::size_t(file_.size()));
      return;
    }
    file_.unmap(const_cast<uchar*>(mapped));  // unguarded, a truncation would end the process
  }
  copy_ = file_.readAll();
  if (copy_.size() != file_.size()) fail(QStringLiteral("cannot be read: ") + file_.errorString());
  bytes_ = std::string_view(copy_.constData(), std::size_t(copy_.size()));
}

void InputFile::fail(const QString& problem) const {
  throw LoadError(path_, problem);
}

InputFile::Stamp InputFile::stampNow() const {
  struct stat info {};
  if (::stat(QFile::encodeName(path_).constData(), &info) != 0) return {};
  return {std::uint64_t(info.st_dev), std::uint64_t(info.st_ino), std::uint64_t(info.st_size),
          std::int64_t(info.st_mtim.tv_sec) * 1'000'000'000 + info.st_mtim.tv_nsec};
}

void InputFile::requireUnchanged() const {
  if ((guard_ && guard_->faulted()) || stampNow() != opened_)
    fail(
        QStringLiteral("the file changed while it was being read (truncated, rewritten or "
                       "replaced); open it again once it is complete"));
}

void Progress::update(double fraction) const {
  if (options_.cancel && options_.cancel->load(std::memory_order_relaxed))
    file_.fail(QStringLiteral("loading cancelled"));
  if (options_.progress) options_.progress(std::clamp(fraction, 0.0, 1.0));
}

std::optional<double> parseNumber(std::string_view token) {
  // from_chars rejects a leading '+', which people and spreadsheets write.
  if (token.size() > 1 && token.front() == '+' && token[1] != '-') token.remove_prefix(1);
  double value = 0.0;
  const char* end = token.data() + token.size();
  const auto [ptr, ec] = std::from_chars(token.data(), end, value);
  if (token.empty() || ptr != end) return std::nullopt;
  if (ec == std::errc::result_out_of_range) {
    // Beyond double range: a negative exponent means it underflowed (take 0), anything else
    // overflowed (take the largest double, so the float32 range check reports it, not "infinity").
    const std::size_t e = token.find_first_of("eE");
    const bool tiny = e != std::string_view::npos && e + 1 < token.size() && token[e + 1] == '-';
    const double huge = std::numeric_limits<double>::max();
    return tiny ? 0.0 : (token.front() == '-' ? -huge : huge);
  }
  if (ec != std::errc()) return std::nullopt;
  return value;
}

QString coordinateProblem(double value, const QString& written) {
  if (std::isnan(value)) return QStringLiteral("NaN is not allowed");
  if (std::isinf(value)) return QStringLiteral("infinity is not allowed");
  if (!fitsFloat(value))
    return (written.isEmpty() ? QString::number(value) : written) +
           QStringLiteral(" is out of float32 range");
  return {};
}

QString pointLocation(std::size_t point, std::size_t coordinate) {
  return QStringLiteral("point %1, coordinate %2").arg(point + 1).arg(coordinate + 1);
}

void requireFinite(const InputFile& file, const std::vector<float>& values, std::size_t d,
                   std::size_t firstRow) {
  for (std::size_t i = 0; i < values.size(); ++i)
    if (!std::isfinite(values[i]))
      file.fail(pointLocation(firstRow + i / d, i % d) + QStringLiteral(": ") +
                coordinateProblem(values[i]));
}

std::pair<std::size_t, std::size_t> rowsToRead(const LoadOptions& options, std::size_t rows) {
  if (!options.rowShare) return {0, rows};
  const auto [first, last] = options.rowShare(rows);
  if (first > last || last > rows)
    throw std::invalid_argument("rowsToRead: a share outside the file's rows");
  return {first, last};
}

void requireValueCount(const InputFile& file, std::uint64_t n, std::uint64_t d,
                       std::size_t maxValues) {
  if (n == 0) file.fail(QStringLiteral("no data points"));
  if (d == 0) file.fail(QStringLiteral("points have no coordinates"));
  if (n > maxValues / d)
    file.fail(QStringLiteral("%1 points × %2 dimensions exceed the limit of %3 values")
                  .arg(groupedCount(n), groupedCount(d), groupedCount(maxValues)));
}

std::uint64_t availableMemoryBytes() {
  QFile meminfo(QStringLiteral("/proc/meminfo"));
  if (!meminfo.open(QIODevice::ReadOnly)) return std::numeric_limits<std::uint64_t>::max();
  std::uint64_t available = 0;
  bool found = false;
  for (const QByteArray& line : meminfo.readAll().split('\n')) {
    // "MemAvailable:   12345678 kB", "SwapFree:  ... kB"
    if (!line.startsWith("MemAvailable:") && !line.startsWith("SwapFree:")) continue;
    const QList<QByteArray> fields = line.simplified().split(' ');
    if (fields.size() >= 2) available += fields[1].toULongLong() * 1024, found = true;
  }
  return found ? available : std::numeric_limits<std::uint64_t>::max();
}

void requireMemoryFor(const InputFile& file, std::uint64_t n, std::uint64_t d) {
  const std::uint64_t needed = n * d * sizeof(float);
  const std::uint64_t available = availableMemoryBytes();
  if (needed > available)
    file.fail(QStringLiteral("%1 points × %2 dimensions need %3 GB of memory; %4 GB are free")
                  .arg(groupedCount(n), groupedCount(d))
                  .arg(double(needed) / 1e9, 0, 'f', 2)
                  .arg(double(available) / 1e9, 0, 'f', 2));
}

void requireDataSize(const InputFile& file, const QString& what, std::uint64_t expected,
                     std::uint64_t available) {
  if (available != expected)
    file.fail(QStringLiteral("expected %1 bytes of %2, file has %3")
                  .arg(groupedCount(expected), what, groupedCount(available)));
}

std::shared_ptr<Dataset> makePointDataset(const InputFile& file, std::size_t n, int d,
                                          std::vector<float> values, QStringList names) {
  file.requireUnchanged();
  auto out = std::make_shared<Dataset>();
  const QFileInfo info(file.path());
  out->source = info.absoluteFilePath();
  out->displayName = info.fileName();
  out->kind = DatasetKind::Points;
  out->n = n;
  out->d = d;
  out->values = std::move(values);
  out->dimensionNames = names.isEmpty() ? defaultDimensionNames(d) : std::move(names);
  return out;
}

}  // namespace kms::app::io
