#include "io/binary_loader.h"

#include <QtEndian>

#include <algorithm>
#include <vector>

#include "io/load_support.h"

namespace kms::app::io {
namespace {

constexpr std::size_t kHeaderBytes = 8;

struct Header {
  std::int32_t n = 0;
  std::int32_t d = 0;
};

Header readHeader(std::string_view bytes) {
  return {qFromLittleEndian<qint32>(bytes.data()), qFromLittleEndian<qint32>(bytes.data() + 4)};
}

}  // namespace

bool looksLikeClassicBinary(std::string_view head, std::uint64_t fileSize) {
  if (head.size() < kHeaderBytes) return false;
  const Header h = readHeader(head);
  return h.n > 0 && h.d > 0 &&
         fileSize == kHeaderBytes + std::uint64_t(h.n) * std::uint64_t(h.d) * sizeof(float);
}

DatasetPtr loadClassicBinary(const QString& path, const LoadOptions& options) {
  const InputFile file(path);
  const Progress progress(file, options);
  if (file.size() < kHeaderBytes)
    file.fail(
        QStringLiteral("file has %1 bytes, too short for the 8-byte header (int32 N, int32 d)")
            .arg(file.size()));
  const Header h = readHeader(file.bytes());
  if (h.n <= 0 || h.d <= 0)
    file.fail(QStringLiteral("header says %1 points of %2 dimensions; both must be positive")
                  .arg(h.n)
                  .arg(h.d));
  // A share of the file is held to the limit, not the whole file (a rank reads only its rows).
  requireValueCount(file, std::uint64_t(h.n), std::uint64_t(h.d),
                    options.rowShare ? std::numeric_limits<std::size_t>::max() : options.maxValues);
  requireDataSize(file, QStringLiteral("point data (%1 points × %2 float32)").arg(h.n).arg(h.d),
                  std::size_t(h.n) * std::size_t(h.d) * sizeof(float), file.size() - kHeaderBytes);
  const auto [first, last] = rowsToRead(options, std::size_t(h.n));  // a share, or every row
  if (options.rowShare)
    requireValueCount(file, last - first, std::uint64_t(h.d), options.maxValues);
  requireMemoryFor(file, last - first, std::uint64_t(h.d));
  const std::size_t count = (last - first) * std::size_t(h.d);

  std::vector<float> values(count);
  const char* data = file.bytes().data() + kHeaderBytes + first * std::size_t(h.d) * sizeof(float);
  constexpr std::size_t kChunk = std::size_t(1) << 20;
  for (std::size_t start = 0; start < count; start += kChunk) {
    const std::size_t end = std::min(count, start + kChunk);
    qFromLittleEndian<float>(data + start * sizeof(float), qsizetype(end - start), &values[start]);
    progress.update(double(end) / double(count));
  }
  requireFinite(file, values, std::size_t(h.d), first);
  auto dataset = makePointDataset(file, last - first, h.d, std::move(values));
  if (options.rowShare) {
    dataset->firstRow = first;
    dataset->fileRows = std::size_t(h.n);
  }
  return dataset;
}

}  // namespace kms::app::io
