// Dithering: deterministic, the right mix of colours (error diffusion and ordered thresholds),
// nearest colours without dithering, transparent pixels kept.
#include <gtest/gtest.h>

#include <QImage>

#include "core/dither.h"
#include "io/export.h"
#include "test_support.h"

namespace kms::app::test {
namespace {

/// A picture of one grey level (value v in 0..255), pixel (0, 0) fully transparent if asked.
DatasetPtr flatPicture(const TempFiles& files, int width, int height, int v, bool hole = false) {
  QImage image(width, height, QImage::Format_ARGB32);
  image.fill(qRgba(v, v, v, 255));
  if (hole) image.setPixel(0, 0, qRgba(0, 0, 0, 0));
  const QString path = files.path(QStringLiteral("flat%1.png").arg(v));
  EXPECT_TRUE(image.save(path));
  return loadOrFail(path);
}

double shareOf(const QImage& image, QRgb colour) {
  std::size_t count = 0, visible = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) {
      const QRgb p = image.pixel(x, y);
      if (qAlpha(p) == 0) continue;
      ++visible;
      count += p == colour;
    }
  return double(count) / double(visible);
}

const std::vector<float> kBlackWhite = {0, 0, 0, 1, 1, 1};
const std::vector<QRgb> kBlackWhitePalette = {qRgb(0, 0, 0), qRgb(255, 255, 255)};

TEST(Dither, FloydSteinbergMixesInProportionAndIsDeterministic) {
  const TempFiles files;
  const auto input = ClusteringInput::build(flatPicture(files, 64, 300, 64, true), {});
  const QImage a =
      ditheredImage(*input, kBlackWhite, kBlackWhitePalette, DitherMode::FloydSteinberg);
  const QImage b =
      ditheredImage(*input, kBlackWhite, kBlackWhitePalette, DitherMode::FloydSteinberg);
  ASSERT_FALSE(a.isNull());
  EXPECT_EQ(a, b);
  EXPECT_EQ(a.format(), QImage::Format_Indexed8);
  EXPECT_NEAR(shareOf(a, qRgb(255, 255, 255)), 64.0 / 255.0, 0.01);
  EXPECT_EQ(qAlpha(a.pixel(0, 0)), 0);  // left out of clustering: stays transparent
}

TEST(Dither, OrderedThresholdsGiveTheExactMixPerTile) {
  const TempFiles files;
  // 0.25 of the way from black to white in sRGB: 16 of every 64 pixels are white.
  const auto input = ClusteringInput::build(flatPicture(files, 16, 16, 64), {});
  const std::vector<float> palette = {0, 0, 0, 256.0f / 255.0f, 256.0f / 255.0f, 256.0f / 255.0f};
  const QImage image = ditheredImage(*input, palette, kBlackWhitePalette, DitherMode::Ordered);
  for (int ty = 0; ty < 2; ++ty)
    for (int tx = 0; tx < 2; ++tx) {
      int white = 0;
      for (int y = 0; y < 8; ++y)
        for (int x = 0; x < 8; ++x)
          white += image.pixel(tx * 8 + x, ty * 8 + y) == qRgb(255, 255, 255);
      EXPECT_EQ(white, 16) << "tile " << tx << "," << ty;
    }
}

TEST(Dither, NoneTakesTheNearestColourInTheClusteringSpace) {
  const TempFiles files;
  const auto srgb = ClusteringInput::build(flatPicture(files, 4, 4, 100), {});
  const QImage image = ditheredImage(*srgb, kBlackWhite, kBlackWhitePalette, DitherMode::None);
  EXPECT_EQ(shareOf(image, qRgb(0, 0, 0)), 1.0);  // 100/255 is nearer black in sRGB
  // In linear light, sRGB 188 is 0.50 and 190 is 0.51: nearer white there.
  const auto linear = ClusteringInput::build(flatPicture(files, 4, 4, 190),
                                             {ColourSpace::LinearRGB, Compaction::Auto});
  const QImage lit = ditheredImage(*linear, kBlackWhite, kBlackWhitePalette, DitherMode::None);
  EXPECT_EQ(shareOf(lit, qRgb(255, 255, 255)), 1.0);
}

TEST(Dither, ModesParse) {
  for (DitherMode mode : {DitherMode::None, DitherMode::FloydSteinberg, DitherMode::Ordered})
    EXPECT_EQ(parseDitherMode(toString(mode)), mode);
  EXPECT_FALSE(parseDitherMode("atkinson").has_value());
}

}  // namespace
}  // namespace kms::app::test
