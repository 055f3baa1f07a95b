#include "cli/run.h"

#include <QDir>
#include <QFileInfo>
#include <QLocale>

#include <chrono>
#include <cstdio>
#include <future>
#include <new>
#include <optional>

#include "cli/clip_command.h"
#include "cli/exit_codes.h"
#include "cli/progress.h"
#include "cli/sweep_run.h"
#include "cli/trace_run.h"
#include "core/cluster_input.h"
#include "core/dither.h"
#include "core/format.h"
#include "core/quality.h"
#include "io/export.h"
#include "io/load.h"
#include "kmeans/errors.h"
#include "kmeans/refine.h"

namespace kms::app::cli {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

/// Wall time of a command's phases, in the order they ran.
class PhaseClock {
 public:
  PhaseClock() : last_(Clock::now()) {}
  /// The time since the previous mark (or the clock's start) is phase `name`.
  void mark(const QString& name) {
    const auto now = Clock::now();
    phases_.emplace_back(name, std::chrono::duration<double, std::milli>(now - last_).count());
    last_ = now;
  }
  void add(const QString& name, double ms) { phases_.emplace_back(name, ms); }
  /// Restarts the interval without recording it.
  void skip() { last_ = Clock::now(); }
  const std::vector<std::pair<QString, double>>& phases() const { return phases_; }

 private:
  Clock::time_point last_;
  std::vector<std::pair<QString, double>> phases_;
};

/// What a finished run produced.
struct Result {
  std::vector<float> centroids;       ///< k × d of the best start, in the engine's space
  std::vector<std::int32_t> labels;   ///< one per data set row
  std::vector<float> shownCentroids;  ///< k × d in the data set's space (sRGB for pictures)
  std::vector<QRgb> palette;          ///< pictures: the cluster colours
  RunReport report;
  double loopSeconds = 0.0;  ///< wall time of the iterations alone
};

/// Writes a line to stdout unless --quiet; to stderr when an output goes to stdout.
class Console {
 public:
  explicit Console(const CliOptions& options)
      : quiet_(options.quiet), out_(options.writesToStdout() ? stderr : stdout) {}
  void line(const QString& text) const {
    if (!quiet_) std::fprintf(out_, "%s\n", text.toUtf8().constData());
  }
  bool quiet() const { return quiet_; }
  std::FILE* stream() const { return out_; }

