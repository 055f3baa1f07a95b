// The GUI thread's handle on a k-means session: owns the worker thread (engine), the loader and
// the mailbox. Every call returns at once; results come back as signals and through the
// mailbox. Destroying it (or shutdown()) cancels loading, stops the run and joins the thread.
#pragma once

#include <QObject>
#include <QThread>

#include <atomic>
#include <optional>

#include "session/dataset_loader.h"
#include "session/frame_mailbox.h"
#include "session/session_types.h"
#include "session/stop_request.h"

namespace kms::session {

class SessionWorker;

class SessionController : public QObject {
  Q_OBJECT

 public:
  explicit SessionController(QObject* parent = nullptr);
  ~SessionController() override;

  // --- data ----------------------------------------------------------------------------------
  /// Loads on the thread pool; on success the new data replaces the old and, if given, k is
  /// set. On failure the current data stays as it was and loadFailed() names the file.
  void openFile(const QString& path, std::optional<int> k = {});
  void generate(const kms::app::GeneratorParams& params, std::optional<int> k = {});
  /// Uses an already built data set (its picture is built here for images).
  void setDataset(kms::app::DatasetPtr dataset, std::optional<int> k = {});
  void cancelLoad();
  bool loading() const { return loader_.busy(); }

  // --- run -----------------------------------------------------------------------------------
  /// New settings start the run again at iteration 0 (paused).
  void setSettings(const RunSettings& settings);
  const RunSettings& settings() const { return settings_; }
  void play();
  void pause();
  void togglePlay();
  /// One whole iteration (Shift+→).
  void step();
  /// Half an iteration: assign, then update (→).
  void stepHalf();
  /// Back half an iteration, through the run's history (←).
  void stepBack();
  /// Shows iteration t of the run as it was (the timeline); labels are recomputed exactly.
  void showIteration(int iteration);
  void reset();
  /// How the worker makes engines from now on (tests inject failing ones; following a run);
  /// default kms::createEngine. Takes effect when the worker next needs an engine (new data or
  /// settings), even for the same backend.
  void setEngineFactory(EngineFactory factory);
  /// Best of N, once every start has finished: shows start `start`'s result.
  void showStart(int start);
  /// Iterations per second; ≤ 0 runs flat out.
  void setPace(double iterationsPerSecond);
  double pace() const { return pace_; }
  void setFrameInterval(double ms);

  /// Cancels loading, stops the engine and joins the worker thread. Idempotent; the
  /// controller is inert afterwards.
  void shutdown();

  // --- what the GUI reads ----------------------------------------------------------------------
  FrameMailbox& mailbox() { return mailbox_; }
  const kms::app::DatasetPtr& dataset() const { return dataset_; }
  const QImage& originalImage() const { return original_; }
  SessionState state() const { return state_; }
  const EngineDescription& engine() const { return engine_; }
  /// Known once cudaProbed() has been emitted (the probe runs on the worker at start-up).
  bool cudaAvailable() const { return cudaAvailable_; }
  const QString& cudaDescription() const { return cudaDescription_; }

 signals:
  void loadStarted(const QString& what);
  void loadProgress(double fraction);
  void loadFinished();
  void loadFailed(const QString& origin, const QString& message);
  void loadCancelled(const QString& origin);
  /// The data set was replaced (views reset); `origin` is the path or generator description.
  void datasetChanged(const kms::app::DatasetPtr& dataset, const QString& origin);
  /// The settings changed (setSettings, or a k given with new data), so the controls and the
  /// status bar can follow.
  void settingsChanged(const kms::session::RunSettings& settings);
  void stateChanged(kms::session::SessionState state);
  void engineChanged(const kms::session::EngineDescription& engine);
  /// Frames or records wait in the mailbox.
  void deliveryPending();
  /// Whether a CUDA device answers: its name, or why not; `gpus` devices present.
  void cudaProbed(bool available, const QString& description, int gpus);
  /// The engine or the settings failed (k too large, CUDA unavailable, ...).
  void errorOccurred(const QString& message);
  /// The GPU failed during the run (a CUDA error); the run is paused where it was. Switching
  /// the backend to the CPU (setSettings) starts it again there, with the same result.
  void deviceFailed(const QString& message);
  /// Something the user should know that is not an error (k lowered to fit the data).
  void notice(const QString& message);
  /// Best of N: `done` of `starts` starts of run `runId` have finished.
  void startProgress(quint64 runId, int done, int starts);

 private:
  template <typename F>
  void command(F&& f);
  /// A command that makes the engine's current work pointless: raises stop_ first, so an
  /// iteration or initialisation in progress ends within one chunk, and lowers it when it runs.
  template <typename F>
  void stoppingCommand(F&& f);
  void adopt(const LoadedData& data, const QString& origin);

  FrameMailbox mailbox_;
  std::atomic<int> pendingCommands_{0};
  StopRequest stop_;
  QThread thread_;
  SessionWorker* worker_ = nullptr;  // lives on thread_; deleted there when it finishes
  DatasetLoader loader_;
  std::optional<int> pendingK_;

  kms::app::DatasetPtr dataset_;
  QImage original_;
  RunSettings settings_;
  SessionState state_ = SessionState::NoData;
  EngineDescription engine_;
  double pace_ = 0.0;
  bool cudaAvailable_ = false;
  QString cudaDescription_;
  bool shutDown_ = false;
};

}  // namespace kms::session
