// Convergence per iteration (QCustomPlot): inertia on a log scale above — and, for pictures, the
// quantised picture's PSNR in dB on the right, wherever a frame measured it; points that changed
// cluster and the largest centroid shift (both log) below, sharing the iteration axis. Moving
// the mouse over either panel reads the values of the nearest iteration (with mean ΔE2000).
#pragma once

#include <QImage>
#include <QSharedPointer>
#include <QWidget>

#include <map>
#include <vector>

#include "session/session_types.h"

class QCustomPlot;
class QCPAxisRect;
class QCPAxisTickerFixed;
class QCPGraph;
class QCPItemText;
class QCPLegend;
class QCPTextElement;
class QCPItemTracer;
class QMouseEvent;
class QResizeEvent;

namespace kms::ui {

class ConvergenceChart : public QWidget {
  Q_OBJECT

 public:
  explicit ConvergenceChart(QWidget* parent = nullptr);

  void clear();
  void append(const std::vector<session::IterationRecord>& records);
  /// The quality of the picture at `iteration` (from a frame of the current run).
  void addQuality(int iteration, const kms::app::Quality& quality);
  std::size_t qualityCount() const { return quality_.size(); }
  void refresh();
  std::size_t iterationCount() const { return stats_.size(); }
  QImage toImage(const QSize& size);
  QCustomPlot* plot() const { return plot_; }
  /// The readout text for the iteration nearest `key` (what hovering shows).
  QString readout(double key) const;
  /// What the hover label shows now (empty when hidden).
  QString hoverText() const;

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  void onMouseMove(QMouseEvent* event);
  void rescale();
  /// The legend's entries: inertia, PSNR (pictures only), points changed, largest shift.
  void fillLegend(bool pictures);
  /// As many of the legend's entries a row as fit `width` pixels: all, two or one. Returns
  /// whether the legend changed its shape.
  bool fitLegend(int width);

  QCustomPlot* plot_;
  QCPTextElement* title_;
  QCPAxisRect* top_;
  QCPAxisRect* bottom_;
  QCPGraph* inertia_;
  QCPGraph* changed_;
  QCPGraph* shift_;
  QCPGraph* psnr_;
  QCPLegend* legend_;
  std::map<int, kms::app::Quality> quality_;
  QCPItemTracer* tracer_;
  QCPItemText* label_;
  QSharedPointer<QCPAxisTickerFixed> iterationTicker_;
  std::vector<kms::IterationStats> stats_;
  bool dirty_ = false;
};

}  // namespace kms::ui
