#include "views/image_compare_view.h"

#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>

namespace kms::ui {
namespace {
constexpr double kGap = 6.0;  // between side-by-side panes
constexpr double kMinZoom = 1.0 / 64.0;
constexpr double kMaxZoom = 64.0;
constexpr double kSmoothPixels = 4.0e6;  // above this many visible pixels, draw without filtering
}  // namespace

ImageCompareView::ImageCompareView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("imageCompareView"));
  setMouseTracking(true);
  setFocusPolicy(Qt::ClickFocus);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
  setToolTip(tr("Drag the white line to compare; wheel to zoom, drag to pan, double-click to fit"));
}

void ImageCompareView::setOriginal(const QImage& image) {
  original_ = image;
  quantised_ = {};
  dithered_ = {};
  k_ = 0;
  centre_ = QPointF(image.width() / 2.0, image.height() / 2.0);
  fitToView();
}

void ImageCompareView::setQuantised(const QImage& image, int k) {
  quantised_ = image;
  k_ = k;
  ++updates_;
  update();
}

void ImageCompareView::setDithered(const QImage& image, const QString& method) {
  dithered_ = image;
  ditherMethod_ = method;
  update();
}

void ImageCompareView::clear() {
  original_ = {};
  quantised_ = {};
  dithered_ = {};
  update();
}

void ImageCompareView::setMode(Mode mode) {
  if (mode == mode_) return;
  mode_ = mode;
  if (fit_) fitToView();
  update();
  emit modeChanged(mode);
}

void ImageCompareView::setSplit(double fraction) {
  split_ = std::clamp(fraction, 0.0, 1.0);
  update();
}

QList<QRectF> ImageCompareView::panes() const {
  const QRectF all = QRectF(rect()).adjusted(1, 1, -1, -1);
  if (mode_ != Mode::SideBySide) return {all};
  const double w = (all.width() - kGap) / 2.0;
  return {QRectF(all.left(), all.top(), w, all.height()),
          QRectF(all.left() + w + kGap, all.top(), w, all.height())};
}

double ImageCompareView::fitZoom() const {
  if (original_.isNull()) return 1.0;
  const QRectF pane = panes().first();
  return std::clamp(std::min(pane.width() / original_.width(), pane.height() / original_.height()),
                    kMinZoom, kMaxZoom);
}

void ImageCompareView::fitToView() {
  fit_ = true;
  zoom_ = fitZoom();
  centre_ = QPointF(original_.width() / 2.0, original_.height() / 2.0);
  update();
  emit zoomChanged(zoom_);
}

void ImageCompareView::setZoom(double zoom) {
  fit_ = false;
  zoom_ = std::clamp(zoom, kMinZoom, kMaxZoom);
  update();
  emit zoomChanged(zoom_);
}

QRectF ImageCompareView::imageRect(const QRectF& pane) const {
  const QSizeF size(original_.width() * zoom_, original_.height() * zoom_);
  const QPointF topLeft = pane.center() - centre_ * zoom_;
  return QRectF(topLeft, size);
}

double ImageCompareView::splitX() const {
  const QRectF r = imageRect(panes().first());
  return r.left() + split_ * r.width();
}

bool ImageCompareView::nearSplit(const QPointF& pos) const {
  return mode_ == Mode::Split && !original_.isNull() && std::abs(pos.x() - splitX()) < 8.0;
}

void ImageCompareView::resizeEvent(QResizeEvent*) {
  if (fit_) {
    zoom_ = fitZoom();
    emit zoomChanged(zoom_);
  }
}

void ImageCompareView::drawPicture(QPainter& p, const QImage& image, const QRectF& pane,
                                   const QRectF& clip) {
  const QRectF target = imageRect(pane).intersected(clip);
  if (target.isEmpty() || image.isNull()) return;
  // Map the visible target back to picture pixels so only those are drawn (zoomed-in views of a
  // large picture stay fast).
  const QRectF whole = imageRect(pane);
  const QRectF source((target.left() - whole.left()) / zoom_, (target.top() - whole.top()) / zoom_,
                      target.width() / zoom_, target.height() / zoom_);
  p.setRenderHint(QPainter::SmoothPixmapTransform,
                  zoom_ < 1.0 && source.width() * source.height() < kSmoothPixels);
  p.drawImage(target, image, source);
}

void ImageCompareView::drawLabel(QPainter& p, const QRectF& pane, const QString& text,
                                 Qt::Alignment corner) {
  const QFontMetrics metrics(p.font());
  const QSizeF size(metrics.horizontalAdvance(text) + 16, metrics.height() + 8);
  const double x = corner & Qt::AlignRight ? pane.right() - size.width() - 10 : pane.left() + 10;
  const QRectF box(QPointF(x, pane.top() + 10), size);
  p.setPen(Qt::NoPen);
  p.setBrush(QColor(15, 23, 42, 170));
  p.drawRoundedRect(box, 5, 5);
  p.setPen(Qt::white);
  p.drawText(box, Qt::AlignCenter, text);
}

