// The canvas the sample photo is painted on, and the helpers every part of the painting uses.
// Internal to kms-make-samples.
#pragma once

#include <QColor>
#include <QImage>
#include <QPainter>
#include <QPointF>

#include <cstdint>
#include <vector>

#include "core/random.h"

namespace kms::app::tools {

/// Everything is laid out in fractions of the picture so any size keeps the composition.
struct Canvas {
  QImage image;
  QPainter painter;
  Random rng;
  double w, h;
  double horizon;  ///< y of the lake's far shore
  QPointF sun;

  Canvas(QSize size, std::uint64_t seed)
      : image(size, QImage::Format_RGB32),
        rng(seed),
        w(size.width()),
        h(size.height()),
        horizon(0.61 * size.height()),
        sun(0.68 * size.width(), 0.515 * size.height()) {
    painter.begin(&image);
    painter.setRenderHint(QPainter::Antialiasing);
  }
};

/// Linear interpolation between two colours, t in [0, 1].
QColor mix(const QColor& a, const QColor& b, double t);

/// A ridge line by 1-D midpoint displacement: heights in [-amplitude, amplitude]-ish for
/// x = 0..width; `roughness` < 1 damps each finer octave.
std::vector<double> ridge(int width, double amplitude, double roughness, Random& rng);

}  // namespace kms::app::tools
