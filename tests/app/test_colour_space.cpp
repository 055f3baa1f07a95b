// Colour spaces: known values, sRGB round trips of every 8-bit level, CIEDE2000 against the
// published test pairs (Sharma, Wu and Dalal 2005).
#include <gtest/gtest.h>

#include <cmath>

#include "core/colour_space.h"

namespace kms::app {
namespace {

std::vector<float> from(ColourSpace space, float r, float g, float b) {
  const float rgb[3] = {r, g, b};
  std::vector<float> out(3);
  fromSrgb(space, rgb, out.data());
  return out;
}

TEST(ColourSpace, KnownValues) {
  const auto white = from(ColourSpace::CIELab, 1, 1, 1);
  EXPECT_NEAR(white[0], 100.0f, 1e-3f);
  EXPECT_NEAR(white[1], 0.0f, 1e-3f);
  EXPECT_NEAR(white[2], 0.0f, 1e-3f);
  const auto red = from(ColourSpace::CIELab, 1, 0, 0);
  EXPECT_NEAR(red[0], 53.24f, 0.01f);
  EXPECT_NEAR(red[1], 80.09f, 0.01f);
  EXPECT_NEAR(red[2], 67.20f, 0.01f);
  const auto okWhite = from(ColourSpace::Oklab, 1, 1, 1);
  EXPECT_NEAR(okWhite[0], 1.0f, 1e-4f);
  EXPECT_NEAR(okWhite[1], 0.0f, 1e-4f);
  const auto okRed = from(ColourSpace::Oklab, 1, 0, 0);
  EXPECT_NEAR(okRed[0], 0.62796f, 1e-4f);
  EXPECT_NEAR(okRed[1], 0.22486f, 1e-4f);
  EXPECT_NEAR(okRed[2], 0.12585f, 1e-4f);
  const auto mid = from(ColourSpace::LinearRGB, 0.5f, 0.04045f, 0);
  EXPECT_NEAR(mid[0], 0.21404f, 1e-5f);
  EXPECT_NEAR(mid[1], 0.04045f / 12.92f, 1e-7f);
  EXPECT_EQ(from(ColourSpace::SRGB, 0.25f, 0.5f, 1), (std::vector<float>{0.25f, 0.5f, 1}));
}

TEST(ColourSpace, EveryEightBitColourComesBack) {
  for (ColourSpace space : {ColourSpace::LinearRGB, ColourSpace::CIELab, ColourSpace::Oklab})
    for (int r = 0; r < 256; r += 5)
      for (int g = 0; g < 256; g += 3)
        for (int b = 0; b < 256; b += 17) {
          const float rgb[3] = {r / 255.0f, g / 255.0f, b / 255.0f};
          float there[3], back[3];
          fromSrgb(space, rgb, there);
          toSrgb(space, there, back);
          for (int c = 0; c < 3; ++c)
            ASSERT_EQ(std::lround(back[c] * 255.0f), std::lround(rgb[c] * 255.0f))
                << toString(space) << " " << r << "," << g << "," << b;
        }
}

TEST(ColourSpace, RowsConvertWithAlphaScaled) {
  std::vector<float> rows = {1, 0, 0, 0.5f, 0, 0, 1, 1};
  convertRowsFromSrgb(ColourSpace::CIELab, rows.data(), 2, 4);
  EXPECT_NEAR(rows[0], 53.24f, 0.01f);
  EXPECT_FLOAT_EQ(rows[3], 50.0f);  // alpha × 100 beside L in 0..100
  convertRowsToSrgb(ColourSpace::CIELab, rows.data(), 2, 4);
  EXPECT_NEAR(rows[0], 1.0f, 1e-5f);
  EXPECT_FLOAT_EQ(rows[3], 0.5f);
  EXPECT_FLOAT_EQ(rows[7], 1.0f);
}

TEST(ColourSpace, OutOfGamutCentroidsAreClamped) {
  const float lab[3] = {50.0f, 120.0f, -120.0f};
  float rgb[3];
  toSrgb(ColourSpace::CIELab, lab, rgb);
  for (float v : rgb) {
    EXPECT_GE(v, 0.0f);
    EXPECT_LE(v, 1.0f);
  }
}

TEST(ColourSpace, NamesParseBack) {
  for (ColourSpace space :
       {ColourSpace::SRGB, ColourSpace::LinearRGB, ColourSpace::CIELab, ColourSpace::Oklab})
    EXPECT_EQ(parseColourSpace(toString(space)), space);
  EXPECT_FALSE(parseColourSpace("hsv").has_value());
}

struct DeltaEPair {
  double lab1[3], lab2[3], expected;
};

TEST(DeltaE2000, MatchesThePublishedTestData) {
  const DeltaEPair pairs[] = {
      {{50.0, 2.6772, -79.7751}, {50.0, 0.0, -82.7485}, 2.0425},
      {{50.0, 3.1571, -77.2803}, {50.0, 0.0, -82.7485}, 2.8615},
      {{50.0, 2.8361, -74.0200}, {50.0, 0.0, -82.7485}, 3.4412},
      {{50.0, 0.0, 0.0}, {50.0, -1.0, 2.0}, 2.3669},
      {{50.0, 2.4900, -0.0010}, {50.0, -2.4900, 0.0009}, 7.1792},
      {{50.0, 2.5, 0.0}, {73.0, 25.0, -18.0}, 27.1492},
      {{60.2574, -34.0099, 36.2677}, {60.4626, -34.1751, 39.4387}, 1.2644},
      {{2.0776, 0.0795, -1.1350}, {0.9033, -0.0636, -0.5514}, 0.9082},
  };
  for (const DeltaEPair& p : pairs) {
    EXPECT_NEAR(deltaE2000(p.lab1, p.lab2), p.expected, 1e-4);
    EXPECT_NEAR(deltaE2000(p.lab2, p.lab1), p.expected, 1e-4);  // symmetric
  }
  const double same[3] = {40, 10, -5};
  EXPECT_EQ(deltaE2000(same, same), 0.0);
}

}  // namespace
}  // namespace kms::app
