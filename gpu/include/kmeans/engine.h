// The one interface every k-means backend implements.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kmeans/config.h"
#include "kmeans/data.h"
#include "kmeans/starts.h"
#include "kmeans/stats.h"

namespace kms {

/// A consistent picture of one iteration: the labels it assigned and the centroids its update
/// produced (the means of those labels, after empty-cluster handling). Before the first
/// iteration, `iteration` is 0, `labels` is empty and `centroids` holds the initial centroids.
struct Snapshot {
  int iteration = 0;
  std::size_t n = 0;
  int k = 0;
  int d = 0;
  std::vector<float> centroids;  ///< k × d, data units
  /// The same centroids in the engine's own frame (data units less the origin the engine
  /// centres the data on, which keeps its sums precise): Engine::assign takes these and gives
  /// back exactly the labels the next iteration assigns. (Converting `centroids` back would
  /// round.)
  std::vector<float> centred_centroids;
  std::vector<std::int32_t> labels;  ///< n values in [0, k)
  IterationStats stats;              ///< stats of `iteration` (zero at iteration 0)
};

/// Which implementation an engine is and what it runs on.
struct BackendInfo {
  std::string backend;  ///< "cpu" or "cuda"
  std::string device;   ///< e.g. "NVIDIA H100 80GB HBM3" or "CPU, 16 threads"
  int devices = 1;      ///< GPUs the run is sharded across (1: one device, or the CPU)
};

/// Exact Lloyd k-means. Typical use:
///   engine->setData(view); engine->initialize(config);
///   while (!engine->finished()) stats = engine->step();
/// An engine is used from one thread at a time.
class Engine {
 public:
  virtual ~Engine() = default;

  virtual BackendInfo info() const = 0;

  /// Takes the data (validated; see summarizeData). Resets any run in progress.
  virtual void setData(const DataView& data) = 0;

  /// Validates `config` against the data and places the initial centroids (iteration 0).
  virtual void initialize(const KMeansConfig& config) = 0;

  /// Runs one Lloyd iteration: assign, reduce, update. Throws std::logic_error before
  /// initialize(), DeviceError on GPU failures.
  virtual IterationStats step() = 0;

  /// Runs one or more iterations as step() would: at least one unless finished(), at most
  /// `max_steps`, stopping once finished(); appends each one's stats to `out` and returns how
  /// many ran (0 when already finished). It may return fewer than asked while the run goes on
  /// (call it again). The results are those of as many step() calls, bit for bit. A backend
  /// may keep the loop on the device — the CUDA engine runs up to 64 iterations of the sorted
  /// runs of d = 1, or 16 of the compact kernels (docs/engine.md), as one launch, with no host
  /// round trip in between, each iteration's time its share of the launch; stepsPerCall() says
  /// how many. (With TestHooks::steps_past_convergence, for benchmarks, the CUDA engine's steps()
  /// goes on past convergence up to max_iterations, as step() calls would.)
  virtual int steps(int max_steps, std::vector<IterationStats>& out);

  /// How many iterations steps() runs now without a host round trip between them: 1 (the
  /// default: step() by step()), the CUDA sorted runs' 64 or the CUDA compact kernels' 16 —
  /// callers that report progress per call ask for this many.
  virtual int stepsPerCall() const { return 1; }

  /// Copies the latest completed iteration (or the initial centroids) into `out`, reusing its
  /// buffers. Never observes a half-updated state. May wait for the device.
  virtual void snapshot(Snapshot& out) = 0;

  /// Labels of every row for the centroids `centred_centroids` (k × d, from
  /// Snapshot::centred_centroids of this engine and data) without touching the run: exactly the
  /// labels step() assigns with those centroids (nearest centroid, ties to the lower index).
  /// History needs only this: the labels of iteration t are assign(centroids after t − 1), so no
  /// labels are stored per iteration. Needs setData(); throws std::invalid_argument when the
  /// size is not a multiple of d or k is out of range.
  virtual void assign(const std::vector<float>& centred_centroids,
                      std::vector<std::int32_t>& labels) = 0;

  /// Iteration t (0 ≤ t ≤ iteration()) of the current run as snapshot() gave it then: the
  /// centroids after t, the labels of t — recomputed by assign() from the centroids after t − 1,
  /// none at t = 0 — and the stats of t. Needs KMeansConfig::keep_history (std::logic_error
  /// without it); std::out_of_range for t outside the run.
  void snapshotAt(int iteration, Snapshot& out);
  /// The centroids after iteration t (k × d, data units) from the history, without labels (no
  /// assignment is run). Needs keep_history, as snapshotAt.
  const std::vector<float>& centroidsAt(int iteration) const;

  /// Asks for the state of the next iteration step() completes to be captured without stalling
  /// the computation (CUDA: copied to pinned memory on a copy stream while later iterations
  /// run). Collect it with takeCapturedSnapshot().
  virtual void requestSnapshot() { snapshot_requested_ = true; }

