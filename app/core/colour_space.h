// The colour spaces a picture can be clustered in, conversions to and from sRGB, and the colour
// difference CIEDE2000. Plain C++ (no Qt): used by the loaders' callers, the session, the CLI
// and the quality measures alike, so every path converts a colour to the same floats.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace kms::app {

enum class ColourSpace {
  SRGB,       ///< the file's own values, R, G, B in [0, 1] (the default)
  LinearRGB,  ///< sRGB with its transfer curve undone: light intensities in [0, 1]
  CIELab,     ///< CIE 1976 L*a*b* under D65; L in [0, 100]
  Oklab,      ///< Björn Ottosson's perceptual space; L in [0, 1]
};

std::string_view toString(ColourSpace space);
/// Accepts "srgb", "linear" (also "linear-rgb"), "lab" (also "cielab") and "oklab".
std::optional<ColourSpace> parseColourSpace(std::string_view text);
/// The three channel names ("R", "G", "B" / "L*", "a*", "b*" / "L", "a", "b").
std::vector<std::string_view> channelNames(ColourSpace space);
/// Scale of an alpha channel clustered beside the colour (1, or 100 for CIELAB, whose L spans
/// 0..100), so that opacity weighs about as much as lightness.
float alphaScale(ColourSpace space);

/// sRGB in [0, 1] to `space` (three floats), computed in double and rounded once. The same
/// input always gives the same floats, which is what keeps distinct-colour clustering exact in
/// every space.
void fromSrgb(ColourSpace space, const float* rgb, float* out);
/// `space` back to sRGB in [0, 1] (clamped: a centroid may fall outside the gamut).
void toSrgb(ColourSpace space, const float* in, float* rgb);

/// Converts n rows of `channels` values (3, or 4 with alpha in [0, 1] last) from sRGB to
/// `space` in place; alpha is scaled by alphaScale(space).
void convertRowsFromSrgb(ColourSpace space, float* values, std::size_t n, int channels);
/// Converts n rows back to sRGB in place (alpha divided by alphaScale and clamped to [0, 1]).
void convertRowsToSrgb(ColourSpace space, float* values, std::size_t n, int channels);

/// CIE L*a*b* (D65) of an sRGB colour in [0, 1], in double.
void srgbToLab(const double* rgb, double* lab);

/// CIEDE2000 colour difference of two L*a*b* colours (Sharma, Wu and Dalal, 2005).
double deltaE2000(const double* lab1, const double* lab2);

}  // namespace kms::app
