// A run traced elsewhere (scikit-learn, FAISS, your own code: docs/trace-format.md) beside exact
// Lloyd from the same start, on the window's data: the trace's labels (those its centroids imply)
// and the exact run's, side by side at any iteration, with the points that flipped ringed — or,
// with Near ties, every point within rounding (or the runs' centroid difference) of a tie; the
// adjusted Rand index and the flips per iteration with the first divergence and the stopping
// rules marked; the findings; a table of every iteration; and, on request, a float64 reference
// run against which both are measured. Data of more than three dimensions are drawn on their
// first two principal axes.
#pragma once

#include <QDialog>
#include <QFutureWatcher>

#include <memory>

#include "core/dataset.h"
#include "core/principal_components.h"
#include "core/trace_compare.h"
#include "io/trace.h"
#include "session/session_types.h"

class QCheckBox;
class QCustomPlot;
class QCPItemStraightLine;
class QLabel;
class QPushButton;
class QSlider;
class QTableWidget;

namespace kms::ui {

class ScatterView;

class TraceWindow : public QDialog {
  Q_OBJECT

 public:
  /// `comparison` must have been made with CompareOptions::keepRuns on `dataset` and `trace`;
  /// `name` is the trace's folder name.
  TraceWindow(kms::app::DatasetPtr dataset, kms::app::RunTrace trace,
              kms::app::TraceComparison comparison, const QString& name, QWidget* parent = nullptr);
  ~TraceWindow() override;

  /// Shows iteration t (0 … T) on both sides: its labels beside the centroids they were
  /// assigned to, or (`update`) the centroids its update moved them to, arrows from before.
  void showIteration(int t, bool update = false);
  int iteration() const { return iteration_; }
  bool showsUpdate() const { return update_; }
  /// One step forward (+1) or back (−1): a whole iteration, or with half-steps on, its assign
  /// and update in turn.
  void step(int direction);
  void setHalfSteps(bool on);
  /// Rings the points near a tie instead of the points that flipped.
  void setNearTies(bool on);
  /// Runs the float64 reference (in the background) and adds its columns to the table.
  void computeReference();
  bool referenceReady() const { return !referenceDistance_[0].empty(); }
  const kms::app::TraceComparison& comparison() const { return comparison_; }
  /// Points ringed on the trace's side at the shown iteration.
  std::size_t ringedPoints() const { return ringed_; }
  ScatterView* view(int side) const { return side == 0 ? traceView_ : exactView_; }

 private:
  void buildChart();
  void fillTable();
  session::FramePtr frameFor(const std::vector<float>& centroids,
                             const std::vector<std::int32_t>* labels,
                             std::vector<std::uint32_t> ringed, int t,
                             const std::vector<float>* movedFrom = nullptr) const;
  /// The trace's centroids after iteration t, each at the index of the exact cluster it matches
  /// (`identity`: at its own index, as while both runs are the same).
  std::vector<float> matchedTrace(int t, bool identity) const;

  kms::app::DatasetPtr dataset_;
  kms::app::DatasetPtr shown_;  // the data as drawn (principal axes beyond three dimensions)
  kms::app::PrincipalComponents axes_;
  bool projected_ = false;
  kms::app::RunTrace trace_;
  kms::app::TraceComparison comparison_;
  int iteration_ = -1;
  bool update_ = false;
  bool halfSteps_ = false;
  bool nearTies_ = false;
  std::size_t ringed_ = 0;
  std::vector<double> referenceDistance_[2];  // per iteration: trace, exact vs float64

  ScatterView* traceView_;
  ScatterView* exactView_;
  QLabel* traceStatus_;
  QLabel* exactStatus_;
  QLabel* findings_;
  QSlider* slider_;
  QLabel* position_;
  QCheckBox* nearTieBox_;
  QCheckBox* halfStepBox_;
  QPushButton* referenceButton_;
  QCustomPlot* chart_;
  QCPItemStraightLine* cursor_ = nullptr;
  QTableWidget* table_;
  QFutureWatcher<std::vector<std::vector<float>>> reference_;
};

}  // namespace kms::ui