  /// Non-blocking: if a requested capture is complete, moves it into `out` and returns true.
  /// The capture may be a few iterations older than iteration(), but labels, centroids and
  /// stats always belong to the same iteration.
  virtual bool takeCapturedSnapshot(Snapshot& out);

  /// Number of completed iterations since initialize().
  int iteration() const { return iteration_; }
  /// The last iteration passed the convergence test.
  bool converged() const { return converged_; }
  /// Converged, or max_iterations reached.
  bool finished() const;
  /// The rule that ended the run (StopRule::Running while it goes on), for data of `points`
  /// points (with counts: the expanded count).
  StopRule stopRule(std::size_t points) const {
    return stopRuleOf(last_, finished(), points, config_.tolerance);
  }

  /// Steps until finished() or until `onIteration` returns false. Returns the last stats.
  /// Without `onIteration`, in batches of steps().
  IterationStats run(const std::function<bool(const IterationStats&)>& onIteration = {});

  const KMeansConfig& config() const { return config_; }

  /// Best of N: runs the starts numbered `starts` (each ≥ 0; start s is seeded config.seed + s)
  /// of `config` to the end, each exactly as initialize() and steps() would run it alone — the
  /// same stats, bit-identical centroids — and returns their outcomes in the order of `starts`.
  /// keep_history is ignored (no history is kept). `observer` hears of each start as it
  /// finishes. Batched where the backend can: the CUDA engine runs several starts at once, each
  /// on its own stream over its own copy of the data on the GPU (docs/engine.md, "Best of N");
  /// otherwise the starts run one after another. Afterwards the engine holds the finished run
  /// of one of the starts (which one is unspecified); initialize() begins another. An
  /// outcome's labels are Engine::assign(its centred_centroids): every row's nearest final
  /// centroid. Throws as initialize() for a bad config (before any start runs); Interrupted when
  /// the interrupt flag is raised or the observer returns false (then initialize() before
  /// stepping again).
  virtual std::vector<StartOutcome> runStarts(const KMeansConfig& config,
                                              const std::vector<int>& starts,
                                              const StartObserver& observer = {});

  /// Lets another thread stop a long step() or initialize() early: while `*flag` is true the
  /// CPU backend stops between chunks of work (a few milliseconds apart) and throws
  /// Interrupted, leaving the engine as it was before the call. The CUDA backend's steps take
  /// milliseconds and finish. nullptr (the default) never interrupts; the flag must outlive
  /// the engine or be replaced first.
  void setInterruptFlag(const std::atomic<bool>* flag) { interrupt_ = flag; }

 protected:
  /// The interrupt flag is raised (cheap; call it between chunks).
  bool interruptRequested() const {
    return interrupt_ != nullptr && interrupt_->load(std::memory_order_relaxed);
  }

  // The run's bookkeeping, the same for every backend: a backend calls resetRun() when it
  // takes new data, beginRun() at the end of initialize(), and endIteration() at the end of
  // every iteration (step() or each iteration of steps()); the history of keep_history, the
  // iteration count, convergence and the latest stats are kept here.

  /// No run (new data).
  void resetRun();
  /// A run starts at iteration 0; with keep_history its starting centroids are recorded.
  void beginRun();
  /// An iteration ended with `stats`: counted, its convergence and stats kept, and with
  /// keep_history its centroids recorded.
  void endIteration(const IterationStats& stats);
  /// The centroids the latest iteration (or initialize()) left, for the history: centred (k × d)
  /// and the midpoint they are centred on (data units are centred + mid).
  struct CentroidsNow {
    std::vector<float> centred;
    const std::vector<float>* mid = nullptr;
  };
  virtual CentroidsNow centroidsForHistory() const = 0;

  /// One start of runStarts on this engine: initialize(config), steps to the end, the outcome.
  /// `initialized`: the engine was just initialized for this very start (its seeding is not
  /// run twice). Returns false, the run left unfinished, when `stop` is raised between launches.
  bool runOneStart(const KMeansConfig& config, int start, StartOutcome& out,
                   const std::atomic<bool>* stop, bool initialized = false);

  KMeansConfig config_;
  bool snapshot_requested_ = false;
  const std::atomic<bool>* interrupt_ = nullptr;
  int iteration_ = 0;       ///< completed iterations of the run
  bool converged_ = false;  ///< the latest iteration passed the convergence test
  IterationStats last_;     ///< the latest iteration's stats

 private:
  void recordHistory();

  struct HistoryEntry {
    std::vector<float> centroids, centred;
    IterationStats stats;
  };
  const HistoryEntry& historyEntry(int iteration) const;
  std::vector<HistoryEntry> history_;
  int history_k_ = 0, history_d_ = 0;
};

}  // namespace kms
