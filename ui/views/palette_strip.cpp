#include "views/palette_strip.h"

#include <QHelpEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include <algorithm>
#include <numeric>

#include "views/cluster_colours.h"

namespace kms::ui {
namespace {
constexpr int kLabelWidth = 96;
}

PaletteStrip::PaletteStrip(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("paletteStrip"));
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  setMouseTracking(true);
}

QSize PaletteStrip::sizeHint() const {
  return {600, 34};
}
QSize PaletteStrip::minimumSizeHint() const {
  return {200, 34};
}

void PaletteStrip::setClusters(const std::vector<QColor>& colours,
                               const std::vector<double>& shares, bool image) {
  colours_ = colours;
  shares_ = shares.size() == colours.size() ? shares : std::vector<double>{};
  image_ = image;
  layoutSegments();
  update();
}

void PaletteStrip::clear() {
  colours_.clear();
  shares_.clear();
  segments_.clear();
  update();
}

QRectF PaletteStrip::stripRect() const {
  return QRectF(kLabelWidth, 5, std::max(10, width() - kLabelWidth - 8), height() - 10);
}

void PaletteStrip::layoutSegments() {
  segments_.clear();
  const int k = int(colours_.size());
  if (k == 0) return;
  std::vector<int> order(static_cast<std::size_t>(k));
  std::iota(order.begin(), order.end(), 0);
  if (!shares_.empty())
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return shares_[std::size_t(a)] > shares_[std::size_t(b)];
    });
  // Every cluster keeps at least a sliver so tiny (or empty) clusters stay visible.
  const double total = stripRect().width();
  const double minimum = std::min(3.0, total / k);
  const double spread = total - minimum * k;
  double left = 0.0;
  for (int c : order) {
    const double share = shares_.empty() ? 1.0 / k : shares_[std::size_t(c)];
    const double w = minimum + spread * share;
    segments_.push_back({c, left, w});
    left += w;
  }
}

int PaletteStrip::clusterAt(int x) const {
  const QRectF strip = stripRect();
  for (const Segment& s : segments_)
    if (x >= strip.left() + s.left && x < strip.left() + s.left + s.width) return s.cluster;
  return -1;
}

void PaletteStrip::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing);
  const QRectF strip = stripRect();
  p.setPen(palette().color(QPalette::WindowText));
  QFont font = p.font();
  font.setBold(true);
  p.setFont(font);
  p.drawText(QRectF(8, 0, kLabelWidth - 12, height()), Qt::AlignVCenter | Qt::AlignLeft,
             image_ ? tr("Palette") : tr("Cluster sizes"));
  font.setBold(false);
  p.setFont(font);
  if (segments_.empty()) {
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(strip, Qt::AlignVCenter | Qt::AlignLeft, tr("No clusters yet"));
    return;
  }
  QPainterPath clip;
  clip.addRoundedRect(strip, 4, 4);
  p.save();
  p.setClipPath(clip);
  const QFontMetrics metrics(font);
  for (const Segment& s : segments_) {
    const QRectF r(strip.left() + s.left, strip.top(), s.width, strip.height());
    const QColor colour = colours_[std::size_t(s.cluster)];
    p.fillRect(r, colour);
    if (shares_.empty()) continue;
    const QString text = QStringLiteral("%1%").arg(shares_[std::size_t(s.cluster)] * 100.0, 0, 'f',
                                                   shares_[std::size_t(s.cluster)] < 0.1 ? 1 : 0);
    if (metrics.horizontalAdvance(text) + 6 < r.width()) {
      p.setPen(contrastingText(colour));
      p.drawText(r, Qt::AlignCenter, text);
    }
  }
  p.restore();
  p.setPen(QPen(palette().color(QPalette::Mid), 1));
  p.setBrush(Qt::NoBrush);
  p.drawRoundedRect(strip, 4, 4);
}

bool PaletteStrip::event(QEvent* event) {
  if (event->type() == QEvent::Resize) layoutSegments();
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const int c = clusterAt(help->pos().x());
    if (c < 0) {
      QToolTip::hideText();
      event->ignore();
      return true;
    }
    const QColor colour = colours_[std::size_t(c)];
    QString text = tr("Cluster %1").arg(c + 1);
    if (image_) text += QStringLiteral(" · ") + colour.name();
    if (!shares_.empty())
      text += tr(" · %1 % of the %2")
                  .arg(shares_[std::size_t(c)] * 100.0, 0, 'f', 2)
                  .arg(image_ ? tr("pixels") : tr("points"));
    QToolTip::showText(help->globalPos(), text, this);
    return true;
  }
  return QWidget::event(event);
}

}  // namespace kms::ui
