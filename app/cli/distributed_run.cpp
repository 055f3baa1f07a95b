#include "cli/distributed_run.h"

#include <QCoreApplication>
#include <QFileInfo>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <future>
#include <optional>
#include <stdexcept>
#include <thread>

#include "cli/checkpoint.h"
#include "cli/exit_codes.h"
#include "cli/progress.h"
#include "cli/rank_input.h"
#include "core/format.h"
#include "io/export.h"
#include "io/generators.h"
#include "io/live_report.h"
#include "io/load.h"
#include "kmeans/backend.h"
#include "kmeans/errors.h"

namespace kms::app::cli {
namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

/// The message of a rank's failure on stderr, naming the rank and host when there are several.
void printFailure(const MpiWorld* world, const QString& message) {
  QString prefix = QStringLiteral("kmeans-cli: ");
  if (world && world->size() > 1)
    prefix = QStringLiteral("kmeans-cli (rank %1 of %2 on %3): ")
                 .arg(world->rank())
                 .arg(world->size())
                 .arg(QString::fromStdString(world->host()));
  std::fprintf(stderr, "%s%s\n", prefix.toUtf8().constData(), message.toUtf8().constData());
}

/// Rank and iteration at which the variable `name` ("rank:iteration") asks for a fault:
/// KMS_TEST_KILL_RANK kills the process (a rank that dies), KMS_TEST_FAIL_RANK makes it throw (a
/// rank whose step fails while the others are inside a collective). {-1, -1} when unset.
std::pair<int, int> testFault(const char* name) {
  const char* v = std::getenv(name);
  int rank = -1, iteration = -1;
  if (v) std::sscanf(v, "%d:%d", &rank, &iteration);
  return {rank, iteration};
}

struct Finished {
  std::vector<float> centred, centroids;  ///< the chosen run's final centroids
  std::vector<IterationStats> iterations;
  std::vector<StartSummary> starts;
  int best = 0;
  bool converged = false;
  StopRule stopRule = StopRule::Running;
};

class Run {
 public:
  Run(const CliOptions& options, MpiWorld* world)
      : options_(options),
        world_(world),
        rank_(world ? world->rank() : 0),
        ranks_(world ? world->size() : 1),
        collective_(world ? world->collective() : soloCollective()) {}

  int execute();

 private:
  bool root() const { return rank_ == 0; }
  void say(const QString& text) const {
    if (root() && !options_.quiet) std::fprintf(stdout, "%s\n", text.toUtf8().constData());
  }
  /// Runs `step`, returning what failed (with its exit status in `code`), or nothing.
  template <typename F>
  std::optional<QString> attempt(F&& step, int& code);
  /// For a step in which the ranks talk to each other (the engine's making, the run, the
  /// outputs): a rank that fails there cannot wait for the others to agree (they may be inside
  /// a collective it will not reach), so it says why and ends the job (MPI_Abort). One process:
  /// as together().
  template <typename F>
  void orAbort(F&& step);
  /// Runs `step` on every rank, then all learn whether any failed (a rank that stopped alone
  /// would leave the others waiting in a collective): then the lowest failing rank prints why
  /// and every rank throws AlreadyReported with the worst exit status.
  template <typename F>
  void together(F&& step);
  Finished runOneStart(Engine& engine, KMeansConfig config);
  void writeOutputs(Engine& engine, const Finished& run);

