#include "render/cluster_style.h"

#include <array>
#include <cmath>
#include <limits>

namespace kms::app {
namespace {

// Tableau 10 followed by its lighter companions: distinct on white and on each other.
constexpr std::array<QRgb, 20> kPalette = {0x4e79a7, 0xf28e2b, 0xe15759, 0x76b7b2, 0x59a14f,
                                           0xedc948, 0xb07aa1, 0xff9da7, 0x9c755f, 0xbab0ac,
                                           0xa0cbe8, 0xffbe7d, 0x8cd17d, 0xb6992d, 0x499894,
                                           0x86bcb6, 0xf1ce63, 0xd37295, 0xfabfd2, 0x79706e};

// Regions are a light wash; their boundaries a little stronger.
constexpr int kFillAlpha = 46;
constexpr int kEdgeAlpha = 150;

}  // namespace

QColor categoricalColour(int index) {
  if (index < 0) return QColor(0x9aa0a6);
  if (index < int(kPalette.size())) return QColor(kPalette[std::size_t(index)]);
  // Golden-angle hue steps never repeat and keep successive clusters far apart on the wheel.
  const double hue = std::fmod(index * 137.507764, 360.0);
  const int lightness = 110 + (index % 3) * 30;
  return QColor::fromHsl(int(hue), 150, lightness);
}

QColor contrastingText(const QColor& background) {
  // Relative luminance per ITU-R BT.709, with a threshold tuned for small text.
  const double y =
      0.2126 * background.redF() + 0.7152 * background.greenF() + 0.0722 * background.blueF();
  return y > 0.55 ? QColor(0x20, 0x22, 0x25) : QColor(Qt::white);
}

QImage voronoiRegions(const std::vector<QPointF>& centres, const std::vector<QColor>& colours,
                      const QRectF& range, QSize size) {
  QImage image(size, QImage::Format_ARGB32_Premultiplied);
  if (centres.empty() || size.isEmpty()) {
    image.fill(Qt::transparent);
    return image;
  }
  std::vector<int> owner(std::size_t(size.width()) * std::size_t(size.height()));
  const double dx = range.width() / size.width(), dy = range.height() / size.height();
  for (int row = 0; row < size.height(); ++row) {
    const double y = range.top() + (size.height() - row - 0.5) * dy;  // row 0 at the top
    for (int col = 0; col < size.width(); ++col) {
      const double x = range.left() + (col + 0.5) * dx;
      int best = 0;
      double bestDistance = std::numeric_limits<double>::infinity();
      for (std::size_t c = 0; c < centres.size(); ++c) {
        const double ex = x - centres[c].x(), ey = y - centres[c].y();
        const double distance = ex * ex + ey * ey;
        if (distance < bestDistance) {
          bestDistance = distance;
          best = int(c);
        }
      }
      owner[std::size_t(row) * std::size_t(size.width()) + std::size_t(col)] = best;
    }
  }
  for (int row = 0; row < size.height(); ++row) {
    auto* line = reinterpret_cast<QRgb*>(image.scanLine(row));
    for (int col = 0; col < size.width(); ++col) {
      const int o = owner[std::size_t(row) * std::size_t(size.width()) + std::size_t(col)];
      const bool edge =
          (col + 1 < size.width() &&
           owner[std::size_t(row) * std::size_t(size.width()) + std::size_t(col) + 1] != o) ||
          (row + 1 < size.height() &&
           owner[std::size_t(row + 1) * std::size_t(size.width()) + std::size_t(col)] != o);
      QColor colour = std::size_t(o) < colours.size() ? colours[std::size_t(o)] : Qt::gray;
      if (edge) colour = colour.darker(130);
      colour.setAlpha(edge ? kEdgeAlpha : kFillAlpha);
      line[col] = qPremultiply(colour.rgba());
    }
  }
  return image;
}

}  // namespace kms::app