void ImageCompareView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), QColor(0x2b, 0x2f, 0x36));
  if (original_.isNull()) {
    p.setPen(QColor(0xc8, 0xcc, 0xd2));
    p.drawText(rect(), Qt::AlignCenter, tr("Open a picture to quantise its colours"));
    return;
  }
  const QString quantisedName =
      quantised_.isNull() ? tr("Quantised: press Play or Step") : tr("Quantised, k = %1").arg(k_);
  const QImage& right = quantised_.isNull() ? original_ : quantised_;
  const QList<QRectF> areas = panes();
  switch (mode_) {
    case Mode::Original:
      drawPicture(p, original_, areas[0], areas[0]);
      drawLabel(p, areas[0], tr("Original"), Qt::AlignLeft);
      break;
    case Mode::Quantised:
      drawPicture(p, right, areas[0], areas[0]);
      drawLabel(p, areas[0], quantisedName, Qt::AlignLeft);
      break;
    case Mode::Dithered: {
      const bool ready = !dithered_.isNull() && !quantised_.isNull();
      drawPicture(p, ready ? dithered_ : right, areas[0], areas[0]);
      drawLabel(p, areas[0],
                quantised_.isNull() ? quantisedName
                : ready             ? tr("Dithered (%1), k = %2").arg(ditherMethod_).arg(k_)
                                    : tr("Dithering (%1)…").arg(ditherMethod_),
                Qt::AlignLeft);
      break;
    }
    case Mode::SideBySide:
      drawPicture(p, original_, areas[0], areas[0]);
      drawPicture(p, right, areas[1], areas[1]);
      drawLabel(p, areas[0], tr("Original"), Qt::AlignLeft);
      drawLabel(p, areas[1], quantisedName, Qt::AlignLeft);
      break;
    case Mode::Split: {
      const QRectF pane = areas[0];
      const double x = std::clamp(splitX(), pane.left(), pane.right());
      drawPicture(p, original_, pane,
                  QRectF(pane.left(), pane.top(), x - pane.left(), pane.height()));
      drawPicture(p, right, pane, QRectF(x, pane.top(), pane.right() - x, pane.height()));
      const QRectF picture = imageRect(pane).intersected(pane);
      p.setRenderHint(QPainter::Antialiasing);
      p.setPen(QPen(Qt::white, 2));
      p.drawLine(QPointF(x, picture.top()), QPointF(x, picture.bottom()));
      // A round grip in the middle of the line says "drag me".
      p.setBrush(Qt::white);
      p.setPen(QPen(QColor(0, 0, 0, 90), 1));
      const QPointF grip(x, picture.center().y());
      p.drawEllipse(grip, 11, 11);
      p.setPen(QPen(QColor(0x37, 0x41, 0x51), 2));
      p.drawLine(grip + QPointF(-5, 0), grip + QPointF(-2, -3));
      p.drawLine(grip + QPointF(-5, 0), grip + QPointF(-2, 3));
      p.drawLine(grip + QPointF(5, 0), grip + QPointF(2, -3));
      p.drawLine(grip + QPointF(5, 0), grip + QPointF(2, 3));
      drawLabel(p, pane, tr("Original"), Qt::AlignLeft);
      drawLabel(p, pane, quantisedName, Qt::AlignRight);
      break;
    }
  }
}

void ImageCompareView::wheelEvent(QWheelEvent* event) {
  if (original_.isNull()) return;
  const double factor = std::pow(1.0015, event->angleDelta().y());
  const double newZoom = std::clamp(zoom_ * factor, kMinZoom, kMaxZoom);
  // Keep the picture point under the cursor where it is.
  QRectF pane = panes().first();
  for (const QRectF& r : panes())
    if (r.contains(event->position())) pane = r;
  const QPointF offset = event->position() - pane.center();
  const QPointF pointUnderCursor = centre_ + offset / zoom_;
  centre_ = pointUnderCursor - offset / newZoom;
  setZoom(newZoom);
  event->accept();
}

void ImageCompareView::mousePressEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton || original_.isNull()) return;
  drag_ = nearSplit(event->position()) ? Drag::Split : Drag::Pan;
  dragStart_ = event->position();
  centreAtDragStart_ = centre_;
  setCursor(drag_ == Drag::Split ? Qt::SplitHCursor : Qt::ClosedHandCursor);
}

void ImageCompareView::mouseMoveEvent(QMouseEvent* event) {
  if (drag_ == Drag::Split) {
    const QRectF r = imageRect(panes().first());
    setSplit((event->position().x() - r.left()) / std::max(1.0, r.width()));
  } else if (drag_ == Drag::Pan) {
    fit_ = false;
    centre_ = centreAtDragStart_ - (event->position() - dragStart_) / zoom_;
    update();
  } else {
    setCursor(nearSplit(event->position()) ? Qt::SplitHCursor : Qt::OpenHandCursor);
  }
}

void ImageCompareView::mouseReleaseEvent(QMouseEvent* event) {
  drag_ = Drag::None;
  setCursor(nearSplit(event->position()) ? Qt::SplitHCursor : Qt::OpenHandCursor);
}

void ImageCompareView::mouseDoubleClickEvent(QMouseEvent*) {
  fitToView();
}

}  // namespace kms::ui
