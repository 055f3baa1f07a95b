// A strip with one segment per cluster, as wide as the cluster's share of the points (pixels),
// largest first, in the cluster's colour: the palette of a quantised photo, or the cluster
// sizes of a point cloud. Hover a segment to read its colour and share.
#pragma once

#include <QColor>
#include <QWidget>

#include <vector>

namespace kms::ui {

class PaletteStrip : public QWidget {
  Q_OBJECT

 public:
  explicit PaletteStrip(QWidget* parent = nullptr);

  /// `shares` may be empty (before the first iteration): segments are then equal.
  void setClusters(const std::vector<QColor>& colours, const std::vector<double>& shares,
                   bool image);
  void clear();

  int clusterCount() const { return int(colours_.size()); }
  /// Cluster under x, or -1.
  int clusterAt(int x) const;

  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;
  bool event(QEvent* event) override;

 private:
  struct Segment {
    int cluster = 0;
    double left = 0.0;
    double width = 0.0;
  };
  void layoutSegments();
  QRectF stripRect() const;

  std::vector<QColor> colours_;
  std::vector<double> shares_;
  std::vector<Segment> segments_;
  bool image_ = false;
};

}  // namespace kms::ui
