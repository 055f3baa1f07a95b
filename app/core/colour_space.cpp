#include "core/colour_space.h"

#include <algorithm>
#include <cmath>

namespace kms::app {
namespace {

constexpr double kPi = 3.14159265358979323846;
// D65 white of the sRGB standard (XYZ, Y = 1).
constexpr double kWhite[3] = {0.95047, 1.0, 1.08883};

double decode(double c) {  // sRGB transfer curve undone
  return c <= 0.04045 ? c / 12.92 : std::pow((c + 0.055) / 1.055, 2.4);
}
double encode(double l) {
  return l <= 0.0031308 ? 12.92 * l : 1.055 * std::pow(l, 1.0 / 2.4) - 0.055;
}

void linearToXyz(const double* l, double* xyz) {
  xyz[0] = 0.4124564 * l[0] + 0.3575761 * l[1] + 0.1804375 * l[2];
  xyz[1] = 0.2126729 * l[0] + 0.7151522 * l[1] + 0.0721750 * l[2];
  xyz[2] = 0.0193339 * l[0] + 0.1191920 * l[1] + 0.9503041 * l[2];
}
void xyzToLinear(const double* xyz, double* l) {
  l[0] = 3.2404542 * xyz[0] - 1.5371385 * xyz[1] - 0.4985314 * xyz[2];
  l[1] = -0.9692660 * xyz[0] + 1.8760108 * xyz[1] + 0.0415560 * xyz[2];
  l[2] = 0.0556434 * xyz[0] - 0.2040259 * xyz[1] + 1.0572252 * xyz[2];
}

constexpr double kDelta = 6.0 / 29.0;
double labF(double t) {
  return t > kDelta * kDelta * kDelta ? std::cbrt(t) : t / (3 * kDelta * kDelta) + 4.0 / 29.0;
}
double labFInverse(double f) {
  return f > kDelta ? f * f * f : 3 * kDelta * kDelta * (f - 4.0 / 29.0);
}

void linearToLab(const double* l, double* lab) {
  double xyz[3];
  linearToXyz(l, xyz);
  const double fx = labF(xyz[0] / kWhite[0]), fy = labF(xyz[1] / kWhite[1]),
               fz = labF(xyz[2] / kWhite[2]);
  lab[0] = 116.0 * fy - 16.0;
  lab[1] = 500.0 * (fx - fy);
  lab[2] = 200.0 * (fy - fz);
}
void labToLinear(const double* lab, double* l) {
  const double fy = (lab[0] + 16.0) / 116.0;
  const double xyz[3] = {kWhite[0] * labFInverse(fy + lab[1] / 500.0), kWhite[1] * labFInverse(fy),
                         kWhite[2] * labFInverse(fy - lab[2] / 200.0)};
  xyzToLinear(xyz, l);
}

// Oklab (Ottosson 2020): linear sRGB → LMS → cube root → Lab.
void linearToOklab(const double* c, double* lab) {
  const double l = std::cbrt(0.4122214708 * c[0] + 0.5363325363 * c[1] + 0.0514459929 * c[2]);
  const double m = std::cbrt(0.2119034982 * c[0] + 0.6806995451 * c[1] + 0.1073969566 * c[2]);
  const double s = std::cbrt(0.0883024619 * c[0] + 0.2817188376 * c[1] + 0.6299787005 * c[2]);
  lab[0] = 0.2104542553 * l + 0.7936177850 * m - 0.0040720468 * s;
  lab[1] = 1.9779984951 * l - 2.4285922050 * m + 0.4505937099 * s;
  lab[2] = 0.0259040371 * l + 0.7827717662 * m - 0.8086757660 * s;
}
void oklabToLinear(const double* lab, double* c) {
  const double l = lab[0] + 0.3963377774 * lab[1] + 0.2158037573 * lab[2];
  const double m = lab[0] - 0.1055613458 * lab[1] - 0.0638541728 * lab[2];
  const double s = lab[0] - 0.0894841775 * lab[1] - 1.2914855480 * lab[2];
  const double l3 = l * l * l, m3 = m * m * m, s3 = s * s * s;
  c[0] = 4.0767416621 * l3 - 3.3077115913 * m3 + 0.2309699292 * s3;
  c[1] = -1.2684380046 * l3 + 2.6097574011 * m3 - 0.3413193965 * s3;
  c[2] = -0.0041960863 * l3 - 0.7034186147 * m3 + 1.7076147010 * s3;
}

double clamp01(double v) {
  return std::clamp(v, 0.0, 1.0);
}

}  // namespace

std::string_view toString(ColourSpace space) {
  switch (space) {
    case ColourSpace::SRGB:
      return "srgb";
    case ColourSpace::LinearRGB:
      return "linear";
    case ColourSpace::CIELab:
      return "lab";
    case ColourSpace::Oklab:
      return "oklab";
  }
  return "?";
}

std::optional<ColourSpace> parseColourSpace(std::string_view text) {
  if (text == "srgb" || text == "sRGB") return ColourSpace::SRGB;
  if (text == "linear" || text == "linear-rgb") return ColourSpace::LinearRGB;
  if (text == "lab" || text == "cielab" || text == "CIELAB") return ColourSpace::CIELab;
  if (text == "oklab" || text == "Oklab") return ColourSpace::Oklab;
  return std::nullopt;
}

std::vector<std::string_view> channelNames(ColourSpace space) {
  switch (space) {
    case ColourSpace::SRGB:
      return {"R", "G", "B"};
    case ColourSpace::LinearRGB:
      return {"R (linear)", "G (linear)", "B (linear)"};
    case ColourSpace::CIELab:
      return {"L*", "a*", "b*"};
    case ColourSpace::Oklab:
      return {"L", "a", "b"};
  }
  return {};
}

float alphaScale(ColourSpace space) {
  return space == ColourSpace::CIELab ? 100.0f : 1.0f;
}

void fromSrgb(ColourSpace space, const float* rgb, float* out) {
  if (space == ColourSpace::SRGB) {
    std::copy(rgb, rgb + 3, out);
    return;
  }
  const double linear[3] = {decode(rgb[0]), decode(rgb[1]), decode(rgb[2])};
  double v[3] = {linear[0], linear[1], linear[2]};
  if (space == ColourSpace::CIELab) linearToLab(linear, v);
  if (space == ColourSpace::Oklab) linearToOklab(linear, v);
  for (int c = 0; c < 3; ++c)
    out[c] = static_cast<float>(v[c]);
}

void toSrgb(ColourSpace space, const float* in, float* rgb) {
  if (space == ColourSpace::SRGB) {
    for (int c = 0; c < 3; ++c)
      rgb[c] = static_cast<float>(clamp01(in[c]));
    return;
  }
  const double v[3] = {in[0], in[1], in[2]};
  double linear[3] = {v[0], v[1], v[2]};
  if (space == ColourSpace::CIELab) labToLinear(v, linear);
  if (space == ColourSpace::Oklab) oklabToLinear(v, linear);
  for (int c = 0; c < 3; ++c)
    rgb[c] = static_cast<float>(clamp01(encode(clamp01(linear[c]))));
}

void convertRowsFromSrgb(ColourSpace space, float* values, std::size_t n, int channels) {
  if (space == ColourSpace::SRGB) return;
  const float alpha = alphaScale(space);
  for (std::size_t i = 0; i < n; ++i) {
    float* row = values + i * std::size_t(channels);
    float out[3];
    fromSrgb(space, row, out);
    std::copy(out, out + 3, row);
    if (channels == 4) row[3] *= alpha;
  }
}

void convertRowsToSrgb(ColourSpace space, float* values, std::size_t n, int channels) {
  const float alpha = alphaScale(space);
  for (std::size_t i = 0; i < n; ++i) {
    float* row = values + i * std::size_t(channels);
    float out[3];
    toSrgb(space, row, out);
    std::copy(out, out + 3, row);
    if (channels == 4) row[3] = std::clamp(row[3] / alpha, 0.0f, 1.0f);
  }
}

void srgbToLab(const double* rgb, double* lab) {
  const double linear[3] = {decode(rgb[0]), decode(rgb[1]), decode(rgb[2])};
  linearToLab(linear, lab);
}

double deltaE2000(const double* lab1, const double* lab2) {
  const double L1 = lab1[0], a1 = lab1[1], b1 = lab1[2];
  const double L2 = lab2[0], a2 = lab2[1], b2 = lab2[2];
  // Powers by multiplication and sqrt for hypot: this runs per pixel sample per iteration.
  const auto pow7 = [](double x) {
    const double x2 = x * x;
    return x2 * x2 * x2 * x;
  };
  const double c1 = std::sqrt(a1 * a1 + b1 * b1), c2 = std::sqrt(a2 * a2 + b2 * b2);
  const double c_mean = 0.5 * (c1 + c2);
  const double c7 = pow7(c_mean);
  const double g = 0.5 * (1.0 - std::sqrt(c7 / (c7 + 6103515625.0)));  // 25^7
  const double a1p = (1.0 + g) * a1, a2p = (1.0 + g) * a2;
  const double c1p = std::sqrt(a1p * a1p + b1 * b1), c2p = std::sqrt(a2p * a2p + b2 * b2);
  auto hue = [](double b, double ap) {
    if (b == 0.0 && ap == 0.0) return 0.0;
    const double h = std::atan2(b, ap) * 180.0 / kPi;
    return h < 0.0 ? h + 360.0 : h;
  };
  const double h1p = hue(b1, a1p), h2p = hue(b2, a2p);
  const double dLp = L2 - L1, dCp = c2p - c1p;
  double dhp = 0.0;
  if (c1p * c2p != 0.0) {
    dhp = h2p - h1p;
    if (dhp > 180.0) dhp -= 360.0;
    if (dhp < -180.0) dhp += 360.0;
  }
  const double dHp = 2.0 * std::sqrt(c1p * c2p) * std::sin(dhp * kPi / 360.0);
  const double Lp = 0.5 * (L1 + L2), Cp = 0.5 * (c1p + c2p);
  double hp = h1p + h2p;
  if (c1p * c2p != 0.0) {
    if (std::abs(h1p - h2p) <= 180.0)
      hp *= 0.5;
    else
      hp = h1p + h2p < 360.0 ? 0.5 * (hp + 360.0) : 0.5 * (hp - 360.0);
  }
  const double rad = kPi / 180.0;
  const double t = 1.0 - 0.17 * std::cos((hp - 30.0) * rad) + 0.24 * std::cos(2.0 * hp * rad) +
                   0.32 * std::cos((3.0 * hp + 6.0) * rad) -
                   0.20 * std::cos((4.0 * hp - 63.0) * rad);
  const double hue_offset = (hp - 275.0) / 25.0;
  const double d_theta = 30.0 * std::exp(-hue_offset * hue_offset);
  const double cp7 = pow7(Cp);
  const double rc = 2.0 * std::sqrt(cp7 / (cp7 + 6103515625.0));
  const double sl =
      1.0 + 0.015 * (Lp - 50.0) * (Lp - 50.0) / std::sqrt(20.0 + (Lp - 50.0) * (Lp - 50.0));
  const double sc = 1.0 + 0.045 * Cp;
  const double sh = 1.0 + 0.015 * Cp * t;
  const double rt = -std::sin(2.0 * d_theta * rad) * rc;
  const double l_term = dLp / sl, c_term = dCp / sc, h_term = dHp / sh;
  return std::sqrt(l_term * l_term + c_term * c_term + h_term * h_term + rt * c_term * h_term);
}

}  // namespace kms::app
