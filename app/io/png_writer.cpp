#include "io/png_writer.h"

#include <png.h>

#include <cstring>
#include <vector>

#include "core/dataset.h"

namespace kms::app::io {
namespace {

/// Where libpng's callbacks report: the device and the first error.
struct Sink {
  QIODevice* device;
  bool device_failed;
  char error[256];
};

void writeBytes(png_structp png, png_bytep data, png_size_t length) {
  auto* sink = static_cast<Sink*>(png_get_io_ptr(png));
  if (sink->device->write(reinterpret_cast<const char*>(data), qint64(length)) != qint64(length)) {
    sink->device_failed = true;
    png_error(png, "the file could not be written");
  }
}

void flushBytes(png_structp) {}

void onError(png_structp png, png_const_charp message) {
  auto* sink = static_cast<Sink*>(png_get_error_ptr(png));
  std::strncpy(sink->error, message, sizeof sink->error - 1);
  png_longjmp(png, 1);
}

void onWarning(png_structp, png_const_charp) {}

/// The libpng part, with only trivially destructible locals between setjmp and longjmp.
/// Returns false with sink.error set on failure.
bool writePng(Sink& sink, const QImage& image, const png_color* palette, int colours,
              const png_byte* alpha, int alphas, int depth, const png_byte* const* rows) {
  png_structp png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &sink, onError, onWarning);
  if (!png) {
    std::strncpy(sink.error, "libpng could not start", sizeof sink.error - 1);
    return false;
  }
  png_infop info = png_create_info_struct(png);
  if (!info || setjmp(png_jmpbuf(png))) {
    png_destroy_write_struct(&png, &info);
    return false;
  }
  png_set_write_fn(png, &sink, writeBytes, flushBytes);
  png_set_IHDR(png, info, png_uint_32(image.width()), png_uint_32(image.height()), depth,
               PNG_COLOR_TYPE_PALETTE, PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT,
               PNG_FILTER_TYPE_DEFAULT);
  png_set_PLTE(png, info, palette, colours);
  if (alphas > 0) png_set_tRNS(png, info, alpha, alphas, nullptr);
  png_set_filter(png, PNG_FILTER_TYPE_BASE, PNG_FILTER_NONE);
  png_write_info(png, info);
  png_write_image(png, const_cast<png_bytepp>(rows));
  png_write_end(png, info);
  png_destroy_write_struct(&png, &info);
  return true;
}

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
  std::vector<png_color> palette(std::size_t(colours), png_color{});
  std::vector<png_byte> alpha(std::size_t(colours), 255);
  int alphas = 0;  // tRNS lists alphas up to the last non-opaque entry
  for (int c = 0; c < colours; ++c) {
    const QRgb rgb = table[c];
    palette[std::size_t(c)] = {png_byte(qRed(rgb)), png_byte(qGreen(rgb)), png_byte(qBlue(rgb))};
    alpha[std::size_t(c)] = png_byte(qAlpha(rgb));
    if (qAlpha(rgb) != 255) alphas = c + 1;
  }
  // Pack the indices: 8 / depth pixels per byte, leftmost pixel in the high bits.
  const int depth = pngBitDepth(colours);
  const std::size_t width = std::size_t(image.width());
  const std::size_t stride = (width * std::size_t(depth) + 7) / 8;
  std::vector<png_byte> packed(depth == 8 ? 0 : stride * std::size_t(image.height()));
  std::vector<const png_byte*> rows(std::size_t(image.height()));
  for (int y = 0; y < image.height(); ++y) {
    const uchar* line = image.constScanLine(y);
    if (depth == 8) {
      rows[std::size_t(y)] = line;
      continue;
    }
    png_byte* out = &packed[std::size_t(y) * stride];
    const int perByte = 8 / depth;
    for (std::size_t x = 0; x < width; ++x)
      out[x / std::size_t(perByte)] |=
          png_byte(line[x] << (8 - depth * (int(x % std::size_t(perByte)) + 1)));
    rows[std::size_t(y)] = out;
  }
  Sink sink{&device, false, {}};
  if (!writePng(sink, image, palette.data(), colours, alpha.data(), alphas, depth, rows.data()))
    throw ExportError(path, QStringLiteral("cannot write the PNG: %1")
                                .arg(sink.device_failed && !device.errorString().isEmpty()
                                         ? device.errorString()
                                         : QString::fromLocal8Bit(sink.error)));
}

}  // namespace kms::app::io
