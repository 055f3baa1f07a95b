// The k-means engine on its own thread (owned by SessionController, never touched by the GUI).
//
// Flat out, the worker steps the engine in time slices of a few milliseconds and returns to its
// event loop between slices so commands (pause, reset, new settings) are handled promptly; an
// atomic count of pending commands ends a slice early. Paced, a timer on this thread runs one
// step per tick. Every iteration's record goes to the mailbox; a frame is built only when the
// GUI wants one (see FrameMailbox) and no more often than the frame interval, so a fast engine
// is barely slowed by being watched: flat out, the engine captures the state in the background
// (the CUDA engine copies it on its copy stream while it keeps iterating) and the frame is built
// on the thread pool while the worker steps on. Paced steps, pauses and the end of a run build
// their frame right away from the newest state (at most ~10 % of the worker's time).
#pragma once

#include <QElapsedTimer>
#include <QFuture>
#include <QObject>
#include <QString>

#include <atomic>
#include <memory>

#include "core/cluster_input.h"
#include "core/quality.h"
#include "kmeans/engine.h"
#include "session/frame_builder.h"
#include "session/frame_mailbox.h"
#include "session/label_pool.h"
#include "session/session_types.h"
#include "session/stop_request.h"

class QTimer;

namespace kms::session {

class SessionWorker : public QObject {
  Q_OBJECT

 public:
  /// `pendingCommands` is raised by the controller before it queues a command, so a running
  /// slice stops early; each command lowers it when it runs. `stop` interrupts an engine call
  /// in progress (the controller raises and lowers it; it outlives the worker).
  SessionWorker(FrameMailbox& mailbox, std::atomic<int>& pendingCommands, const StopRequest& stop);
  ~SessionWorker() override;

  // Commands. Called on the worker thread through queued invocations only.
  void setDataset(kms::app::DatasetPtr dataset, const kms::session::RunSettings& settings);
  void applySettings(const kms::session::RunSettings& settings);
  void play();
  void pause();
  /// One whole iteration: from an assign half-step, its update; looking back, the next
  /// iteration from history; otherwise the engine runs one.
  void stepOnce();
  /// k-means's two moves apart: after an update (or looking back), the next assign — the
  /// engine runs it when it is new; after an assign, its update. Best of N: whole steps.
  void stepHalf();
  /// Back one half-step (update → assign of the same iteration → update of the one before).
  void stepBack();
  /// Shows iteration t (0 ≤ t ≤ the newest) as a whole, from the engine's history.
  void showIteration(int iteration);
  void reset();
  /// Replaces how engines are made (tests, following a run): the next engine the worker needs
  /// (new data or settings) comes from it, even for the same backend.
  void setEngineFactory(const kms::session::EngineFactory& factory);
  /// Iterations per second; ≤ 0 runs flat out.
  void setPace(double iterationsPerSecond);
  /// The shortest time between two frames (the screen's refresh interval).
  void setFrameInterval(double ms);
  /// Asks the CUDA runtime whether a device answers (can take a while: never on the GUI thread).
  void probeCuda();
  /// Best of N: shows start `start`'s final state (its frame and its iterations' records).
  void showStart(int start);

 signals:
  void stateChanged(kms::session::SessionState state);
  void engineChanged(const kms::session::EngineDescription& engine);
  /// Something was posted to the mailbox and nobody has been told yet.
  void deliveryPending();
  void failed(const QString& message);
  /// The GPU failed while running (a CUDA error): the run stopped; the CPU can take over.
  void deviceFailed(const QString& message);
  /// `gpus`: CUDA devices present (0 when none is available).
  void cudaProbed(bool available, const QString& description, int gpus);
  /// Best of N: `done` of `starts` starts have finished (the first one is animated, the others
  /// run flat out, several at once on a GPU). `runId` is the run's id: the result frame of all
  /// the starts comes with a later id, so a receiver can drop progress that arrives after the
  /// result.
  void startProgress(quint64 runId, int done, int starts);

