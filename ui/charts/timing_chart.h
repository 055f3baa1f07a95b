// The per-iteration timing chart, behind a small interface so the charting library can be
// swapped (Qt Charts today) without touching the window that feeds it.
#pragma once

#include <QImage>
#include <QWidget>

#include <vector>

#include "session/session_types.h"

namespace kms::ui {

class TimingChart : public QWidget {
  Q_OBJECT

 public:
  using QWidget::QWidget;

  /// Forgets the run shown (a new run starts).
  virtual void clear() = 0;
  /// Adds iterations; cheap. The picture changes on the next refresh().
  virtual void append(const std::vector<session::IterationRecord>& records) = 0;
  /// Redraws with everything appended so far (called at most at screen rate).
  virtual void refresh() = 0;
  /// Iterations held.
  virtual std::size_t iterationCount() const = 0;
  /// The chart as a picture of `size` pixels (export).
  virtual QImage toImage(const QSize& size) = 0;
};

/// The default implementation (Qt Charts): stacked areas per stage and the running median.
TimingChart* createTimingChart(QWidget* parent);

}  // namespace kms::ui
