#include "tools/photo_foreground.h"

#include <QLinearGradient>
#include <QPainterPath>
#include <QPolygonF>

#include <algorithm>
#include <cmath>

namespace kms::app::tools {
namespace {

void paintConifer(Canvas& c, QPointF foot, double height) {
  const int tiers = 9;
  const double trunk = 0.08 * height;
  c.painter.setPen(Qt::NoPen);
  c.painter.setBrush(QColor(0x3a, 0x26, 0x1a));
  c.painter.drawRect(QRectF(foot.x() - trunk / 3, foot.y() - trunk * 2, trunk / 1.5, trunk * 2));
  for (int t = 0; t < tiers; ++t) {
    const double f = double(t) / tiers;
    const double baseY = foot.y() - trunk - f * (height - trunk) * 0.93;
    const double half = std::pow(1.0 - f, 1.1) * 0.2 * height + 3;
    const double tip = baseY - (height - trunk) / tiers * 2.0;
    // A skirt of branches: the lower edge droops into points, as branch tips do.
    QPolygonF skirt;
    skirt << QPointF(foot.x() + c.rng.normal(), tip);
    const int points = 6 + int(half / 6);
    for (int i = points; i >= 0; --i) {
      const double u = -1.0 + 2.0 * i / points;
      const double droop =
          (i % 2 == 0 ? c.rng.uniform(2, 7) : -c.rng.uniform(2, 8)) * (0.6 + (1 - f));
      skirt << QPointF(foot.x() + u * half * (1.0 + 0.08 * c.rng.normal()), baseY + droop);
    }
    // Shadowed on the left, lit by the low sun on the right.
    QLinearGradient light(foot.x() - half, 0, foot.x() + half, 0);
    light.setColorAt(0, QColor(0x0d, 0x1f, 0x14));
    light.setColorAt(0.5, QColor(0x1d, 0x3a, 0x22));
    light.setColorAt(
        1, mix(QColor(0x3d, 0x6a, 0x2e), QColor(0x7a, 0x8a, 0x3a), c.rng.uniform(0, 0.5)));
    c.painter.setBrush(light);
    c.painter.drawPolygon(skirt);
    // Needle strokes break up the flat fill.
    for (int k = 0; k < int(half * 1.6); ++k) {
      const double v = c.rng.uniform();  // 0 at the tip, 1 at the skirt
      const double x = foot.x() + c.rng.uniform(-1, 1) * half * v;
      const double y = tip + v * (baseY - tip);
      const double side = x < foot.x() ? -1 : 1;
      QColor needle =
          mix(QColor(0x0b, 0x1c, 0x10), QColor(0x5c, 0x7e, 0x34),
              std::clamp(0.5 + 0.5 * (x - foot.x()) / half + 0.2 * c.rng.normal(), 0.0, 1.0));
      needle.setAlpha(170);
      c.painter.setPen(QPen(needle, 1.2));
      c.painter.drawLine(QPointF(x, y),
                         QPointF(x + side * c.rng.uniform(2, 6), y + c.rng.uniform(1, 4)));
    }
    c.painter.setPen(Qt::NoPen);
  }
}

void paintAutumnTree(Canvas& c, QPointF foot, double height) {
  c.painter.setPen(QPen(QColor(0x3b, 0x2a, 0x20), height * 0.05, Qt::SolidLine, Qt::RoundCap));
  const QPointF crown = foot - QPointF(0, height * 0.62);
  c.painter.drawLine(foot, crown);
  c.painter.setPen(QPen(QColor(0x3b, 0x2a, 0x20), height * 0.02, Qt::SolidLine, Qt::RoundCap));
  for (int b = 0; b < 5; ++b)
    c.painter.drawLine(
        crown + QPointF(0, height * 0.1 * b),
        crown + QPointF(c.rng.uniform(-0.3, 0.3) * height, -c.rng.uniform(0.05, 0.25) * height));
  static const QColor kLeaves[] = {QColor(0xc6, 0x4b, 0x2c), QColor(0xe0, 0x8e, 0x2b),
                                   QColor(0xf2, 0xc1, 0x4e), QColor(0x9b, 0x2d, 0x2a),
                                   QColor(0x8f, 0x9a, 0x3a)};
  c.painter.setPen(Qt::NoPen);
  for (int leaf = 0; leaf < 520; ++leaf) {
    const double angle = c.rng.uniform(0, 6.283), r = std::sqrt(c.rng.uniform());
    const QPointF at = crown + QPointF(std::cos(angle) * r * 0.36 * height,
                                       std::sin(angle) * r * 0.27 * height - 0.05 * height);
    QColor colour = kLeaves[int(c.rng.uniform() * 5)];
    // Leaves away from the sun (left, low) fall into shade.
    const double light = 0.65 + 0.35 * std::clamp((at.x() - crown.x()) / (0.36 * height) * 0.5 +
                                                      0.5 - (at.y() - crown.y()) / height,
                                                  0.0, 1.0);
    colour = QColor::fromRgbF(float(colour.redF() * light), float(colour.greenF() * light),
                              float(colour.blueF() * light), 0.85f);
    c.painter.setBrush(colour);
    const double size = c.rng.uniform(0.018, 0.04) * height;
    c.painter.drawEllipse(at, size, size * 0.8);
  }
}

}  // namespace

void paintForeground(Canvas& c) {
  // A grassy bank across the bottom, higher on the left where the conifers stand.
  const int width = int(c.w);
  const std::vector<double> bumps = ridge(width, 0.025 * c.h, 0.6, c.rng);
  std::vector<double> bankY(std::size_t(width) + 1);
  for (int x = 0; x <= width; ++x) {
    const double u = double(x) / width;
    bankY[std::size_t(x)] = c.h * (0.80 + 0.12 * std::pow(u - 0.15, 2)) + bumps[std::size_t(x)];
  }
  QPainterPath bank(QPointF(0, c.h));
  for (int x = 0; x <= width; ++x)
    bank.lineTo(x, bankY[std::size_t(x)]);
  bank.lineTo(c.w, c.h);
  bank.closeSubpath();
  QLinearGradient soil(0, 0.78 * c.h, 0, c.h);
  soil.setColorAt(0, QColor(0x5d, 0x72, 0x2c));
  soil.setColorAt(0.4, QColor(0x37, 0x4a, 0x1d));
  soil.setColorAt(1, QColor(0x1b, 0x24, 0x0f));
  c.painter.setPen(Qt::NoPen);
  c.painter.setBrush(soil);
  c.painter.drawPath(bank);

  for (double x : {0.05, 0.12, 0.17, 0.23, 0.085, 0.29})
    paintConifer(c, QPointF(x * c.w, bankY[std::size_t(x * width)] + 0.02 * c.h),
                 c.rng.uniform(0.30, 0.48) * c.h);
  paintAutumnTree(c, QPointF(0.86 * c.w, bankY[std::size_t(0.86 * width)] + 0.03 * c.h),
                  0.34 * c.h);
  paintAutumnTree(c, QPointF(0.77 * c.w, bankY[std::size_t(0.77 * width)] + 0.03 * c.h),
                  0.24 * c.h);

  static const QColor kGrass[] = {QColor(0x6b, 0x8e, 0x23), QColor(0x8f, 0xa3, 0x4a),
                                  QColor(0xc2, 0xb0, 0x4e), QColor(0x4f, 0x6b, 0x2a),
                                  QColor(0x2f, 0x45, 0x1c)};
  for (int blade = 0; blade < 16000; ++blade) {
    const double x = c.rng.uniform(0, c.w);
    const double y =
        bankY[std::size_t(x)] + std::pow(c.rng.uniform(), 0.7) * (c.h - bankY[std::size_t(x)]);
    const double length = c.rng.uniform(5, 16) * (0.6 + (y - 0.8 * c.h) / (0.2 * c.h));
    c.painter.setPen(QPen(kGrass[int(c.rng.uniform() * 5)], c.rng.uniform(0.8, 1.8)));
    c.painter.drawLine(QPointF(x, y), QPointF(x + c.rng.normal() * 3, y - length));
  }
  static const QColor kFlowers[] = {QColor(0xb0, 0x5f, 0xa0), QColor(0xee, 0xe6, 0xf2),
                                    QColor(0xf0, 0xc0, 0x30)};
  c.painter.setPen(Qt::NoPen);
  for (int flower = 0; flower < 260; ++flower) {
    const double x = c.rng.uniform(0.3, 1.0) * c.w;
    const double y =
        bankY[std::size_t(x)] + c.rng.uniform(0.02, 1.0) * (c.h - bankY[std::size_t(x)]);
    c.painter.setBrush(kFlowers[int(c.rng.uniform() * 3)]);
    c.painter.drawEllipse(QPointF(x, y), 2.2, 2.2);
  }
}

}  // namespace kms::app::tools