 private:
  void commandDone();
  /// Creates the engine for `kind` unless it is already there; true when a new engine was
  /// created (it has no data yet). A kind that cannot run falls back to the CPU with an error.
  bool ensureEngine(kms::BackendKind kind);
  /// Builds the engine's input for the data set and the clustering options and hands it to the
  /// engine; false (after failing with the reason) when that fails.
  bool prepareInput();
  /// Gives the engine the stop flag (after every engine change).
  void adoptEngine(std::unique_ptr<kms::Engine> engine);
  /// Sets up again what an interrupted initialize() left undone. False when it still is not.
  bool finishPendingInit();
  void initializeRun();
  /// Best of N: records the animated first start when it ended; true when later starts follow.
  bool recordFirstStart();
  /// Best of N: the later starts not yet run, in one Engine::runStarts (several at once on a
  /// GPU), each recorded as it ends; then the best start is shown and the run is finished.
  /// True when a queued command stopped it (the next slice goes on), false when it ended.
  bool runLaterStarts();
  /// Keeps a finished start's summary, records and final centroids.
  struct StartState;
  void recordStart(StartState state, const std::vector<kms::IterationStats>& stats, bool converged);
  void sortStarts();
  /// Later starts of a best-of-N run are still to run.
  bool laterStartsLeft() const;
  /// The finished start with the lowest inertia (ties: the earlier), by number.
  int bestStart() const;
  /// Where start `start` is in starts_, or −1.
  int indexOfStart(int start) const;
  /// The best start's final frame and records, once all starts are done.
  /// False (after failing with the reason) when the start could not be labelled.
  bool publishStart(int start);
  void startRunning();
  void stopRunning(SessionState next);
  void queueSlice(std::uint64_t chain);
  void runSlice(std::uint64_t chain);
  void pacedTick();
  /// One step; false when the run ended (finished or failed). Without `publish` no frame is
  /// built (a half-step builds its own).
  bool stepAndRecord(bool forceFrame, bool publish = true);
  /// Builds and posts the frame of iteration t in `phase`, from the engine's history when t is
  /// not the newest iteration.
  void showPhase(int iteration, StepPhase phase);
  /// The run keeps every iteration's centroids (one start, an engine that records them).
  bool hasHistory() const;
  /// Builds and posts a frame of the newest state, on this thread.
  void publishFrame();
  /// Flat out: asks for a background capture when a frame is due, and hands a finished capture
  /// to the thread pool to become a frame.
  void publishInBackground(bool frameDue);
  /// Waits for a frame being built on the thread pool (before the run or data change).
  void finishBackgroundFrame();
  void setState(SessionState state);
  void fail(const QString& message, SessionState next);

  FrameMailbox& mailbox_;
  std::atomic<int>& pendingCommands_;
  const StopRequest& stop_;
  /// An initialize() was interrupted: the run must be set up again before it can step
  /// (start_ > 0: that start of a best-of-N run).
  bool initPending_ = false;
  EngineFactory engineFactory_;  ///< empty: kms::createEngine
  bool factoryChanged_ = false;  ///< the engine was made by the factory before this one

  kms::app::DatasetPtr dataset_;        // declared before engine_: the CPU engine reads its memory
  kms::app::ClusteringInputPtr input_;  // what the engine clusters (reads its memory too)
  std::shared_ptr<const kms::app::QualityContext> quality_;
  RunSettings settings_;
  std::unique_ptr<kms::Engine> engine_;
  kms::BackendKind engineKind_ = kms::BackendKind::Auto;  // the kind asked for, not the result
  bool initialized_ = false;
  std::uint64_t runId_ = 0;
  // What the last frame showed: half-steps and stepping back go on from there.
  int viewIteration_ = 0;
  StepPhase viewPhase_ = StepPhase::Whole;
  SessionState state_ = SessionState::NoData;

  bool running_ = false;
  std::uint64_t sliceChain_ = 0;
  double pace_ = 0.0;
  QTimer* paceTimer_ = nullptr;

  kms::Snapshot snapshot_;
  std::shared_ptr<LabelPool> labelPool_;  // label buffers of released frames, for reuse
  bool capturePending_ = false;           // a background capture was requested and not yet taken
  QFuture<void> backgroundFrame_;
  QElapsedTimer runClock_;    // wall time since the run's first step, stamped on every record
  QElapsedTimer frameClock_;  // since the last frame
  double frameIntervalMs_ = 1000.0 / 60.0;
  double lastFrameCostMs_ = 0.0;

  /// Best of N: how each finished start ended, with what it takes to show it again.
  struct StartState {
    kms::app::StartSummary summary;
    /// With the wall clock since the start began (the animated first start) or its compute time
    /// (the others).
    std::vector<IterationRecord> iterations;
    kms::Snapshot result;  // final centroids (engine space and centred); no labels
  };
  std::vector<StartState> starts_;
  int start_ = 0;  // 0: the animated first start; 1: the later starts (runLaterStarts)
  std::vector<IterationRecord> startIterations_;  // of the start in progress
  QElapsedTimer startClock_;                      // since the start in progress began
  FrameContext context() const { return {input_, quality_}; }
};

}  // namespace kms::session
