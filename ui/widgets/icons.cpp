#include "widgets/icons.h"

#include <QPainter>
#include <QPainterPath>
#include <QPixmap>

#include <array>
#include <cmath>

// A static library's resources are not registered by themselves (Q_INIT_RESOURCE must be called
// outside any namespace).
static void initStudioResources() {
  Q_INIT_RESOURCE(studio);
}

namespace kms::ui {
namespace {

const QColor kInk(0x37, 0x41, 0x51);
const QColor kAccent(0x25, 0x63, 0xeb);

void paintGlyph(QPainter& p, IconKind kind, double s, const QColor& ink) {
  p.setPen(QPen(ink, s * 0.09, Qt::SolidLine, Qt::RoundCap, Qt::RoundJoin));
  p.setBrush(Qt::NoBrush);
  switch (kind) {
    case IconKind::Open: {
      QPainterPath path;
      path.moveTo(s * 0.1, s * 0.25);
      path.lineTo(s * 0.4, s * 0.25);
      path.lineTo(s * 0.48, s * 0.35);
      path.lineTo(s * 0.9, s * 0.35);
      path.lineTo(s * 0.9, s * 0.8);
      path.lineTo(s * 0.1, s * 0.8);
      path.closeSubpath();
      p.drawPath(path);
      break;
    }
    case IconKind::Sample:
    case IconKind::Generate: {
      p.setPen(Qt::NoPen);
      const std::array<QPointF, 7> dots = {
          QPointF(0.25, 0.3),  QPointF(0.35, 0.22), QPointF(0.3, 0.4), QPointF(0.7, 0.65),
          QPointF(0.78, 0.75), QPointF(0.62, 0.78), QPointF(0.68, 0.3)};
      const std::array<QColor, 3> colours = {QColor(0x4e79a7), QColor(0xf28e2b), QColor(0x59a14f)};
      for (std::size_t i = 0; i < dots.size(); ++i) {
        p.setBrush(colours[i < 3 ? 0 : i < 6 ? 1 : 2]);
        p.drawEllipse(QPointF(dots[i].x() * s, dots[i].y() * s), s * 0.08, s * 0.08);
      }
      if (kind == IconKind::Generate) {
        p.setPen(QPen(ink, s * 0.07, Qt::SolidLine, Qt::RoundCap));
        p.drawLine(QPointF(s * 0.2, s * 0.72), QPointF(s * 0.2, s * 0.92));
        p.drawLine(QPointF(s * 0.1, s * 0.82), QPointF(s * 0.3, s * 0.82));
      }
      break;
    }
    case IconKind::Play: {
      QPainterPath path;
      path.moveTo(s * 0.3, s * 0.18);
      path.lineTo(s * 0.82, s * 0.5);
      path.lineTo(s * 0.3, s * 0.82);
      path.closeSubpath();
      p.setBrush(QColor(0x16, 0xa3, 0x4a));
      p.setPen(Qt::NoPen);
      p.drawPath(path);
      break;
    }
    case IconKind::Pause:
      p.setPen(Qt::NoPen);
      p.setBrush(QColor(0xd9, 0x77, 0x06));
      p.drawRoundedRect(QRectF(s * 0.25, s * 0.2, s * 0.17, s * 0.6), s * 0.04, s * 0.04);
      p.drawRoundedRect(QRectF(s * 0.58, s * 0.2, s * 0.17, s * 0.6), s * 0.04, s * 0.04);
      break;
    case IconKind::Step:
    case IconKind::StepBack: {  // Step back: the same icon, mirrored
      if (kind == IconKind::StepBack) {
        p.translate(s, 0);
        p.scale(-1, 1);
      }
      QPainterPath path;
      path.moveTo(s * 0.2, s * 0.2);
      path.lineTo(s * 0.62, s * 0.5);
      path.lineTo(s * 0.2, s * 0.8);
      path.closeSubpath();
      p.setPen(Qt::NoPen);
      p.setBrush(kAccent);
      p.drawPath(path);
      p.drawRoundedRect(QRectF(s * 0.66, s * 0.2, s * 0.13, s * 0.6), s * 0.03, s * 0.03);
      break;
    }
    case IconKind::Reset: {
      const QRectF arc(s * 0.2, s * 0.2, s * 0.6, s * 0.6);
      p.drawArc(arc, 100 * 16, 290 * 16);
      QPainterPath head;
      head.moveTo(s * 0.36, s * 0.08);
      head.lineTo(s * 0.52, s * 0.2);
      head.lineTo(s * 0.36, s * 0.33);
      p.drawPath(head);
      break;
    }
    case IconKind::Export: {
      p.drawLine(QPointF(s * 0.5, s * 0.12), QPointF(s * 0.5, s * 0.6));
      p.drawLine(QPointF(s * 0.32, s * 0.44), QPointF(s * 0.5, s * 0.62));
      p.drawLine(QPointF(s * 0.68, s * 0.44), QPointF(s * 0.5, s * 0.62));
      QPainterPath tray;
      tray.moveTo(s * 0.15, s * 0.62);
      tray.lineTo(s * 0.15, s * 0.86);
      tray.lineTo(s * 0.85, s * 0.86);
      tray.lineTo(s * 0.85, s * 0.62);
      p.drawPath(tray);
      break;
    }
    case IconKind::Fit:
      p.drawRect(QRectF(s * 0.28, s * 0.28, s * 0.44, s * 0.44));
      for (const auto& [x, y, dx, dy] : std::array<std::array<double, 4>, 4>{
               {{0.1, 0.1, 1, 1}, {0.9, 0.1, -1, 1}, {0.1, 0.9, 1, -1}, {0.9, 0.9, -1, -1}}}) {
        p.drawLine(QPointF(x * s, y * s), QPointF((x + dx * 0.12) * s, y * s));
        p.drawLine(QPointF(x * s, y * s), QPointF(x * s, (y + dy * 0.12) * s));
      }
      break;
    case IconKind::ActualSize: {
      QFont font = p.font();
      font.setPixelSize(int(s * 0.42));
      font.setBold(true);
      p.setFont(font);
      p.setPen(ink);
      p.drawText(QRectF(0, 0, s, s), Qt::AlignCenter, QStringLiteral("1:1"));
      break;
    }
    case IconKind::App:
      break;
  }
}

/// Three clusters of dots with their centroids: the application icon.
void paintAppIcon(QPainter& p, double s) {
  p.setPen(Qt::NoPen);
  QLinearGradient bg(0, 0, 0, s);
  bg.setColorAt(0, QColor(0x1e, 0x29, 0x3b));
  bg.setColorAt(1, QColor(0x0f, 0x17, 0x2a));
  p.setBrush(bg);
  p.drawRoundedRect(QRectF(s * 0.04, s * 0.04, s * 0.92, s * 0.92), s * 0.2, s * 0.2);
  const std::array<QColor, 3> colours = {QColor(0x4e79a7).lighter(130), QColor(0xf28e2b),
                                         QColor(0x59a14f).lighter(120)};
  const std::array<QPointF, 3> centres = {QPointF(0.3, 0.32), QPointF(0.7, 0.4),
                                          QPointF(0.44, 0.7)};
  for (int c = 0; c < 3; ++c) {
    p.setBrush(colours[std::size_t(c)]);
    for (int i = 0; i < 9; ++i) {
      const double a = i * 2.39996 + c;  // golden angle: evenly scattered around the centroid
      const double r = 0.085 + 0.035 * (i % 3);
      p.drawEllipse(QPointF((centres[std::size_t(c)].x() + r * std::cos(a)) * s,
                            (centres[std::size_t(c)].y() + r * std::sin(a)) * s),
                    s * 0.026, s * 0.026);
    }
  }
  for (int c = 0; c < 3; ++c) {
    p.setBrush(colours[std::size_t(c)]);
    p.setPen(QPen(Qt::white, s * 0.025));
    p.drawEllipse(centres[std::size_t(c)] * s, s * 0.055, s * 0.055);
    p.setPen(Qt::NoPen);
  }
}

QPixmap render(IconKind kind, int size, const QColor& ink) {
  QPixmap pixmap(size, size);
  pixmap.fill(Qt::transparent);
  QPainter p(&pixmap);
  p.setRenderHint(QPainter::Antialiasing);
  if (kind == IconKind::App)
    paintAppIcon(p, size);
  else
    paintGlyph(p, kind, size, ink);
  return pixmap;
}

}  // namespace

QIcon icon(IconKind kind) {
  QIcon result;
  if (kind == IconKind::App) {
    // The shipped PNGs (also what the desktop file uses), painted ones as a fallback.
    static const bool registered = (initStudioResources(), true);
    Q_UNUSED(registered);
    for (const int size : {16, 32, 48, 64, 128, 256})
      result.addFile(QStringLiteral(":/icons/kmeans-studio-%1.png").arg(size), QSize(size, size));
    if (!result.isNull() && !result.availableSizes().isEmpty()) return result;
  }
  for (const int size : {16, 22, 24, 32, 48, 64, 128, 256}) {
    if (kind != IconKind::App && size > 64) break;
    result.addPixmap(render(kind, size, kInk), QIcon::Normal);  // Qt derives the disabled look
  }
  return result;
}

}  // namespace kms::ui