  const CliOptions& options_;
  MpiWorld* world_;
  int rank_, ranks_;
  std::shared_ptr<Collective> collective_;
  DatasetPtr data_;
  std::size_t rows_ = 0;                                ///< all ranks' rows
  InitMethod init_ = InitMethod::GreedyKMeansPlusPlus;  ///< the seeding chosen (before a resume)
  std::uint64_t dataHash_ = 0;
  std::optional<Checkpoint> resume_;
  int exit_ = kSuccess;
  Clock::time_point start_ = Clock::now();
  Clock::time_point readStart_;
  double readMs_ = 0.0;                             ///< the slowest rank's reading of its share
  std::vector<std::pair<QString, double>> phases_;  ///< rank 0's, in the order they ran
  bool firstReported_ = false;
};

struct AlreadyReported {
  int exit;
};

template <typename F>
std::optional<QString> Run::attempt(F&& step, int& code) {
  code = kBadInput;
  try {
    step();
  } catch (const UsageError& e) {
    code = kBadArguments;
    return QString::fromUtf8(e.what());
  } catch (const InvalidArgument& e) {
    return (options_.generate ? QStringLiteral("generated data")
                              : QFileInfo(options_.input).fileName()) +
           QStringLiteral(": ") + QString::fromUtf8(e.what());
  } catch (const ExportError& e) {
    code = kExportFailure;
    return QString::fromUtf8(e.what());
  } catch (const DeviceError& e) {
    code = kDeviceError;
    return QString::fromUtf8(e.what());
  } catch (const std::exception& e) {
    return QString::fromUtf8(e.what());
  }
  return std::nullopt;
}

template <typename F>
void Run::orAbort(F&& step) {
  if (ranks_ == 1) return together(std::forward<F>(step));
  int code = kBadInput;
  const std::optional<QString> failure = attempt(std::forward<F>(step), code);
  if (!failure) return;
  // Other ranks may be inside a collective this one will not reach: end the job (mpirun ends
  // every rank and says which one stopped it).
  printFailure(world_, *failure);
  std::fflush(stderr);
  world_->abortAll(code);
}

template <typename F>
void Run::together(F&& step) {
  int code = kBadInput;
  const std::optional<QString> failure = attempt(std::forward<F>(step), code);
  // The lowest rank that failed speaks (rank 0 when all failed alike); every rank exits with the
  // worst status.
  std::int64_t first[2] = {failure ? rank_ : ranks_, failure ? code : 0};
  collective_->allReduce(&first[0], 1, Collective::Op::Min);
  collective_->allReduce(&first[1], 1, Collective::Op::Max);
  if (first[0] == ranks_) return;
  if (first[0] == rank_) printFailure(rank_ == 0 ? nullptr : world_, *failure);
  throw AlreadyReported{int(first[1])};
}

int Run::execute() {
  try {
    together([&] {
      if (ranks_ > 1 && (options_.allDevices || options_.backend == BackendKind::CudaAllGpus))
        throw UsageError(
            "--devices all and cuda-all are for one process; under mpirun every process runs on "
            "one GPU (its local rank's, or the one --devices names)");
      if (ranks_ > 1 && options_.devices.size() > 1)
        throw UsageError("under mpirun every process runs on one GPU: --devices names one");
      if (options_.sweep) throw UsageError("--sweep runs in one process");
      if (options_.wantsImageOutputs())
        throw UsageError("--out-image and --out-palette: a picture is clustered by one process");
      if (options_.inputs.size() > 1) throw UsageError("several processes take one INPUT");
      if (!options_.checkpoint.isEmpty() && options_.restarts > 1)
        throw UsageError("--checkpoint saves one start: drop --restarts");
      if (!options_.liveReport.isEmpty() && options_.restarts > 1)
        throw UsageError("--live-report follows one start: drop --restarts");
      if (!options_.resume.isEmpty() && options_.restarts > 1)
        throw UsageError("--resume continues one start: drop --restarts");
      if (!options_.initCentroids.isEmpty() && ranks_ > 1)
        throw UsageError("--init-centroids runs in one process");
      // Outputs written during the run must have somewhere to go before it starts.
      for (const QString& path : {options_.checkpoint, options_.liveReport}) {
        if (path.isEmpty()) continue;
        const QFileInfo folder(QFileInfo(path).absolutePath());
        if (!folder.isDir() || !folder.isWritable())
          throw ExportError(
              path,
              QStringLiteral("the folder %1 cannot be written").arg(folder.absoluteFilePath()));
      }
      if (!options_.rankShares.empty() && options_.rankShares.size() != std::size_t(ranks_))
        throw UsageError(QStringLiteral("--rank-shares gives %1 shares for %2 processes")
                             .arg(options_.rankShares.size())
                             .arg(ranks_)
                             .toStdString());
    });
    // Ranks started with other options or files would compute other things.
    std::int64_t hash[2] = {optionsHash(options_), -optionsHash(options_)};
    collective_->allReduce(hash, 2, Collective::Op::Max);
    together([&] {
      if (hash[0] != -hash[1])
        throw UsageError(
            "the processes were started with different options or see different input files "
            "(every rank must run the same command on the same file)");
    });
    readStart_ = Clock::now();
    // The share is read on another thread while this one makes the engine (a GPU's context and
    // NCCL's connections take a second or two); neither waits for the other. A text file's
    // ranks find their rows together, through MPI, which only this thread may call and every
    // rank in the same order: it is read here, once the engine is made.
    const bool readTogether = loadShareUsesTheRanks(options_, ranks_);
    std::future<DatasetPtr> reading =
        std::async(readTogether ? std::launch::deferred : std::launch::async,
                   [this] { return loadShare(options_, *collective_); });
    EngineOptions engineOptions;
    // Ranks on one host share its cores.
    engineOptions.cpu_threads = options_.threads > 0
                                    ? options_.threads
                                    : std::max(1, int(std::thread::hardware_concurrency()) /
                                                      (world_ ? world_->localSize() : 1));
    engineOptions.collective = collective_;
    // The backend: every process alike. Auto takes the GPUs when every process has one.
    BackendKind backend =
        options_.backend == BackendKind::Cuda ? BackendKind::Cuda : BackendKind::Cpu;
    if (options_.backend == BackendKind::Auto) {
      std::int64_t gpus = cudaStatus().available ? 1 : 0;
      collective_->allReduce(&gpus, 1, Collective::Op::Min);
      if (gpus) backend = BackendKind::Cuda;
    }
    together([&] {  // a GPU missing anywhere: one message, before the ranks start connecting
      if (backend == BackendKind::Cuda && !cudaStatus().available)
        throw DeviceError("CUDA backend unavailable: " + cudaStatus().reason);
    });
    if (backend == BackendKind::Cuda) {
      // One GPU a process: the one --devices names, else the local rank's.
      const int count = std::max(1, cudaStatus().device_count);
      engineOptions.cuda_device = options_.devices.empty()
                                      ? (world_ ? world_->localRank() : 0) % count
                                      : options_.devices.front();
    }
    std::unique_ptr<Engine> engine;
    const auto engineStart = Clock::now();
    orAbort([&] {
      try {
        engine = createEngine(backend, engineOptions).engine;
      } catch (...) {
        if (!readTogether) reading.wait();  // not left reading into a Run that is going away
        throw;
      }
    });
    const double engineMs = msSince(engineStart);
    together([&] { data_ = reading.get(); });
    // The slowest rank's read (µs, in whole numbers so the maximum is exact).
    std::int64_t readUs = std::int64_t(msSince(readStart_) * 1000.0);
    collective_->allReduce(&readUs, 1, Collective::Op::Max);
    readMs_ = double(readUs) / 1000.0;
    std::int64_t rows = std::int64_t(data_->n);
    collective_->allReduce(&rows, 1, Collective::Op::Sum);
    rows_ = std::size_t(rows);
    if (!options_.checkpoint.isEmpty() || !options_.resume.isEmpty()) {
      // The data set's hash: the wrapping sum of its rows' hashes, any split of the rows alike.
      std::int64_t hashSum = std::int64_t(dataHash(*data_, engineOptions.cpu_threads));
      collective_->allReduce(&hashSum, 1, Collective::Op::Sum);
      dataHash_ = std::uint64_t(hashSum);
    }
    phases_.push_back({QStringLiteral("reading the shares (slowest rank)"), readMs_});
    phases_.push_back({QStringLiteral("engine (beside the reading)"), engineMs});
    KMeansConfig config = options_.config;
    // Every rank knows the rows of all: every rank chooses alike.
    if (!options_.initGiven)
      config.init = defaultInitFor(rows_, data_->d, config.k, backend == BackendKind::Cuda);
    init_ = config.init;
    const auto setDataStart = Clock::now();
    together([&] {
      engine->setData(data_->view());
      if (!options_.resume.isEmpty()) {
        resume_ = readCheckpoint(options_.resume);
        const Checkpoint& c = *resume_;
        const QString name = QFileInfo(options_.resume).fileName();
        if (c.rows != rows_ || c.d != data_->d || c.dataHash != dataHash_)
          throw LoadError(
              name, QStringLiteral("saved for another data set (%1 × %2, here %3 × %4%5)")
                        .arg(groupedCount(c.rows))
                        .arg(c.d)
                        .arg(groupedCount(rows_))
                        .arg(data_->d)
                        .arg(c.rows == rows_ && c.d == data_->d ? QStringLiteral(", other values")
                                                                : QString()));
        if (options_.kGiven && options_.config.k != c.k)
          throw LoadError(
              name, QStringLiteral("saved for k = %1, not -k %2").arg(c.k).arg(options_.config.k));
        if (c.iteration >= options_.config.max_iterations)
          throw LoadError(name, QStringLiteral("saved after iteration %1; --max-iter %2 leaves "
                                               "nothing to run")
                                    .arg(c.iteration)
                                    .arg(options_.config.max_iterations));
        config.k = c.k;
        config.seed = c.seed;
        config.tolerance = c.tolerance;
        config.empty_clusters = c.emptyClusters;
        config.init = InitMethod::Given;
        config.initial_centroids = c.before;
        config.initial_centroids_centred = true;
        config.max_iterations = options_.config.max_iterations - (c.iteration - 1);
      }
      validateConfig(config, rows_, data_->d);
    });
    phases_.push_back({QStringLiteral("data to the engine"), msSince(setDataStart)});
    say(QStringLiteral("input: %1 (%2 points × %3 dimensions; %4 process%5, %6 rows each at most)")
            .arg(options_.generate ? QStringLiteral("generated data") : data_->displayName)
            .arg(groupedCount(rows_))
            .arg(data_->d)
            .arg(ranks_)
            .arg(ranks_ == 1 ? "" : "es")
            .arg(groupedCount(data_->n)));
    const BackendInfo info = engine->info();
    say(QStringLiteral("backend: %1 (%2)")
            .arg(QString::fromStdString(info.backend), QString::fromStdString(info.device)));
    if (resume_)
      say(QStringLiteral("resuming after iteration %1 from %2")
              .arg(resume_->iteration)
              .arg(options_.resume));
    Finished finished;
    orAbort([&] {
      if (options_.restarts > 1) {
        std::vector<int> numbers;
        for (int s = 0; s < options_.restarts; ++s)
          numbers.push_back(s);
        const auto outcomes = engine->runStarts(config, numbers);
        const int best = bestOutcome(outcomes);
        for (const StartOutcome& o : outcomes)
          finished.starts.push_back(summarizeStart(o, rows_, config.tolerance));
        const StartOutcome& chosen = outcomes[std::size_t(best)];
        finished.best = best;
        finished.centred = chosen.centred_centroids;
        finished.centroids = chosen.centroids;
        finished.iterations = chosen.iterations;
        finished.converged = chosen.converged;
        finished.stopRule = finished.starts[std::size_t(best)].stopRule;
      } else {
        finished = runOneStart(*engine, config);
      }
    });
    orAbort([&] { writeOutputs(*engine, finished); });
    QStringList parts;
    for (const auto& [name, ms] : phases_)
      parts << QStringLiteral("%1 %2 ms").arg(name).arg(ms, 0, 'f', 1);
    say(QStringLiteral("phases: ") + parts.join(QStringLiteral(", ")));
  } catch (const AlreadyReported& e) {
    return e.exit;
  }
  return exit_;
}

Finished Run::runOneStart(Engine& engine, KMeansConfig config) {
  const auto seeding = Clock::now();
  engine.initialize(config);
  phases_.push_back({QStringLiteral("seeding"), msSince(seeding)});
  Finished out;
  // With --resume, iteration t runs again (from the centroids after t − 1): its stats are the
  // checkpoint's (the re-run counts every row as changed), its centroids are checked.
  const int offset = resume_ ? resume_->iteration - 1 : 0;
  std::vector<IterationStats> history = resume_ ? resume_->stats : std::vector<IterationStats>{};
  std::vector<float> before = resume_ ? resume_->before : std::vector<float>{};
  const bool checkpointing = !options_.checkpoint.isEmpty();
  if (checkpointing && !resume_) {
    Snapshot s;
    engine.snapshot(s);
    before = s.centred_centroids;
  }
  std::optional<ProgressPrinter> progress;
  if (root() && !options_.quiet) progress.emplace(stdout, rows_, options_.config.max_iterations);
  std::optional<LiveReportWriter> live;
  if (root() && !options_.liveReport.isEmpty()) {
    Snapshot s;
    engine.snapshot(s);
    LiveRunHeader h;
    h.input = options_.generate ? QStringLiteral("generated data") : data_->source;
    h.n = rows_;
    h.d = data_->d;
    h.k = config.k;
    h.ranks = ranks_;
    h.backend = QString::fromStdString(engine.info().backend);
    h.device = QString::fromStdString(engine.info().device);
    h.config = options_.config;
    h.config.init = init_;
    h.config.k = config.k;
    h.config.seed = config.seed;
    h.config.tolerance = config.tolerance;
    // A resumed run's report starts at its re-run iteration: the limit left from there.
    h.config.max_iterations = config.max_iterations;
    h.centroids = s.centroids;
    live.emplace(options_.liveReport, h);
  }
  const auto [killRank, killIteration] = testFault("KMS_TEST_KILL_RANK");
  const auto [failRank, failIteration] = testFault("KMS_TEST_FAIL_RANK");
  Snapshot snap;
  while (!engine.finished()) {
    IterationStats stats = engine.step();
    if (!firstReported_) {
      // From the start of reading to the end of the first iteration, against the reading alone.
      firstReported_ = true;
      const double firstMs = msSince(readStart_);
      phases_.push_back({QStringLiteral("first iteration"), stats.ms.computeMs()});
      say(QStringLiteral("first iteration done %1 ms after reading began; reading the shares "
                         "took %2 ms (the slowest rank): %3×")
              .arg(firstMs, 0, 'f', 1)
              .arg(readMs_, 0, 'f', 1)
              .arg(readMs_ > 0.0 ? firstMs / readMs_ : 0.0, 0, 'f', 2));
    }
    stats.iteration += offset;
    // Each rank's own work: where shares or machines are uneven, the slow rank shows.
    if (ranks_ > 1) stats.rank_ms = collective_->allGather(std::vector<double>{stats.ms.assign_ms});
    // The state after this iteration, once, for whichever needs it.
    const bool rerun = resume_ && stats.iteration == resume_->iteration;
    if (rerun || live || checkpointing) engine.snapshot(snap);
    if (rerun) {
      if (std::memcmp(snap.centred_centroids.data(), resume_->after.data(),
                      resume_->after.size() * sizeof(float)) != 0)
        throw LoadError(QFileInfo(options_.resume).fileName(),
                        QStringLiteral("does not continue this run: iteration %1 gives other "
                                       "centroids here (other options or data?)")
                            .arg(resume_->iteration));
      stats = resume_->stats.back();
    } else {
      history.push_back(stats);
    }
    if (progress) progress->iteration(stats);
    if (live) live->iteration({stats, snap.centroids});
    if (rank_ == killRank && stats.iteration == killIteration) std::raise(SIGKILL);
    if (rank_ == failRank && stats.iteration == failIteration)
      throw std::runtime_error("a failure for the tests (KMS_TEST_FAIL_RANK) at iteration " +
                               std::to_string(stats.iteration));
    if (checkpointing) {
      if (stats.iteration % options_.checkpointEvery == 0 && root() && !engine.finished()) {
        Checkpoint c;
        c.rows = rows_;
        c.d = data_->d;
        c.k = config.k;
        c.seed = config.seed;
        c.init = init_;
        c.emptyClusters = config.empty_clusters;
        c.tolerance = config.tolerance;
        c.dataHash = dataHash_;
        c.iteration = stats.iteration;
        c.before = before;
        c.after = snap.centred_centroids;
        c.stats = history;
        writeCheckpoint(options_.checkpoint, c);
      }
      before = snap.centred_centroids;
    }
  }
  if (progress) progress->finish();
  if (live)
    live->end({engine.converged(), QString::fromUtf8(describe(engine.stopRule(rows_)).data())});
  engine.snapshot(snap);
  out.centred = snap.centred_centroids;
  out.centroids = snap.centroids;
  out.iterations = history;
  out.converged = engine.converged();
  out.stopRule = engine.stopRule(rows_);
  StartSummary s;
  s.seed = config.seed;
  s.iterations = int(history.size());
  s.converged = out.converged;
  s.inertia = history.empty() ? 0.0 : history.back().inertia;
  s.stopRule = out.stopRule;
  out.starts.push_back(s);
  return out;
}

void Run::writeOutputs(Engine& engine, const Finished& run) {
  // Every row's label, gathered on rank 0, when an output needs them (the centroids' shares).
  const bool needLabels = !options_.outLabels.isEmpty() || !options_.outCentroids.isEmpty();
  std::vector<std::int32_t> mine, labels;
  if (needLabels) {
    engine.assign(run.centred, mine);
    labels = world_ ? world_->gatherToRoot(mine) : mine;
  }
  const int k = int(run.centroids.size() / std::size_t(data_->d));
  const int iterations = int(run.iterations.size());
  say(run.converged ? QStringLiteral("converged after %1 iteration%2: %3")
                          .arg(iterations)
                          .arg(iterations == 1 ? "" : "s")
                          .arg(QString::fromStdString(std::string(describe(run.stopRule))))
                    : QStringLiteral("not converged: stopped at the limit of %1 iterations")
                          .arg(options_.config.max_iterations));
  if (!run.iterations.empty())
    say(QStringLiteral("final inertia %1").arg(run.iterations.back().inertia, 0, 'e', 6));
  if (!root()) return;
  // The whole data set as the outputs see it: its rows' count and names (no values needed).
  Dataset all;
  all.source = data_->source;
  all.displayName = data_->displayName;
  all.n = rows_;
  all.d = data_->d;
  all.dimensionNames = data_->dimensionNames;
  const std::vector<double> shares =
      needLabels ? clusterShares(all, labels, k) : std::vector<double>();
  if (!options_.outLabels.isEmpty()) {
    writeLabelsCsv(options_.outLabels, all, labels);
    say(QStringLiteral("wrote ") + options_.outLabels);
  }
  if (!options_.outCentroids.isEmpty()) {
    writeCentroidsCsv(options_.outCentroids, run.centroids, data_->d, data_->dimensionNames,
                      shares);
    say(QStringLiteral("wrote ") + options_.outCentroids);
  }
  if (!options_.report.isEmpty()) {
    RunReport report;
    report.input = data_->source;
    report.n = rows_;
    report.rows = rows_;
    report.d = data_->d;
    report.config = options_.config;
    report.compaction = QStringLiteral("never");
    report.rowNoun = QStringLiteral("points");
    report.backend = QString::fromStdString(engine.info().backend);
    report.device = QString::fromStdString(engine.info().device);
    report.iterations = run.iterations;
    report.starts = run.starts;
    report.bestStart = run.best;
    report.converged = run.converged;
    report.stopRule = run.stopRule;
    report.wallSeconds = std::chrono::duration<double>(Clock::now() - start_).count();
    writeRunReport(options_.report, report);
    say(QStringLiteral("wrote ") + options_.report);
  }
}

}  // namespace

int runDistributed(const CliOptions& options, MpiWorld* world) {
  return Run(options, world).execute();
}

}  // namespace kms::app::cli
