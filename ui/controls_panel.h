// The settings side panel: the data in use, the clustering parameters, the run buttons and the
// speed slider. Parameter edits are debounced and reported together as RunSettings, so typing
// "16" into k starts one new run, not two.
#pragma once

#include <QTimer>
#include <QWidget>

#include "session/session_types.h"

class QComboBox;
class QLabel;
class QSlider;
class QSpinBox;

namespace kms::ui {

class ScientificSpinBox;
struct StudioActions;

class ControlsPanel : public QWidget {
  Q_OBJECT

 public:
  /// Slider positions below kFlatOut are paced (0.25 … 250 it/s, logarithmic).
  static constexpr int kFlatOut = 40;

  ControlsPanel(const StudioActions& actions, QWidget* parent = nullptr);

  /// Shows `settings` without emitting settingsEdited.
  void setSettings(const session::RunSettings& settings);
  session::RunSettings settings() const;
  /// Iterations per second, ≤ 0 for flat out.
  void setPace(double iterationsPerSecond);
  double pace() const;
  void setDatasetInfo(const QString& name, const QString& details);
  /// The CUDA entry's tooltip: the device, or why there is none; with `gpus` > 1 the list
  /// gains "CUDA, all GPUs".
  void setCudaStatus(bool available, const QString& description, int gpus = 1);
  /// The largest k that makes sense for the data (its number of points).
  void setMaximumK(int k);
  /// Pictures can choose a colour space; point sets cannot.
  void setPicture(bool picture);
  /// Best of N, when every start has finished: offers each start to show (`shown` selected,
  /// `best` marked); none hides the choice.
  void setStarts(const std::vector<kms::app::StartSummary>& starts, int shown, int best);
  /// Best of N: `done` of `starts` starts have finished; the others are running.
  void setStartProgress(int done, int starts);
  /// The timeline: iteration `shown` of `latest`; the user can scrub it when `enabled`.
  void setTimeline(int shown, int latest, bool enabled, const std::vector<int>& emptied = {});
  QLabel* timelineMarks() const { return timelineMarks_; }
  /// Applies a pending debounced edit at once (tests, before Play).
  void flushEdits();

  QSpinBox* kSpin() const { return k_; }
  QSlider* speedSlider() const { return speed_; }
  QComboBox* backendCombo() const { return backend_; }
  QComboBox* colourSpaceCombo() const { return colourSpace_; }
  QComboBox* rowsCombo() const { return rows_; }
  QSpinBox* restartsSpin() const { return restarts_; }
  QComboBox* startCombo() const { return start_; }
  QSlider* timelineSlider() const { return timeline_; }

  static double paceForPosition(int position);
  static int positionForPace(double pace);

 signals:
  void settingsEdited(const kms::session::RunSettings& settings);
  void paceChanged(double iterationsPerSecond);
  /// Best of N: the user picked a start to show.
  void startChosen(int start);
  /// The user moved the timeline to `iteration` (coalesced: at most one per 30 ms).
  void iterationChosen(int iteration);

 private:
  QWidget* buildDataGroup(const StudioActions& actions);
  QWidget* buildParameterGroup();
  QWidget* buildRunGroup(const StudioActions& actions);
  void scheduleEdit();
  void updateSpeedLabel();

  QLabel* dataName_;
  QLabel* dataDetails_;
  QSpinBox* k_;
  QComboBox* init_;
  QSpinBox* seed_;
  QSpinBox* maxIterations_;
  ScientificSpinBox* tolerance_;
  QComboBox* backend_;
  QComboBox* colourSpace_;
  QComboBox* rows_;
  QSpinBox* restarts_;
  QComboBox* start_;
  QLabel* startLabel_;
  QSlider* speed_;
  QSlider* timeline_;
  std::vector<float> given_;  // centroids placed by hand, while the initialisation uses them
  QLabel* timelineLabel_;
  QLabel* timelineMarks_;  // iterations where clusters went empty
  QTimer timelineDebounce_;
  QLabel* speedLabel_;
  QTimer debounce_;
  bool updating_ = false;
  /// The backend last asked for (settings or the user's pick): "CUDA, all GPUs" is listed only
  /// once the probe has counted the GPUs, and is selected then if it was asked for.
  kms::BackendKind wantedBackend_ = kms::BackendKind::Auto;
};

}  // namespace kms::ui
