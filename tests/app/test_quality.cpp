// Quality measures from the compact form: PSNR and mean CIEDE2000, weighted by pixel counts,
// exact or estimated on a stratified sample.
#include <gtest/gtest.h>

#include <QImage>

#include <cmath>
#include <random>

#include "core/colour_space.h"
#include "core/quality.h"
#include "test_support.h"

namespace kms::app::test {
namespace {

TEST(Quality, PsnrAndDeltaEOfAKnownPicture) {
  const TempFiles files;
  QImage image(4, 1, QImage::Format_RGB32);
  image.fill(qRgb(100, 100, 100));
  image.setPixel(3, 0, qRgb(0, 0, 200));
  const QString path = files.path("two.png");
  ASSERT_TRUE(image.save(path));
  const DatasetPtr data = loadOrFail(path);
  const auto quality = QualityContext::build(*data);
  ASSERT_TRUE(quality);
  std::vector<std::int32_t> labels(data->n);
  for (std::size_t r = 0; r < data->n; ++r)
    labels[r] = data->values[r * 3 + 2] > 0.5f ? 1 : 0;
  // Exact palette: no error at all.
  const Quality exact = quality->measure(labels, {qRgb(100, 100, 100), qRgb(0, 0, 200)}, true);
  EXPECT_TRUE(std::isinf(exact.psnr));
  EXPECT_EQ(exact.deltaE, 0.0);
  // The grey pixels (3 of 4) off by 10 in red: MSE = 3·100 / (3·4) = 25.
  const Quality off = quality->measure(labels, {qRgb(110, 100, 100), qRgb(0, 0, 200)}, true);
  EXPECT_NEAR(off.psnr, 10.0 * std::log10(255.0 * 255.0 / 25.0), 1e-9);
  double grey[3], shifted[3];
  const double a[3] = {100 / 255.0f, 100 / 255.0f, 100 / 255.0f},
               b[3] = {110 / 255.0f, 100 / 255.0f, 100 / 255.0f};
  srgbToLab(a, grey);
  srgbToLab(b, shifted);
  EXPECT_NEAR(off.deltaE, 0.75 * deltaE2000(grey, shifted), 1e-9);
  EXPECT_TRUE(off.deltaEExact);
}

TEST(Quality, TheSampledDeltaEIsCloseToTheExactOne) {
  const TempFiles files;
  QImage image(400, 300, QImage::Format_RGB32);
  std::mt19937 rng(1);
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x)
      image.setPixel(x, y, qRgb(int(rng() % 256), int(rng() % 256), (x + y) % 256));
  const QString path = files.path("noise.png");
  ASSERT_TRUE(image.save(path));
  const DatasetPtr data = loadOrFail(path);
  ASSERT_GT(data->n, QualityContext::kDeltaESamples);
  const auto quality = QualityContext::build(*data);
  std::vector<std::int32_t> labels(data->n);
  for (std::size_t r = 0; r < data->n; ++r)
    labels[r] = data->values[r * 3] > 0.5f ? 1 : 0;
  const std::vector<QRgb> palette = {qRgb(60, 128, 128), qRgb(190, 128, 128)};
  const Quality exact = quality->measure(labels, palette, true);
  const Quality sampled = quality->measure(labels, palette, false);
  EXPECT_TRUE(exact.deltaEExact);
  EXPECT_FALSE(sampled.deltaEExact);
  EXPECT_EQ(exact.psnr, sampled.psnr);  // PSNR is always exact
  EXPECT_NEAR(sampled.deltaE, exact.deltaE, 0.02 * exact.deltaE);
}

TEST(Quality, PointSetsHaveNone) {
  Dataset points;
  points.n = 3;
  points.d = 2;
  points.values = {0, 0, 1, 1, 2, 2};
  EXPECT_EQ(QualityContext::build(points), nullptr);
}

}  // namespace
}  // namespace kms::app::test
