// Two set-ups side by side on the same data (k-means++ against random, or two seeds): two
// linked 2-D views (zoom and pan follow each other), both runs' inertia in one chart, and one
// set of buttons that steps, plays and resets both. Each side is a session of its own (its own
// worker thread and engine), so the two runs are exactly what either would be alone.
#pragma once

#include <QDialog>

#include <array>
#include <memory>

#include "session/session_types.h"

class QComboBox;
class QCustomPlot;
class QLabel;
class QSpinBox;

namespace kms::session {
class SessionController;
}

namespace kms::ui {

class ScatterView;

class CompareDialog : public QDialog {
  Q_OBJECT

 public:
  /// Compares two runs on `dataset`; both start from `settings` (k, limits, backend), side B
  /// with random initialisation and the next seed.
  CompareDialog(kms::app::DatasetPtr dataset, const session::RunSettings& settings,
                QWidget* parent = nullptr);
  ~CompareDialog() override;

  /// Side 0 (left) or 1 (right): its initialisation and seed; restarts that side's run.
  void setSide(int side, kms::InitMethod init, std::uint64_t seed);
  void stepHalf();
  void stepWhole();
  void stepBack();
  void play();
  void reset();

  session::SessionController& session(int side) const { return *sides_[std::size_t(side)].session; }
  ScatterView* view(int side) const { return sides_[std::size_t(side)].view; }
  const session::FramePtr& frame(int side) const { return sides_[std::size_t(side)].frame; }
  /// Inertia points drawn for a side (one per iteration seen).
  int curvePoints(int side) const;

 private:
  struct Side {
    std::unique_ptr<session::SessionController> session;
    ScatterView* view = nullptr;
    QComboBox* init = nullptr;
    QSpinBox* seed = nullptr;
    QLabel* status = nullptr;
    session::FramePtr frame;
    std::uint64_t runId = 0;
  };
  void apply(int side);
  /// The same command to both sessions.
  void both(void (session::SessionController::*command)());
  void drain(int side);

  kms::app::DatasetPtr dataset_;
  session::RunSettings settings_;
  std::array<Side, 2> sides_;
  QCustomPlot* chart_;
  bool linking_ = false;  // a range change being copied to the other view
};

}  // namespace kms::ui
