// TimingChart with Qt Charts: the stages of each iteration (assign, reduce, communication between
// GPUs, update, copy-out)
// stacked as areas, with the running median of their sum as a line. Long runs are bucketed to
// at most kMaxColumns points so redraws stay cheap; the median is computed on every iteration.
#pragma once

#include <QtCharts/QChartView>

#include <array>

#include "charts/timing_chart.h"

class QAreaSeries;
class QChart;
class QLineSeries;
class QValueAxis;

namespace kms::ui {

class QtTimingChart : public TimingChart {
  Q_OBJECT

 public:
  static constexpr std::size_t kMaxColumns = 600;
  static constexpr std::size_t kMedianWindow = 15;
  /// Assign, reduce, communication (several GPUs only; hidden otherwise), update, copy-out.
  static constexpr std::size_t kStages = 5;
  static constexpr std::size_t kCommunication = 2;

  explicit QtTimingChart(QWidget* parent = nullptr);

  void clear() override;
  void append(const std::vector<session::IterationRecord>& records) override;
  void refresh() override;
  std::size_t iterationCount() const override { return rows_.size(); }
  QImage toImage(const QSize& size) override;

 private:
  struct Row {
    double iteration = 0.0;
    std::array<double, kStages> stage{};  // assign, reduce, communication, update, copy
    std::vector<double> ranks;            // a run over several processes: each rank's assign
    double median = 0.0;                  // running median of the stage sums up to here
  };

  QChart* chart_;
  QChartView* view_;
  std::array<QLineSeries*, kStages> upper_{};
  std::array<QLineSeries*, kStages> lower_{};
  std::array<QAreaSeries*, kStages> areas_{};
  QLineSeries* median_;
  /// A followed run over several processes: one line per rank's assignment (at most
  /// kMaxRankLines; more ranks show the fastest and the slowest), made when first needed.
  std::vector<QLineSeries*> ranks_;
  static constexpr std::size_t kMaxRankLines = 8;
  /// The rank lines for `lines` lines (named for `ranks` ranks), made or hidden as needed.
  void ensureRankLines(std::size_t lines, std::size_t ranks);
  QValueAxis* axisX_;
  QValueAxis* axisY_;
  std::vector<Row> rows_;
  bool dirty_ = false;
};

}  // namespace kms::ui
