#include "io/png_writer.h"

#include <zlib.h>

#include <QtEndian>

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <thread>
#include <vector>

#include "core/dataset.h"
#include "core/parallel.h"

namespace kms::app::io {
namespace {

/// Deflate's window: each segment after the first starts with the 32 KB before it as its
/// dictionary, so the split costs (almost) no compression.
constexpr std::size_t kWindow = 32768;
/// Rows are deflated in segments of at least this many bytes, one segment a thread at a time.
constexpr std::size_t kSegmentBytes = std::size_t(1) << 20;
/// IDAT chunks of at most this many bytes (any size is valid; readers stream them).
constexpr std::size_t kIdatBytes = std::size_t(1) << 20;

/// One segment's share of the zlib stream: raw deflate ending on a byte boundary (a sync flush),
/// the last one finished; and the Adler-32 of its input.
struct Segment {
  std::vector<unsigned char> deflated;
  uLong adler = 1;
  std::size_t length = 0;
  bool ok = true;
};

/// Deflates `raw[begin, end)` at `level` as segment `out` of a stream split the way pigz splits
/// one: raw deflate (no header), the window primed with the bytes before `begin`.
void deflateSegment(const std::vector<unsigned char>& raw, std::size_t begin, std::size_t end,
                    bool last, int level, Segment& out) {
  z_stream z{};
  if (deflateInit2(&z, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    out.ok = false;
    return;
  }
  if (begin > 0) {
    const std::size_t from = begin > kWindow ? begin - kWindow : 0;
    deflateSetDictionary(&z, raw.data() + from, uInt(begin - from));
  }
  out.length = end - begin;
  out.adler = adler32(1L, raw.data() + begin, uInt(out.length));
  // deflateBound covers Z_FINISH; a sync flush adds an empty stored block (5 bytes): room for
  // both, and a full buffer counts as a failure (output could still be pending).
  out.deflated.resize(deflateBound(&z, uLong(out.length)) + 64);
  z.next_in = const_cast<Bytef*>(raw.data() + begin);
  z.avail_in = uInt(out.length);
  z.next_out = out.deflated.data();
  z.avail_out = uInt(out.deflated.size());
  const int status = deflate(&z, last ? Z_FINISH : Z_SYNC_FLUSH);
  out.ok = (last ? status == Z_STREAM_END : status == Z_OK && z.avail_in == 0) && z.avail_out > 0;
  out.deflated.resize(out.deflated.size() - z.avail_out);
  deflateEnd(&z);
}

/// The zlib stream of `raw` (header, deflate, Adler-32), deflated on every hardware thread in
/// segments. Empty on failure.
std::vector<unsigned char> parallelZlib(const std::vector<unsigned char>& raw, int level) {
  const std::size_t segments = std::max<std::size_t>(1, raw.size() / kSegmentBytes);
  std::vector<Segment> parts(segments);
  parallelRanges(segments, 1, [&](std::size_t s0, std::size_t s1) {
    for (std::size_t s = s0; s < s1; ++s)
      deflateSegment(raw, raw.size() * s / segments, raw.size() * (s + 1) / segments,
                     s + 1 == segments, level, parts[s]);
  });
  std::vector<unsigned char> stream{0x78, 0x9c};  // deflate, 32 KB window, default level
  uLong adler = 1;
  for (const Segment& part : parts) {
    if (!part.ok) return {};
    stream.insert(stream.end(), part.deflated.begin(), part.deflated.end());
    adler = adler32_combine(adler, part.adler, z_off_t(part.length));
  }
  for (int shift = 24; shift >= 0; shift -= 8)
    stream.push_back((unsigned char)(adler >> shift));
  return stream;
}

/// Writes PNG chunks to a device, remembering the first failure.
class ChunkWriter {
 public:
  explicit ChunkWriter(QIODevice& device) : device_(device) {}
  void raw(const void* data, std::size_t length) {
    if (ok_ && device_.write(static_cast<const char*>(data), qint64(length)) != qint64(length))
      ok_ = false;
  }
  void chunk(const char type[4], const unsigned char* data, std::size_t length) {
    unsigned char header[8];
    qToBigEndian(quint32(length), header);
    std::memcpy(header + 4, type, 4);
    raw(header, 8);
    if (length > 0) raw(data, length);
    uLong crc = crc32(0L, header + 4, 4);
    if (length > 0) crc = crc32(crc, data, uInt(length));
    unsigned char tail[4];
    qToBigEndian(quint32(crc), tail);
    raw(tail, 4);
  }
  bool ok() const { return ok_; }

 private:
  QIODevice& device_;
  bool ok_ = true;
};

}  // namespace

int pngBitDepth(int colours) {
  if (colours <= 2) return 1;
  if (colours <= 4) return 2;
  if (colours <= 16) return 4;
  return 8;
}

void writePalettePng(QIODevice& device, const QImage& image, const QString& path) {
  const QList<QRgb> table = image.colorTable();
  const int colours = int(table.size());
  if (image.format() != QImage::Format_Indexed8 || colours < 1 || colours > 256)
    throw std::invalid_argument("writePalettePng: needs an indexed picture of 1 to 256 colours");
  std::vector<unsigned char> palette(std::size_t(colours) * 3);
  std::vector<unsigned char> alpha(std::size_t(colours), 255);
  int alphas = 0;  // tRNS lists alphas up to the last non-opaque entry
  for (int c = 0; c < colours; ++c) {
    const QRgb rgb = table[c];
    palette[std::size_t(c) * 3 + 0] = (unsigned char)qRed(rgb);
    palette[std::size_t(c) * 3 + 1] = (unsigned char)qGreen(rgb);
    palette[std::size_t(c) * 3 + 2] = (unsigned char)qBlue(rgb);
    alpha[std::size_t(c)] = (unsigned char)qAlpha(rgb);
    if (qAlpha(rgb) != 255) alphas = c + 1;
  }
  // The scanlines: a filter byte (0, none: what suits palette data) and the indices packed
  // 8 / depth pixels a byte, leftmost pixel in the high bits.
  const int depth = pngBitDepth(colours);
  const std::size_t width = std::size_t(image.width());
  const std::size_t height = std::size_t(image.height());
  const std::size_t stride = (width * std::size_t(depth) + 7) / 8;
  std::vector<unsigned char> raw(height * (stride + 1), 0);
  parallelRanges(height, 64, [&](std::size_t y0, std::size_t y1) {
    const int perByte = 8 / depth;
    for (std::size_t y = y0; y < y1; ++y) {
      const uchar* line = image.constScanLine(int(y));
      unsigned char* out = &raw[y * (stride + 1) + 1];
      if (depth == 8) {
        std::memcpy(out, line, width);
        continue;
      }
      for (std::size_t x = 0; x < width; ++x)
        out[x / std::size_t(perByte)] |=
            (unsigned char)(line[x] << (8 - depth * (int(x % std::size_t(perByte)) + 1)));
    }
  });
  const std::vector<unsigned char> stream = parallelZlib(raw, Z_DEFAULT_COMPRESSION);
  if (stream.empty())
    throw ExportError(path, QStringLiteral("cannot write the PNG: zlib failed to compress it"));

  ChunkWriter out(device);
  static const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  out.raw(signature, 8);
  unsigned char header[13];
  qToBigEndian(quint32(width), header);
  qToBigEndian(quint32(height), header + 4);
  header[8] = (unsigned char)depth;
  header[9] = 3;   // colour type: palette
  header[10] = 0;  // deflate
  header[11] = 0;  // adaptive filtering (every line uses filter 0)
  header[12] = 0;  // not interlaced
  out.chunk("IHDR", header, 13);
  out.chunk("PLTE", palette.data(), palette.size());
  if (alphas > 0) out.chunk("tRNS", alpha.data(), std::size_t(alphas));
  for (std::size_t at = 0; at < stream.size(); at += kIdatBytes)
    out.chunk("IDAT", stream.data() + at, std::min(kIdatBytes, stream.size() - at));
  out.chunk("IEND", nullptr, 0);
  if (!out.ok())
    throw ExportError(path, QStringLiteral("cannot write the PNG: %1")
                                .arg(device.errorString().isEmpty()
                                         ? QStringLiteral("the file could not be written")
                                         : device.errorString()));
}

}  // namespace kms::app::io
