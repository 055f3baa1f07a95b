#include "views/cluster_colours.h"

#include <array>
#include <cmath>

#include "io/export.h"

namespace kms::ui {
namespace {

// Tableau 10 followed by its lighter companions: distinct on white and on each other.
constexpr std::array<QRgb, 20> kPalette = {0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0x59a14f,
                                           0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac,
                                           0xa0cbe8, 0xffbe7d, 0x8cd17d, 0xb6992d, 0x499894,
                                           0x86bcb6, 0xf1ce63, 0xd37295, 0xfabfd2, 0x79706e};

}  // namespace

QColor categoricalColour(int index) {
  if (index < 0) return QColor(0x9aa0a6);
  if (index < int(kPalette.size())) return QColor(kPalette[std::size_t(index)]);
  // Golden-angle hue steps never repeat and keep successive clusters far apart on the wheel.
  const double hue = std::fmod(index * 137.507764, 360.0);
  const int lightness = 110 + (index % 3) * 30;
  return QColor::fromHsl(int(hue), 150, lightness);
}

std::vector<QColor> clusterColours(const session::Frame& frame, bool image) {
  std::vector<QColor> colours(std::size_t(std::max(frame.k, 0)));
  for (int c = 0; c < frame.k; ++c) {
    if (image && frame.d == 3 && frame.centroids.size() >= std::size_t(frame.k) * 3)
      colours[std::size_t(c)] =
          QColor(kms::app::centroidColour(&frame.centroids[std::size_t(c) * 3]));
    else
      colours[std::size_t(c)] = categoricalColour(c);
  }
  return colours;
}

QColor contrastingText(const QColor& background) {
  // Relative luminance per ITU-R BT.709, with a threshold tuned for small text.
  const double y =
      0.2126 * background.redF() + 0.7152 * background.greenF() + 0.0722 * background.blueF();
  return y > 0.55 ? QColor(0x20, 0x22, 0x25) : QColor(Qt::white);
}

}  // namespace kms::ui
