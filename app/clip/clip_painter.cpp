#include "clip/clip_painter.h"

#include <QFont>
#include <QLocale>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/format.h"
#include "io/export.h"
#include "render/cluster_style.h"

namespace kms::app::clip {
namespace {

constexpr std::size_t kMaxDrawnPoints = 40000;  // as the window's scatter
const QColor kBackground(0xff, 0xff, 0xff);
const QColor kInk(0x20, 0x22, 0x25);
const QColor kFaint(0x9a, 0xa0, 0xa6);

QString number(double value) {
  const QLocale english(QLocale::English);
  const double magnitude = std::fabs(value);
  const int decimals = magnitude >= 1000 ? 0 : magnitude >= 10 ? 1 : magnitude >= 0.1 ? 3 : 5;
  if (magnitude != 0 && (magnitude < 1e-4 || magnitude >= 1e12))
    return QString::number(value, 'g', 4);
  return english.toString(value, 'f', decimals);
}

/// A small antialiased disc of `colour`, drawn once and then blitted for every point.
QImage disc(const QColor& colour, double radius) {
  const int side = int(std::ceil(radius * 2 + 2));
  QImage image(side, side, QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::transparent);
  QPainter p(&image);
  p.setRenderHint(QPainter::Antialiasing);
  p.setPen(Qt::NoPen);
  p.setBrush(colour);
  p.drawEllipse(QPointF(side / 2.0, side / 2.0), radius, radius);
  return image;
}

}  // namespace

ClipPainter::ClipPainter(const ClipRun& run, QSize size) : run_(run), size_(size) {
  if (size.width() < 240 || size.height() < 180)
    throw std::invalid_argument("ClipPainter: frames need at least 240 × 180 pixels");
  const Dataset& data = *run.input().dataset();
  picture_ = data.isImage();
  d_ = data.d;
  if (picture_) return;

  principal_ = d_ > 3 && d_ <= kMaxPrincipalDims;
  if (principal_) {
    pcs_ = principalComponents(data, 2);
    xName_ = pcs_.axisName(0);
    yName_ = pcs_.axisName(1);
  } else {
    xName_ = data.dimensionNames.value(0, QStringLiteral("x"));
    yName_ = d_ > 1 ? data.dimensionNames.value(1, QStringLiteral("y")) : QString();
  }
  regions_ = d_ <= 2;
  // Every n-th row when the cloud is large: a regular thinning, the same in every frame.
  const std::size_t step =
      std::max<std::size_t>(1, (data.n + kMaxDrawnPoints - 1) / kMaxDrawnPoints);
  for (std::size_t r = 0; r < data.n; r += step)
    drawn_.push_back(r);
  drawnAt_.reserve(drawn_.size());
  double x0 = std::numeric_limits<double>::max(), x1 = std::numeric_limits<double>::lowest();
  double y0 = x0, y1 = x1;
  const auto extend = [&](QPointF q) {
    x0 = std::min(x0, q.x());
    x1 = std::max(x1, q.x());
    y0 = std::min(y0, q.y());
    y1 = std::max(y1, q.y());
  };
  for (std::size_t r : drawn_) {
    drawnAt_.push_back(plotted(&data.values[r * std::size_t(d_)]));
    extend(drawnAt_.back());
  }
  paths_.assign(std::size_t(run.k()), {});
  for (int t = 0; t <= run.iterations(); ++t) {
    const std::vector<float> c = run.centroidsAfter(t);
    for (int j = 0; j < run.k(); ++j) {
      paths_[std::size_t(j)].push_back(plotted(&c[std::size_t(j) * std::size_t(d_)]));
      extend(paths_[std::size_t(j)].back());
    }
  }
  const double w = std::max(x1 - x0, 1e-9), h = std::max(y1 - y0, 1e-9);
  range_ = QRectF(x0 - 0.04 * w, y0 - 0.04 * h, w * 1.08, h * 1.08);
}

QPointF ClipPainter::plotted(const float* v) const {
  if (principal_) {
    float s[2];
    pcs_.project(v, s);
    return {s[0], s[1]};
  }
  return {v[0], d_ > 1 ? v[1] : 0.0};
}

QString ClipPainter::caption(const ClipFrame& f) const {
  const QString noun = picture_ ? QStringLiteral("colour") : QStringLiteral("point");
  if (f.phase == ClipPhase::Start)
    return QStringLiteral("Start: %1 centroids seeded (%2) · %3 iterations follow")
        .arg(run_.k())
        .arg(QString::fromUtf8(kms::toString(run_.config().init).data(),
                               qsizetype(kms::toString(run_.config().init).size())))
        .arg(run_.iterations());
  QString move;
  switch (f.phase) {
    case ClipPhase::Assign:
      move = QStringLiteral(" · assign: each %1 to its nearest centroid").arg(noun);
      break;
    case ClipPhase::Update:
      move = QStringLiteral(" · update: each centroid to its %1s' mean").arg(noun);
      break;
    default:
      break;
  }
  QString text = QStringLiteral("Iteration %1 of %2%3 · inertia %4 · %5 %6%7 changed")
                     .arg(f.iteration)
                     .arg(run_.iterations())
                     .arg(move)
                     .arg(number(f.stats.inertia))
                     .arg(groupedCount(std::size_t(f.stats.changed)))
                     .arg(noun)
                     .arg(f.stats.changed == 1 ? QString() : QStringLiteral("s"));
  if (f.iteration == run_.iterations() && f.phase != ClipPhase::Assign)
    text += f.stats.converged ? QStringLiteral(" · converged") : QStringLiteral(" · stopped");
  return text;
}

QImage ClipPainter::paint(const ClipFrame& frame, int frameCount) const {
  (void)frameCount;
  QImage image(size_, QImage::Format_ARGB32_Premultiplied);
  image.fill(kBackground);
  QPainter p(&image);
  p.setRenderHint(QPainter::Antialiasing);
  p.setRenderHint(QPainter::TextAntialiasing);
  const double unit = size_.height() / 600.0;  // sizes are for 600 pixels high, scaled
  QFont font = p.font();
  font.setPixelSize(std::max(10, int(std::lround(14 * unit))));
  p.setFont(font);

  const double captionHeight = std::ceil(34 * unit);
  const double chartWidth = std::round(size_.width() * 0.3);
  const QRectF main(0, 0, size_.width() - chartWidth, size_.height() - captionHeight);
  const QRectF chart(main.right(), 0, chartWidth, main.height());
  if (picture_)
    paintPicture(p, main.adjusted(8 * unit, 8 * unit, -4 * unit, -4 * unit), frame);
  else
    paintPoints(p, main.adjusted(8 * unit, 8 * unit, -4 * unit, -4 * unit), frame);
  paintChart(p, chart.adjusted(8 * unit, 8 * unit, -10 * unit, -4 * unit), frame);

  const QRectF captionArea(0, size_.height() - captionHeight, size_.width(), captionHeight);
  p.fillRect(captionArea, QColor(0xf1, 0xf3, 0xf4));
  p.setPen(kInk);
  p.drawText(captionArea.adjusted(10 * unit, 0, -10 * unit, 0), Qt::AlignVCenter | Qt::AlignLeft,
             p.fontMetrics().elidedText(caption(frame), Qt::ElideRight,
                                        int(captionArea.width() - 20 * unit)));
  return image;
}

void ClipPainter::paintPoints(QPainter& p, const QRectF& area, const ClipFrame& f) const {
  const double unit = size_.height() / 600.0;
  // Equal aspect: k-means measures plain Euclidean distance, so the plot keeps its geometry.
  const QRectF inner = area.adjusted(22 * unit, 0, 0, -22 * unit);  // room for the axes' names
  const double scale = std::min(inner.width() / range_.width(), inner.height() / range_.height());
  const QSizeF drawn(range_.width() * scale, range_.height() * scale);
  const QRectF plot(inner.center().x() - drawn.width() / 2, inner.center().y() - drawn.height() / 2,
                    drawn.width(), drawn.height());
  const auto screen = [&](QPointF q) {
    return QPointF(plot.left() + (q.x() - range_.left()) * scale,
                   plot.bottom() - (q.y() - range_.top()) * scale);
  };
  const int k = run_.k();
  std::vector<QColor> colours(static_cast<std::size_t>(k));
  for (int j = 0; j < k; ++j)
    colours[std::size_t(j)] = categoricalColour(j);
  std::vector<QPointF> centres(static_cast<std::size_t>(k));
  for (int j = 0; j < k; ++j)
    centres[std::size_t(j)] = plotted(&f.centroids[std::size_t(j) * std::size_t(d_)]);

  if (regions_) {
    const QSize cells(std::max(1, int(plot.width() / 2)), std::max(1, int(plot.height() / 2)));
    const QImage regions = voronoiRegions(centres, colours, range_, cells);
    p.drawImage(plot, regions);
  }
  p.setPen(QPen(QColor(0xda, 0xdc, 0xe0), 1));
  p.setBrush(Qt::NoBrush);
  p.drawRect(plot);
  p.setPen(kFaint);
  p.drawText(QRectF(plot.left(), plot.bottom() + 2 * unit, plot.width(), 20 * unit),
             Qt::AlignHCenter | Qt::AlignTop, xName_);
  if (!yName_.isEmpty()) {
    p.save();
    p.translate(plot.left() - 4 * unit, plot.center().y());
    p.rotate(-90);
    p.drawText(QRectF(-plot.height() / 2, -20 * unit, plot.height(), 20 * unit),
               Qt::AlignHCenter | Qt::AlignBottom, yName_);
    p.restore();
  }

  const double radius =
      std::clamp(2.6 * unit * std::sqrt(5000.0 / double(std::max<std::size_t>(drawn_.size(), 1))),
                 0.9 * unit, 3.2 * unit);
  std::vector<QImage> sprites;
  for (int j = 0; j < k; ++j)
    sprites.push_back(disc(colours[std::size_t(j)], radius));
  const QImage unlabelled = disc(kFaint, radius);
  const double half = sprites.empty() ? 0 : unlabelled.width() / 2.0;
  for (std::size_t i = 0; i < drawn_.size(); ++i) {
    const std::int32_t label = f.labels.empty() ? -1 : f.labels[drawn_[i]];
    const QImage& sprite = label >= 0 && label < k ? sprites[std::size_t(label)] : unlabelled;
    const QPointF at = screen(drawnAt_[i]);
    p.drawImage(QPointF(std::round(at.x() - half), std::round(at.y() - half)), sprite);
  }

  // Trails: where each centroid has been up to this frame.
  const int upTo = f.phase == ClipPhase::Assign ? f.iteration - 1 : f.iteration;
  for (int j = 0; j < k; ++j) {
    QPainterPath path;
    const auto& trail = paths_[std::size_t(j)];
    for (int t = 0; t <= upTo && t < int(trail.size()); ++t) {
      if (t == 0)
        path.moveTo(screen(trail[0]));
      else
        path.lineTo(screen(trail[std::size_t(t)]));
    }
    p.setPen(QPen(colours[std::size_t(j)].darker(160), 1.6 * unit));
    p.setBrush(Qt::NoBrush);
    p.drawPath(path);
  }
  // The update's arrows: from where each centroid was to the mean of its points.
  if (f.phase == ClipPhase::Update && f.movedFrom.size() == f.centroids.size()) {
    for (int j = 0; j < k; ++j) {
      const QPointF from = screen(plotted(&f.movedFrom[std::size_t(j) * std::size_t(d_)]));
      const QPointF to = screen(centres[std::size_t(j)]);
      p.setPen(QPen(kInk, 1.8 * unit));
      p.drawLine(from, to);
    }
  }
  // Centroids: the cluster's colour in a white ring with a dark edge, so they stand out from
  // their own points.
  const double big = 7.0 * unit;
  for (int j = 0; j < k; ++j) {
    const QPointF at = screen(centres[std::size_t(j)]);
    p.setPen(Qt::NoPen);
    p.setBrush(kInk);
    p.drawEllipse(at, big + 3.2 * unit, big + 3.2 * unit);
    p.setBrush(Qt::white);
    p.drawEllipse(at, big + 2.0 * unit, big + 2.0 * unit);
    p.setBrush(colours[std::size_t(j)]);
    p.drawEllipse(at, big, big);
  }
}

void ClipPainter::paintPicture(QPainter& p, const QRectF& area, const ClipFrame& f) const {
  const double unit = size_.height() / 600.0;
  const Dataset& data = *run_.input().dataset();
  const int k = run_.k();
  const std::vector<QRgb> palette = paletteOf(f.centroids, data.d);
  const double stripHeight = k <= 64 ? 22 * unit : 0;
  const QRectF room = area.adjusted(0, 0, 0, -(stripHeight + (stripHeight > 0 ? 6 * unit : 0)));
  QImage picture;
  if (f.labels.empty()) {
    picture = QImage(data.width, data.height, QImage::Format_RGB32);  // the start: the original
    picture.fill(kFaint);
    std::vector<std::int32_t> own(data.n);
    // No labels yet: show the original picture (every row its own colour).
    std::vector<QRgb> colours(data.n);
    for (std::size_t r = 0; r < data.n; ++r)
      colours[r] = centroidColour(&data.values[r * std::size_t(data.d)], data.d);
    for (std::size_t r = 0; r < data.n; ++r)
      own[r] = std::int32_t(r);
    if (data.n <= std::size_t(std::numeric_limits<std::int32_t>::max()))
      picture = quantizedImage(data, colours, own);
  } else {
    picture = quantizedImage(data, palette, f.labels);
  }
  const QSizeF fitted = QSizeF(picture.size()).scaled(room.size(), Qt::KeepAspectRatio);
  const double block = fitted.height() + (stripHeight > 0 ? stripHeight + 6 * unit : 0);
  const QRectF target(room.center().x() - fitted.width() / 2,
                      area.top() + (area.height() - block) / 2, fitted.width(), fitted.height());
  p.setRenderHint(QPainter::SmoothPixmapTransform);
  p.drawImage(target, picture);
  if (stripHeight > 0) {
    const double w = target.width() / k;
    for (int j = 0; j < k; ++j)
      p.fillRect(
          QRectF(target.left() + j * w, target.bottom() + 6 * unit, std::ceil(w), stripHeight),
          QColor(palette[std::size_t(j)]));
  }
}

void ClipPainter::paintChart(QPainter& p, const QRectF& area, const ClipFrame& f) const {
  const double unit = size_.height() / 600.0;
  const auto& stats = run_.stats();
  p.setPen(kInk);
  const QRectF title(area.left(), area.top(), area.width(), 22 * unit);
  p.drawText(title, Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("Inertia"));
  const QRectF plot = area.adjusted(4 * unit, 30 * unit, -2 * unit, -26 * unit);
  p.setPen(QPen(QColor(0xda, 0xdc, 0xe0), 1));
  p.setBrush(Qt::NoBrush);
  p.drawRect(plot);
  if (stats.empty()) return;
  double lo = std::numeric_limits<double>::max(), hi = 0;
  for (const auto& s : stats) {
    lo = std::min(lo, s.inertia);
    hi = std::max(hi, s.inertia);
  }
  // A logarithmic axis when the inertia falls by more than ten times: the first iterations
  // would otherwise flatten the rest.
  const bool logarithmic = lo > 0 && hi / lo > 10;
  const auto yOf = [&](double v) {
    double t = 0.5;
    if (hi > lo)
      t = logarithmic ? (std::log(v) - std::log(lo)) / (std::log(hi) - std::log(lo))
                      : (v - lo) / (hi - lo);
    return plot.bottom() - 8 * unit - t * (plot.height() - 16 * unit);
  };
  const int T = int(stats.size());
  const auto xOf = [&](int iteration) {
    return T <= 1 ? plot.center().x()
                  : plot.left() + 8 * unit + (iteration - 1) * (plot.width() - 16 * unit) / (T - 1);
  };
  p.setPen(kFaint);
  p.drawText(QRectF(plot.left(), plot.bottom() + 2 * unit, plot.width(), 20 * unit),
             Qt::AlignHCenter | Qt::AlignTop, QStringLiteral("iteration (of %1)").arg(T));
  // The axis's range beside the title, clear of the line.
  QFont small = p.font();
  small.setPixelSize(std::max(9, int(std::lround(12 * unit))));
  p.save();
  p.setFont(small);
  p.drawText(title, Qt::AlignRight | Qt::AlignVCenter,
             QStringLiteral("%1 to %2%3")
                 .arg(number(lo), number(hi), logarithmic ? QStringLiteral(", log") : QString()));
  p.restore();
  const int upTo = f.phase == ClipPhase::Start ? 0 : f.iteration;
  QPainterPath line;
  for (int t = 1; t <= upTo; ++t) {
    const QPointF at(xOf(t), yOf(stats[std::size_t(t - 1)].inertia));
    if (t == 1)
      line.moveTo(at);
    else
      line.lineTo(at);
  }
  p.setPen(QPen(QColor(0x4e, 0x79, 0xa7), 2.2 * unit));
  p.drawPath(line);
  if (upTo >= 1) {
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(0xe1, 0x57, 0x59));
    p.drawEllipse(QPointF(xOf(upTo), yOf(stats[std::size_t(upTo - 1)].inertia)), 4.5 * unit,
                  4.5 * unit);
  }
}

}  // namespace kms::app::clip