 private:
  bool quiet_;
  std::FILE* out_;
};

QString fromStd(std::string_view s) {
  return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

DatasetPtr obtainData(const CliOptions& options, const Console& console,
                      const std::future<CreatedEngine>& engine) {
  if (!options.generate) {
    LoadOptions load;
    load.maxValues = kCliMaxValues;
    load.compactOnDevice = options.backend != BackendKind::Cpu;  // the GPU will be busy anyway
    // Not while the engine (the GPU's context) is still being made: the CPU's threads find the
    // colours sooner than the wait for it would end.
    load.deviceReady = [&engine] {
      return !engine.valid() ||
             engine.wait_for(std::chrono::seconds(0)) == std::future_status::ready;
    };
    // On a terminal, a large file shows how far reading it got (redrawn in place).
    std::optional<LoadingBar> bar;
    if (!console.quiet()) bar.emplace(console.stream(), QFileInfo(options.input).fileName());
    if (bar && bar->shown()) load.progress = [&](double fraction) { bar->update(fraction); };
    return loadDataset(options.input, load);
  }
  try {
    return generateDataset(*options.generate);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--generate: ") + e.what());
  }
}

/// How the input is named in the report: the file, or the generator call that rebuilds it.
QString inputDescription(const CliOptions& options, const Dataset& data) {
  if (!options.generate) return data.source;
  const GeneratorParams& g = *options.generate;
  return QStringLiteral("generator:%1 points=%2 groups=%3 dims=%4 noise=%5 seed=%6")
      .arg(toString(g.kind))
      .arg(g.n)
      .arg(g.groups)
      .arg(g.d)
      .arg(g.noise)
      .arg(g.seed);
}

void printHeader(const Console& console, const Dataset& data, const ClusteringInput& input,
                 const CreatedEngine& created, const CliOptions& options) {
  QString text = QStringLiteral("input: %1 (").arg(data.displayName);
  if (data.isImage())
    text += QStringLiteral("%1 × %2 pixels").arg(data.width).arg(data.height);
  else
    text +=
        QStringLiteral("%1 points × %2 dimensions").arg(groupedCount(data.itemCount())).arg(data.d);
  text += QStringLiteral("; clustering %1 %2").arg(groupedCount(input.rows()), input.rowNoun());
  if (input.space() != ColourSpace::SRGB)
    text += QStringLiteral(" in %1").arg(fromStd(toString(input.space())));
  console.line(text + QStringLiteral(")"));
  for (const QString& note : data.notes)
    console.line(QStringLiteral("note: ") + note);
  const BackendInfo info = created.engine->info();
  console.line(QStringLiteral("backend: %1 (%2)").arg(fromStd(info.backend), fromStd(info.device)));
  if (!created.note.empty()) console.line(QStringLiteral("note: ") + fromStd(created.note));
  const KMeansConfig& config = options.config;
  QString settings = QStringLiteral("k = %1, init %2, seed %3, at most %4 iterations, tolerance %5")
                         .arg(config.k)
                         .arg(fromStd(toString(config.init)))
                         .arg(config.seed)
                         .arg(config.max_iterations)
                         .arg(config.tolerance);
  if (options.restarts > 1) settings += QStringLiteral(", best of %1 starts").arg(options.restarts);
  console.line(settings);
}

/// The palette and the per-row labels of the engine's current state.
struct State {
  std::vector<std::int32_t> labels;
  std::vector<float> shown;
  std::vector<QRgb> palette;
};

State readState(Engine& engine, const ClusteringInput& input, Snapshot& snapshot) {
  engine.snapshot(snapshot);
  State state;
  input.toDatasetRows(snapshot.labels, state.labels);
  state.shown = input.toDatasetSpace(snapshot.centroids);
  if (input.dataset()->isImage()) state.palette = paletteOf(state.shown, input.d());
  return state;
}

/// One start run here, iteration by iteration, with its progress shown live (a single start,
/// or --track-quality measuring every iteration's labels into `measures`).
StartOutcome runShown(Engine& engine, const KMeansConfig& base, int start, const Dataset& data,
                      const ClusteringInput& input, const QualityContext* quality,
                      std::vector<Quality>* measures, const Console& console) {
  KMeansConfig config = base;
  config.seed = base.seed + std::uint64_t(start);
  engine.initialize(config);
  StartOutcome outcome;
  outcome.start = start;
  outcome.seed = config.seed;
  std::optional<ProgressPrinter> progress;
  if (!console.quiet())
    progress.emplace(console.stream(), std::size_t(data.clusteredItems()), config.max_iterations);
  Snapshot snapshot;
  // Measuring asks for every iteration's labels: one step at a time then. Otherwise as many as
  // the engine runs without a host round trip between them (Engine::steps).
  while (!engine.finished()) {
    const std::size_t from = outcome.iterations.size();
    if (engine.steps(measures ? 1 : engine.stepsPerCall(), outcome.iterations) == 0) break;
    for (std::size_t i = from; i < outcome.iterations.size(); ++i)
      if (progress) progress->iteration(outcome.iterations[i]);
    if (measures) {
      const State state = readState(engine, input, snapshot);
      measures->push_back(quality->measure(state.labels, state.palette, false));
    }
  }
  outcome.converged = engine.converged();
  engine.snapshot(snapshot);
  outcome.centroids = std::move(snapshot.centroids);
  outcome.centred_centroids = std::move(snapshot.centred_centroids);
  return outcome;
}

/// Prints how a start of a best-of-N run ended: every start up to 16, else every tenth.
class StartLines {
 public:
  StartLines(const Console& console, int starts) : console_(console), starts_(starts) {}
  void finished(const StartOutcome& o, StopRule rule) {
    ++done_;
    if (starts_ > 16 && done_ % std::max(1, starts_ / 10) != 0 && done_ != starts_) return;
    console_.line(QStringLiteral("start %1 (seed %2): %3 iterations, inertia %4, stopped by %5  "
                                 "[%6 of %7 done]")
                      .arg(o.start + 1)
                      .arg(o.seed)
                      .arg(o.iterations.size())
                      .arg(o.inertia(), 0, 'e', 6)
                      .arg(fromStd(describe(rule)))
                      .arg(done_)
                      .arg(starts_));
  }

 private:
  const Console& console_;
  int starts_;
  int done_ = 0;
};

Result cluster(const CliOptions& options, const Dataset& data, const ClusteringInput& input,
               const CreatedEngine& created, const Console& console, PhaseClock& phases) {
  Engine& engine = *created.engine;
  printHeader(console, data, input, created, options);

  const auto start = Clock::now();
  // What the measures need of the picture is prepared beside the engine's work (it is needed
  // only at the end, unless every iteration is measured).
  std::shared_future<std::shared_ptr<const QualityContext>> measuring =
      std::async(std::launch::async, [&data] { return QualityContext::build(data); }).share();
  engine.setData(input.view());
  phases.mark(QStringLiteral("data to the engine"));
  const auto quality = options.trackQuality ? measuring.get() : nullptr;
  const bool track = quality != nullptr;  // pictures only
  const std::size_t points = std::size_t(data.clusteredItems());
  const double tolerance = options.config.tolerance;
  Result result;
  RunReport& report = result.report;
  const auto loop = Clock::now();
  // Every start's outcome, and with --track-quality its measures per iteration.
  std::vector<StartOutcome> outcomes;
  std::vector<std::vector<Quality>> measures;
  if (track || options.restarts == 1) {
    for (int s = 0; s < options.restarts; ++s) {
      if (options.restarts > 1)
        console.line(QStringLiteral("start %1 of %2 (seed %3)")
                         .arg(s + 1)
                         .arg(options.restarts)
                         .arg(options.config.seed + std::uint64_t(s)));
      measures.emplace_back();
      outcomes.push_back(runShown(engine, options.config, s, data, input, quality.get(),
                                  track ? &measures.back() : nullptr, console));
    }
  } else {
    // Best of N in one go: the engine runs the starts as it can (on a GPU, several at once).
    std::vector<int> numbers(std::size_t(options.restarts));
    for (int s = 0; s < options.restarts; ++s)
      numbers[std::size_t(s)] = s;
    StartLines lines(console, options.restarts);
    outcomes = engine.runStarts(options.config, numbers, [&](const StartOutcome& o) {
      if (!o.iterations.empty())
        lines.finished(o, stopRuleOf(o.iterations.back(), true, points, tolerance));
      return true;
    });
  }
  phases.mark(QStringLiteral("starts"));
  const int best = bestOutcome(outcomes);
  if (options.refine && best >= 0) {
    StartOutcome& o = outcomes[std::size_t(best)];
    console.line(QStringLiteral("refining start %1: Hartigan's moves, then Lloyd").arg(best + 1));
    report.refine = refineOutcome(engine, input.view(), options.config, o);
    const RefineReport& r = *report.refine;
    console.line(
        QStringLiteral(
            "refined: %1 moves in %2 passes, then %3 Lloyd iterations; inertia %4 → %5%6")
            .arg(QLocale::system().toString(qulonglong(r.moves)))
            .arg(r.passes)
            .arg(r.lloyd_iterations)
            .arg(r.inertia_before, 0, 'e', 6)
            .arg(r.inertia_after, 0, 'e', 6)
            .arg(r.improved ? QString() : QStringLiteral(" (no lower: the start kept as it was)")));
    phases.mark(QStringLiteral("refinement"));
  }
  for (std::size_t i = 0; i < outcomes.size(); ++i) {
    const StartOutcome& o = outcomes[i];
    StartSummary summary = summarizeStart(o, points, tolerance);
    if (track && !measures[i].empty()) summary.quality = measures[i].back();
    report.starts.push_back(summary);
  }
  StartOutcome& chosen = outcomes[std::size_t(best)];
  report.bestStart = best;
  report.converged = chosen.converged;
  report.stopRule = report.starts[std::size_t(best)].stopRule;
  report.iterations = std::move(chosen.iterations);
  if (track) report.quality = std::move(measures[std::size_t(best)]);
  // Every row's nearest final centroid: the picture's colours mapped to the palette shown.
  std::vector<std::int32_t> engineLabels;
  engine.assign(chosen.centred_centroids, engineLabels);
  input.toDatasetRows(engineLabels, result.labels);
  result.centroids = chosen.centroids;
  result.shownCentroids = input.toDatasetSpace(chosen.centroids);
  if (data.isImage()) result.palette = paletteOf(result.shownCentroids, input.d());
  result.loopSeconds = secondsSince(loop);
  if (const auto measures = measuring.get())
    report.finalQuality = measures->measure(result.labels, result.palette, true);
  phases.mark(QStringLiteral("result and its measures"));

  report.input = data.source;
  report.n = points;
  report.rows = input.rows();
  report.d = data.d;
  report.config = options.config;
  report.colourSpace = data.isImage() ? fromStd(toString(input.space())) : QString();
  report.compaction = fromStd(toString(input.options().compaction));
  report.rowNoun = input.rowNoun();
  report.notes = data.notes;
  report.backend = fromStd(engine.info().backend);
  report.device = fromStd(engine.info().device);
  report.backendNote = fromStd(created.note);
  report.wallSeconds = secondsSince(start);
  if (!options.trace.isEmpty()) {
    const int traced =
        writeRunTrace(options, data, input, engine, report.starts[std::size_t(best)].seed);
    console.line(
        QStringLiteral("wrote the trace of %1 iterations into %2").arg(traced).arg(options.trace));
  }
  return result;
}

void printSummary(const Console& console, const Result& result, int maxIterations) {
  const RunReport& r = result.report;
  if (r.starts.size() > 1)
    console.line(QStringLiteral("best start: %1 (seed %2, inertia %3)")
                     .arg(r.bestStart + 1)
                     .arg(r.starts[std::size_t(r.bestStart)].seed)
                     .arg(r.starts[std::size_t(r.bestStart)].inertia, 0, 'e', 6));
  const int iterations = int(r.iterations.size());
  console.line(r.converged ? QStringLiteral("converged after %1 iteration%2: %3")
                                 .arg(iterations)
                                 .arg(iterations == 1 ? "" : "s")
                                 .arg(fromStd(describe(r.stopRule)))
                           : QStringLiteral("not converged: stopped at the limit of %1 iterations")
                                 .arg(maxIterations));
  if (!r.iterations.empty())
    console.line(QStringLiteral("final inertia %1").arg(r.iterations.back().inertia, 0, 'e', 6));
  if (r.finalQuality.valid())
    console.line(QStringLiteral("quality: PSNR %1 dB, mean ΔE2000 %2")
                     .arg(r.finalQuality.psnr, 0, 'f', 2)
                     .arg(r.finalQuality.deltaE, 0, 'f', 3));
  double computeMs = 0.0;
  for (const IterationStats& s : r.iterations)
    computeMs += s.ms.computeMs();
  console.line(QStringLiteral("time: %1 ms in iterations (%2 ms per iteration), %3 ms wall")
                   .arg(computeMs, 0, 'f', 2)
                   .arg(iterations ? computeMs / iterations : 0.0, 0, 'f', 3)
                   .arg(r.wallSeconds * 1000.0, 0, 'f', 2));
  if (iterations > 0 && result.loopSeconds > 0.0) {
    int total = 0;
    for (const StartSummary& s : r.starts)
      total += s.iterations;
    console.line(
        QStringLiteral("rate: %1 iterations/s (wall clock, from the first iteration to the last)")
            .arg(total / result.loopSeconds, 0, 'f', 1));
  }
}

void writeOutputs(const CliOptions& options, const Dataset& data, const ClusteringInput& input,
                  Result& result, const Console& console, PhaseClock& phases) {
  phases.skip();
  const int k = int(result.centroids.size() / std::size_t(data.d));
  const std::vector<double> shares = clusterShares(data, result.labels, k);
  const auto wrote = [&](const QString& path) { console.line(QStringLiteral("wrote ") + path); };
  if (!options.outImage.isEmpty()) {
    const QImage image =
        options.dither == DitherMode::None
            ? quantizedImage(data, result.palette, result.labels)
            : ditheredImage(input, result.centroids, result.palette, options.dither);
    writeImage(options.outImage, image);
    result.report.dither = fromStd(toString(options.dither));
    wrote(options.outImage);
  }
  if (!options.outPalette.isEmpty()) {
    if (QFileInfo(options.outPalette).suffix().compare(u"gpl", Qt::CaseInsensitive) == 0)
      writePaletteGpl(options.outPalette, result.palette, shares,
                      QStringLiteral("%1 — %2 colours").arg(data.displayName).arg(k));
    else
      writePaletteHex(options.outPalette, result.palette, shares);
    wrote(options.outPalette);
  }
  if (!options.outLabels.isEmpty()) {
    writeLabelsCsv(options.outLabels, data, result.labels);
    wrote(options.outLabels);
  }
  if (!options.outCentroids.isEmpty()) {
    writeCentroidsCsv(options.outCentroids, result.shownCentroids, data.d, data.dimensionNames,
                      shares);
    wrote(options.outCentroids);
  }
  phases.mark(QStringLiteral("outputs"));
  if (!options.report.isEmpty()) {
    result.report.phasesMs = phases.phases();
    result.report.input = inputDescription(options, data);
    writeRunReport(options.report, result.report);
    wrote(options.report);
  }
}

/// The input's name for messages about it: the file name, or "generated data".
QString inputName(const CliOptions& options) {
  return options.generate ? QStringLiteral("generated data") : QFileInfo(options.input).fileName();
}

/// --init-centroids: the file's centroids as the start (k from the file), checked against the
/// data; the options otherwise unchanged.
CliOptions withGivenCentroids(const CliOptions& given, const Dataset& data) {
  CliOptions options = given;
  if (options.initCentroids.isEmpty()) return options;
  if (data.isImage() && options.clustering.colourSpace != ColourSpace::SRGB)
    throw UsageError("--init-centroids takes sRGB values: use it with --colour-space srgb");
  std::vector<float> centroids = loadCentroids(options.initCentroids, data.d);
  const int k = int(centroids.size() / std::size_t(data.d));
  const QString name = QFileInfo(options.initCentroids).fileName();
  if (k < 1) throw LoadError(name, QStringLiteral("no centroids in the file"));
  if (options.kGiven && options.config.k != k)
    throw UsageError("-k " + std::to_string(options.config.k) + " but " + name.toStdString() +
                     " has " + std::to_string(k) + " centroids");
  options.config.k = k;
  options.config.init = InitMethod::Given;
  options.config.initial_centroids = std::move(centroids);
  return options;
}

/// The output paths for this input: "{name}" becomes the input's name without its suffix, and
/// with --out-dir relative names go into that folder (created when missing), which without any
/// output option gets the quantised picture (pictures) or the labels (point files).
CliOptions resolveOutputs(const CliOptions& given, const Dataset& data) {
  CliOptions options = given;
  if (options.outDir.isEmpty() && !options.outputs().join(QString()).contains(u"{name}"))
    return options;
  const QString stem =
      options.generate ? QStringLiteral("generated") : QFileInfo(options.input).completeBaseName();
  const bool anyOutput = !options.outputs().join(QString()).isEmpty();
  if (!options.outDir.isEmpty() && !anyOutput) {
    const QString name = QStringLiteral("{name}-k%1").arg(options.config.k);
    (data.isImage() ? options.outImage : options.outLabels) =
        name + (data.isImage() ? QStringLiteral(".png") : QStringLiteral("-labels.csv"));
  }
  if (!options.outDir.isEmpty() && !QDir().mkpath(options.outDir))
    throw ExportError(options.outDir, QStringLiteral("cannot create the folder"));
  for (QString* out : {&options.outImage, &options.outPalette, &options.outLabels,
                       &options.outCentroids, &options.report, &options.animate}) {
    if (out->isEmpty() || *out == u"-") continue;
    out->replace(QStringLiteral("{name}"), stem);
    if (!options.outDir.isEmpty() && QFileInfo(*out).isRelative())
      *out = QDir(options.outDir).filePath(*out);
  }
  return options;
}

/// "phases: reading 512 ms (decode 300, distinct colours 90), …" — where the wall time went.
QString phasesLine(const std::vector<std::pair<QString, double>>& phases) {
  QStringList parts;
  for (const auto& [name, ms] : phases)
    parts << QStringLiteral("%1 %2 ms").arg(name).arg(ms, 0, 'f', 1);
  return QStringLiteral("phases: ") + parts.join(QStringLiteral(", "));
}

/// The engine, made on another thread while the input loads: a GPU's first use (its context)
/// takes a good part of a second, as long as decoding a large photo.
std::future<CreatedEngine> startEngine(const CliOptions& options) {
  return std::async(std::launch::async,
                    [backend = options.backend, engine = engineOptionsFor(options)] {
                      return createEngine(backend, engine);
                    });
}

int execute(const CliOptions& given) {
  const Console console(given);
  PhaseClock phases;
  std::future<CreatedEngine> early;
  if (!given.sweep) early = startEngine(given);
  const DatasetPtr data = obtainData(given, console, early);
  phases.mark(QStringLiteral("reading"));
  for (const auto& [name, ms] : data->loadMs)
    phases.add(QStringLiteral("  ") + name, ms);
  phases.skip();
  if (!given.compareTrace.isEmpty()) {
    compareTraceCommand(given, *data);
    return kSuccess;
  }
  CliOptions options = resolveOutputs(withGivenCentroids(given, *data), *data);
  if (options.wantsImageOutputs() && !data->isImage())
    throw UsageError(inputName(options).toStdString() +
                     ": --out-image and --out-palette need an image input; this is a point file");
  Result result;
  ClusteringInputPtr input;
  BackendKind backend = BackendKind::Cpu;
  try {
    input = ClusteringInput::build(data, options.clustering);
    if (options.sweep) {
      if (options.wantsImageOutputs() || !options.outLabels.isEmpty() ||
          !options.outCentroids.isEmpty())
        throw UsageError("--sweep writes only --report (the measures of every k)");
      KMeansConfig last = options.config;
      last.k = options.sweep->second;
      input->checkK(last.k);
      validateConfig(last, input->rows(), input->d());
      return runSweepCommand(options, *input);
    }
    input->checkK(options.config.k);  // before printing anything
    validateConfig(options.config, input->rows(), input->d());
    phases.mark(QStringLiteral("clustering input"));
    const CreatedEngine created = early.get();
    phases.mark(QStringLiteral("engine start (beyond the reading)"));
    backend = created.kind;
    if (!options.initGiven && options.config.init != InitMethod::Given)
      options.config.init =
          defaultInitFor(input->rows(), input->d(), options.config.k, backend != BackendKind::Cpu);
    result = cluster(options, *data, *input, created, console, phases);
  } catch (const InvalidArgument& e) {
    throw LoadError(options.generate ? inputName(options) : options.input,
                    QString::fromUtf8(e.what()));
  }
  printSummary(console, result, options.config.max_iterations);
  writeOutputs(options, *data, *input, result, console, phases);
  if (!options.animate.isEmpty()) {
    console.line(writeClip(
        options, input, result.report.starts[std::size_t(result.report.bestStart)].seed, backend));
    phases.mark(QStringLiteral("clip"));
  }
  console.line(phasesLine(phases.phases()));
  return kSuccess;
}

void printError(const char* message) {
  std::fprintf(stderr, "kmeans-cli: %s\n", message);
}

int runOne(const CliOptions& options) {
  try {
    return execute(options);
  } catch (const UsageError& e) {
    printError(e.what());
    return kBadArguments;
  } catch (const LoadError& e) {
    printError(e.what());
    return kBadInput;
  } catch (const DeviceError& e) {
    printError(
        (std::string(e.what()) + " (--backend cpu gives the same result on the CPU)").c_str());
    return kDeviceError;
  } catch (const ExportError& e) {
    printError(e.what());
    return kExportFailure;
  } catch (const std::bad_alloc&) {
    printError((inputName(options) + QStringLiteral(": not enough memory for this input"))
                   .toUtf8()
                   .constData());
    return kBadInput;
  } catch (const std::exception& e) {
    printError(e.what());
    return kBadInput;
  }
}

}  // namespace

int run(const CliOptions& options) {
  if (options.inputs.size() <= 1) return runOne(options);
  const Console console(options);
  const int total = int(options.inputs.size());
  int firstFailure = kSuccess;
  QStringList failed;
  for (int i = 0; i < total; ++i) {
    CliOptions one = options;
    one.input = options.inputs[i];
    one.inputs = {one.input};
    console.line(QStringLiteral("[%1/%2] %3").arg(i + 1).arg(total).arg(one.input));
    const int status = runOne(one);
    if (status != kSuccess) {
      failed << QFileInfo(one.input).fileName();
      if (firstFailure == kSuccess) firstFailure = status;
    }
  }
  if (!failed.isEmpty())
    std::fprintf(stderr, "kmeans-cli: %lld of %d files failed: %s\n", qlonglong(failed.size()),
                 total, failed.join(QStringLiteral(", ")).toUtf8().constData());
  else
    console.line(QStringLiteral("all %1 files done").arg(total));
  return firstFailure;
}

}  // namespace kms::app::cli
