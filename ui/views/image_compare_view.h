// The original picture and its quantised version, compared either with a draggable split line
// (original left of it, quantised right) or side by side; both panes share one zoom and pan.
// Wheel zooms about the cursor, dragging pans, double-click fits the picture to the view.
#pragma once

#include <QImage>
#include <QWidget>

namespace kms::ui {

class ImageCompareView : public QWidget {
  Q_OBJECT

 public:
  enum class Mode { Split, SideBySide, Original, Quantised, Dithered };
  Q_ENUM(Mode)

  explicit ImageCompareView(QWidget* parent = nullptr);

  void setOriginal(const QImage& image);  // a new picture: fits it to the view
  void setQuantised(const QImage& image, int k);
  /// The dithered picture Mode::Dithered shows, named by `method` ("Floyd–Steinberg"); a null
  /// image while it is being computed (the quantised picture stands in, marked so).
  void setDithered(const QImage& image, const QString& method);
  void clear();

  void setMode(Mode mode);
  Mode mode() const { return mode_; }
  /// Split line position across the picture, 0 (all quantised) … 1 (all original).
  void setSplit(double fraction);
  double split() const { return split_; }

  void fitToView();
  void setZoom(double zoom);  // 1 = one image pixel per screen pixel; keeps the centre
  double zoom() const { return zoom_; }
  bool fitting() const { return fit_; }

  const QImage& original() const { return original_; }
  const QImage& quantised() const { return quantised_; }
  const QImage& dithered() const { return dithered_; }
  std::uint64_t quantisedUpdates() const { return updates_; }

  QSize sizeHint() const override { return {800, 560}; }

 signals:
  void zoomChanged(double zoom);
  void modeChanged(Mode mode);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void mouseDoubleClickEvent(QMouseEvent* event) override;

 private:
  /// Panes of the widget in which the picture is drawn (two side by side, else one).
  QList<QRectF> panes() const;
  /// Where the whole picture lands in `pane` with the current zoom and centre.
  QRectF imageRect(const QRectF& pane) const;
  double fitZoom() const;
  void drawPicture(QPainter& p, const QImage& image, const QRectF& pane, const QRectF& clip);
  void drawLabel(QPainter& p, const QRectF& pane, const QString& text, Qt::Alignment corner);
  double splitX() const;
  bool nearSplit(const QPointF& pos) const;

  QImage original_;
  QImage quantised_;
  QImage dithered_;
  QString ditherMethod_;
  int k_ = 0;
  Mode mode_ = Mode::Split;
  double split_ = 0.5;
  double zoom_ = 1.0;
  bool fit_ = true;
  QPointF centre_;  // picture coordinate shown at the middle of each pane
  std::uint64_t updates_ = 0;

  enum class Drag { None, Pan, Split } drag_ = Drag::None;
  QPointF dragStart_;
  QPointF centreAtDragStart_;
};

}  // namespace kms::ui
