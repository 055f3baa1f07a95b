#include "core/dither.h"

#include <stdexcept>

namespace kms::app {
namespace {

/// Where the chosen palette entries go: an Indexed8 picture, or true colour beyond 256 colours.
class ImageSink final : public DitherSink {
 public:
  ImageSink(const Dataset& data, const std::vector<QRgb>& palette)
      : palette_(palette), none_(int(palette.size())) {
    const bool leftOut = data.hasLeftOutItems();
    QList<QRgb> table(palette.begin(), palette.end());
    if (leftOut) table.append(qRgba(0, 0, 0, 0));
    if (table.size() <= 256) {
      image_ = QImage(data.width, data.height, QImage::Format_Indexed8);
      image_.setColorTable(table);
      indexed_ = true;
    } else {
      image_ = QImage(data.width, data.height, QImage::Format_ARGB32);
    }
    // Taken once: threads then write their own rows through plain pointers (scanLine() would
    // check for sharing on every call, which is not safe to do concurrently).
    bits_ = image_.bits();
    stride_ = std::size_t(image_.bytesPerLine());
  }
  void set(int x, int y, int entry) override {
    uchar* line = bits_ + std::size_t(y) * stride_;
    if (indexed_)
      line[x] = uchar(entry);
    else
      reinterpret_cast<QRgb*>(line)[x] =
          entry == none_ ? qRgba(0, 0, 0, 0) : palette_[std::size_t(entry)];
  }
  QImage take() { return std::move(image_); }

 private:
  QImage image_;
  const std::vector<QRgb>& palette_;
  int none_;
  bool indexed_ = false;
  uchar* bits_ = nullptr;
  std::size_t stride_ = 0;
};

}  // namespace

QImage ditheredImage(const ClusteringInput& input, const std::vector<float>& centroids,
                     const std::vector<QRgb>& palette, DitherMode mode,
                     const std::atomic<bool>* cancel) {
  const Dataset& data = *input.dataset();
  const int d = data.d;
  if (!data.isImage() || data.width <= 0 || d < 1 || d > 8 || centroids.empty() ||
      centroids.size() != palette.size() * std::size_t(d))
    throw std::invalid_argument("ditheredImage: needs a picture and k centroids with colours");
  static_assert(kNoPixelRow == kms::kNoRow, "left-out pixels are marked alike");
  const std::vector<float>& rows = input.datasetRowsInSpace();
  DitherPicture picture;
  picture.width = data.width;
  picture.height = data.height;
  picture.d = d;
  picture.rows = rows.data();
  picture.rowCount = rows.size() / std::size_t(d);
  picture.pixelRows = data.index.empty() ? nullptr : data.index.data();
  ImageSink out(data, palette);
  if (!ditherPixels(picture, centroids, mode, out, cancel)) return {};
  return out.take();
}

}  // namespace kms::app
