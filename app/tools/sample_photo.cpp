#include "tools/sample_photo.h"

#include <QLinearGradient>
#include <QPainter>
#include <QPainterPath>
#include <QRadialGradient>

#include <algorithm>
#include <cmath>
#include <vector>

#include "tools/photo_canvas.h"
#include "tools/photo_foreground.h"

namespace kms::app::tools {
namespace {

void paintSky(Canvas& c) {
  QLinearGradient sky(0, 0, 0, c.horizon);
  sky.setColorAt(0.00, QColor(0x1a, 0x26, 0x55));
  sky.setColorAt(0.30, QColor(0x36, 0x5f, 0xa8));
  sky.setColorAt(0.60, QColor(0x93, 0xae, 0xd4));
  sky.setColorAt(0.82, QColor(0xf0, 0xc4, 0xa0));
  sky.setColorAt(1.00, QColor(0xf6, 0x9a, 0x56));
  c.painter.fillRect(QRectF(0, 0, c.w, c.horizon + 2), sky);

  QRadialGradient glow(c.sun, 0.30 * c.w);
  glow.setColorAt(0.0, QColor(255, 236, 180, 220));
  glow.setColorAt(0.25, QColor(255, 200, 130, 110));
  glow.setColorAt(1.0, QColor(255, 170, 110, 0));
  c.painter.fillRect(QRectF(0, 0, c.w, c.horizon + 2), glow);

  QRadialGradient disc(c.sun, 0.028 * c.w);
  disc.setColorAt(0.0, QColor(255, 255, 245));
  disc.setColorAt(0.7, QColor(255, 246, 210));
  disc.setColorAt(1.0, QColor(255, 230, 170, 0));
  c.painter.setPen(Qt::NoPen);
  c.painter.setBrush(disc);
  c.painter.drawEllipse(c.sun, 0.028 * c.w, 0.028 * c.w);
}

void paintClouds(Canvas& c) {
  for (int cloud = 0; cloud < 7; ++cloud) {
    const QPointF centre(c.rng.uniform(-0.05, 1.05) * c.w, c.rng.uniform(0.08, 0.34) * c.h);
    const double length = c.rng.uniform(0.12, 0.30) * c.w;
    const double warmth =
        std::clamp(1.0 - std::abs(centre.x() - c.sun.x()) / (0.6 * c.w), 0.0, 1.0);
    for (int puff = 0; puff < 90; ++puff) {
      const QPointF at =
          centre + QPointF(c.rng.uniform(-0.5, 0.5) * length, c.rng.normal() * 0.012 * c.h);
      const double rx = c.rng.uniform(0.012, 0.05) * c.w, ry = rx * c.rng.uniform(0.25, 0.5);
      // Lit from below by the low sun: warm underside, cool lavender top.
      const QColor top = mix(QColor(0x7d, 0x83, 0xb0), QColor(0xc9, 0xa7, 0xc4), warmth);
      const QColor lit = mix(QColor(0xe8, 0xd8, 0xe0), QColor(0xff, 0xc8, 0x96), warmth);
      QLinearGradient shade(at - QPointF(0, ry), at + QPointF(0, ry));
      QColor topA = top, litA = lit;
      topA.setAlpha(40);
      litA.setAlpha(62);
      shade.setColorAt(0, topA);
      shade.setColorAt(1, litA);
      c.painter.setBrush(shade);
      c.painter.drawEllipse(at, rx, ry);
    }
  }
}

/// A peak of a mountain profile, in fractions of the picture.
struct Peak {
  double x, height, width;
};

/// Heights (pixels above the range's base) per x: pointed peaks, the highest wins, plus
/// midpoint-displacement detail so the crest looks like rock.
std::vector<double> profile(Canvas& c, std::initializer_list<Peak> peaks, double detail,
                            double roughness) {
  const int width = int(c.w);
  std::vector<double> heights = ridge(width, detail * c.h, roughness, c.rng);
  for (int x = 0; x <= width; ++x) {
    double envelope = 0.0;
    for (const Peak& p : peaks) {
      const double u = (double(x) / c.w - p.x) / p.width;
      envelope = std::max(envelope, p.height * c.h * std::exp(-std::pow(std::abs(u), 1.3)));
    }
    heights[std::size_t(x)] = std::max(0.0, envelope + heights[std::size_t(x)]);
  }
  return heights;
}

/// One mountain range: the profile above `base`, filled with a vertical gradient that turns
/// hazy towards its foot. Returns the crest's y per x.
std::vector<double> paintRange(Canvas& c, double base, const std::vector<double>& heights,
                               const QColor& top, const QColor& foot) {
  std::vector<double> crest(heights.size());
  QPainterPath path(QPointF(0, c.horizon + 2));
  for (std::size_t x = 0; x < heights.size(); ++x) {
    crest[x] = base - heights[x];
    path.lineTo(double(x), crest[x]);
  }
  path.lineTo(c.w, c.horizon + 2);
  path.closeSubpath();
  QLinearGradient fill(0, *std::min_element(crest.begin(), crest.end()), 0, c.horizon);
  fill.setColorAt(0, top);
  fill.setColorAt(1, foot);
  c.painter.setPen(Qt::NoPen);
  c.painter.setBrush(fill);
  c.painter.drawPath(path);
  return crest;
}

void paintSnow(Canvas& c, const std::vector<double>& ridgeY, double snowLine) {
  const std::vector<double> edge = ridge(int(c.w), 0.02 * c.h, 0.7, c.rng);
  for (int x = 0; x < int(c.w); ++x) {
    const double top = ridgeY[std::size_t(x)];
    const double bottom = std::min(snowLine + edge[std::size_t(x)], top + 0.05 * c.h);
    if (bottom <= top) continue;
    // Slopes facing the sun catch warm light.
    const double slope =
        ridgeY[std::size_t(std::min(x + 6, int(c.w)))] - ridgeY[std::size_t(std::max(x - 6, 0))];
    const bool lit = (slope > 0) == (x < c.sun.x());
    const QColor snow = lit ? QColor(0xff, 0xe6, 0xd2) : QColor(0xb8, 0xbd, 0xdc);
    QLinearGradient fade(0, top, 0, bottom);
    fade.setColorAt(0, snow);
    QColor end = snow;
    end.setAlpha(0);
    fade.setColorAt(1, end);
    c.painter.setPen(QPen(QBrush(fade), 1.2));
    c.painter.drawLine(QPointF(x, top), QPointF(x, bottom));
  }
}

/// Rock shading under a ridge: slopes that face the sun warm and light, the others in cool
/// shadow, fading out `depth` below the crest.
void paintSlopeLight(Canvas& c, const std::vector<double>& crest, double depth) {
  // The slope averaged over ±20 px, so shading follows the mountain's form, not each pixel.
  constexpr int kReach = 20;
  const int width = int(c.w);
  for (int x = 0; x < width; ++x) {
    const int a = std::max(0, x - kReach), b = std::min(width, x + kReach);
    const double slope = (crest[std::size_t(b)] - crest[std::size_t(a)]) / (b - a);
    const bool lit = (slope > 0) == (x < c.sun.x());
    QColor tone = lit ? QColor(0xff, 0xc8, 0xa8) : QColor(0x2a, 0x2c, 0x55);
    tone.setAlpha(int(std::min(1.0, 1.5 * std::abs(slope)) * (lit ? 80 : 100)));
    QColor end = tone;
    end.setAlpha(0);
    const double top = crest[std::size_t(x)];
    QLinearGradient fade(0, top, 0, top + depth);
    fade.setColorAt(0, tone);
    fade.setColorAt(1, end);
    c.painter.setPen(QPen(QBrush(fade), 1.2));
    c.painter.drawLine(QPointF(x, top + 1), QPointF(x, top + depth));
  }
}

void paintForestedShore(Canvas& c, const std::vector<double>& ridgeY) {
  c.painter.setPen(Qt::NoPen);
  for (double x = 0; x < c.w; x += c.rng.uniform(3, 7)) {
    const double y = ridgeY[std::size_t(x)];
    const double height = c.rng.uniform(0.012, 0.03) * c.h;
    const double half = height * c.rng.uniform(0.18, 0.3);
    c.painter.setBrush(mix(QColor(0x1f, 0x35, 0x30), QColor(0x35, 0x4d, 0x3c), c.rng.uniform()));
    c.painter.drawPolygon(
        QPolygonF({QPointF(x - half, y + 2), QPointF(x, y - height), QPointF(x + half, y + 2)}));
  }
}

void paintMountains(Canvas& c) {
  // The sun sets into the valley between the two highest massifs (its x is 0.68).
  const auto far = paintRange(
      c, 0.545 * c.h,
      profile(c, {{0.08, 0.13, 0.07}, {0.33, 0.19, 0.08}, {0.52, 0.12, 0.05}, {0.88, 0.17, 0.07}},
              0.035, 0.72),
      QColor(0x7d, 0x86, 0xb5), QColor(0xc9, 0xae, 0xb8));
  paintSlopeLight(c, far, 0.12 * c.h);
  paintSnow(c, far, *std::min_element(far.begin(), far.end()) + 0.06 * c.h);
  paintRange(c, 0.585 * c.h,
             profile(c, {{0.18, 0.06, 0.10}, {0.62, 0.045, 0.12}, {0.95, 0.07, 0.08}}, 0.025, 0.7),
             QColor(0x4f, 0x5c, 0x85), QColor(0x9a, 0x8f, 0xa5));
  const auto near = paintRange(c, 0.607 * c.h, profile(c, {{0.5, 0.01, 0.5}}, 0.012, 0.62),
                               QColor(0x27, 0x3e, 0x3b), QColor(0x3b, 0x52, 0x48));
  paintForestedShore(c, near);
  // Haze along the far shore, the colour of the sky near the horizon.
  QLinearGradient haze(0, c.horizon - 0.06 * c.h, 0, c.horizon);
  haze.setColorAt(0, QColor(0xf0, 0xc0, 0x9c, 0));
  haze.setColorAt(1, QColor(0xf0, 0xc0, 0x9c, 90));
  c.painter.fillRect(QRectF(0, c.horizon - 0.06 * c.h, c.w, 0.06 * c.h + 1), haze);
}

/// The lake: the scene above the shore mirrored, rippled, darkened towards the viewer, with a
/// path of sun glitter.
void paintLake(Canvas& c) {
  c.painter.end();
  const int top = int(c.horizon), height = int(c.h), width = int(c.w);
  const QImage above = c.image.copy();
  const QColor deep(0x14, 0x2c, 0x40);
  for (int y = top; y < height; ++y) {
    const double depth = double(y - top) / (height - top);
    const int source = std::clamp(2 * top - y - 1, 0, top - 1);
    const double wave = std::sin(y * 0.9 + c.rng.uniform(0, 0.6)) * (1.0 + 14.0 * depth);
    QRgb* row = reinterpret_cast<QRgb*>(c.image.scanLine(y));
    const QRgb* mirrored = reinterpret_cast<const QRgb*>(above.constScanLine(source));
    const double dim = 0.80 - 0.25 * depth;
    for (int x = 0; x < width; ++x) {
      const QRgb s = mirrored[std::clamp(int(x + wave), 0, width - 1)];
      const double t = 0.25 + 0.5 * depth;
      row[x] = qRgb(int((qRed(s) * dim) * (1 - t) + deep.red() * t),
                    int((qGreen(s) * dim) * (1 - t) + deep.green() * t),
                    int((qBlue(s) * dim) * (1 - t) + deep.blue() * t));
    }
  }
  c.painter.begin(&c.image);
  c.painter.setRenderHint(QPainter::Antialiasing);
  for (int i = 0; i < 1400; ++i) {
    const double depth = std::pow(c.rng.uniform(), 1.6);
    const double y = c.horizon + 2 + depth * (c.h - c.horizon);
    const double x = c.sun.x() + c.rng.normal() * (0.015 + 0.09 * depth) * c.w;
    const double length = c.rng.uniform(4, 18) * (0.4 + depth);
    QColor glint = mix(QColor(0xff, 0xf2, 0xc8), QColor(0xff, 0xb0, 0x60), c.rng.uniform());
    glint.setAlpha(int(200 * (1.0 - 0.6 * depth)));
    c.painter.setPen(QPen(glint, c.rng.uniform(1.0, 2.2)));
    c.painter.drawLine(QPointF(x - length / 2, y), QPointF(x + length / 2, y));
  }
}

/// Film grain (luminance noise) and a soft vignette, as a camera adds.
void finish(Canvas& c) {
  c.painter.end();
  const double cx = c.w / 2, cy = c.h / 2, reach = std::hypot(cx, cy);
  for (int y = 0; y < c.image.height(); ++y) {
    QRgb* row = reinterpret_cast<QRgb*>(c.image.scanLine(y));
    for (int x = 0; x < c.image.width(); ++x) {
      const double r = std::hypot(x - cx, y - cy) / reach;
      const double vignette = 1.0 - 0.28 * r * r;
      const double grain = c.rng.normal() * 2.2;
      const auto channel = [&](int v) {
        return std::clamp(int(std::lround(v * vignette + grain)), 0, 255);
      };
      row[x] = qRgb(channel(qRed(row[x])), channel(qGreen(row[x])), channel(qBlue(row[x])));
    }
  }
}

}  // namespace

QImage paintLandscape(QSize size, std::uint64_t seed) {
  Canvas canvas(size, seed);
  paintSky(canvas);
  paintClouds(canvas);
  paintMountains(canvas);
  paintLake(canvas);
  paintForeground(canvas);
  finish(canvas);
  return canvas.image;
}

}  // namespace kms::app::tools
