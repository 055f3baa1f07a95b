#include "cli/run.h"

#include <QDir>
#include <QFileInfo>

#include <chrono>
#include <cstdio>
#include <new>
#include <optional>

#include "cli/exit_codes.h"
#include "cli/progress.h"
#include "cli/sweep_run.h"
#include "core/cluster_input.h"
#include "core/dither.h"
#include "core/format.h"
#include "core/quality.h"
#include "io/export.h"
#include "io/load.h"
#include "kmeans/errors.h"

namespace kms::app::cli {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

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

DatasetPtr obtainData(const CliOptions& options, const Console& console) {
  if (!options.generate) {
    LoadOptions load;
    load.compactOnDevice = options.backend != BackendKind::Cpu;  // the GPU will be busy anyway
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

Result cluster(const CliOptions& options, const Dataset& data, const ClusteringInput& input,
               const Console& console) {
  const CreatedEngine created = createEngine(options.backend, engineOptionsFor(options));
  Engine& engine = *created.engine;
  printHeader(console, data, input, created, options);

  const auto start = Clock::now();
  engine.setData(input.view());
  const auto quality = QualityContext::build(data);
  Result result;
  RunReport& report = result.report;
  double bestInertia = std::numeric_limits<double>::infinity();
  Snapshot snapshot;
  const auto loop = Clock::now();
  for (int s = 0; s < options.restarts; ++s) {
    KMeansConfig config = options.config;
    config.seed = options.config.seed + std::uint64_t(s);
    engine.initialize(config);
    std::vector<IterationStats> iterations;
    std::vector<Quality> measures;
    {
      std::optional<ProgressPrinter> progress;
      if (!options.quiet) {
        if (options.restarts > 1)
          console.line(QStringLiteral("start %1 of %2 (seed %3)")
                           .arg(s + 1)
                           .arg(options.restarts)
                           .arg(config.seed));
        progress.emplace(console.stream(), std::size_t(data.clusteredItems()),
                         config.max_iterations);
      }
      // Quality is measured on every iteration's labels: one step at a time then. Otherwise
      // as many as the engine runs without a host round trip between them (Engine::steps; 1
      // unless it loops on the device, so the progress stays live); each iteration is shown.
      while (!engine.finished()) {
        const std::size_t from = iterations.size();
        if (engine.steps(quality ? 1 : engine.stepsPerCall(), iterations) == 0) break;
        for (std::size_t i = from; i < iterations.size(); ++i)
          if (progress) progress->iteration(iterations[i]);
        if (quality) {
          const State state = readState(engine, input, snapshot);
          measures.push_back(quality->measure(state.labels, state.palette, false));
        }
      }
    }
    StartSummary summary;
    summary.start = s;
    summary.seed = config.seed;
    summary.iterations = int(iterations.size());
    summary.converged = engine.converged();
    summary.inertia = iterations.empty() ? 0.0 : iterations.back().inertia;
    if (!measures.empty()) summary.quality = measures.back();
    report.starts.push_back(summary);
    if (summary.inertia < bestInertia) {  // ties keep the earlier start
      bestInertia = summary.inertia;
      report.bestStart = s;
      report.iterations = std::move(iterations);
      report.quality = std::move(measures);
      report.converged = summary.converged;
      State state = readState(engine, input, snapshot);
      result.centroids = snapshot.centroids;
      result.labels = std::move(state.labels);
      result.shownCentroids = std::move(state.shown);
      result.palette = std::move(state.palette);
    }
  }
  result.loopSeconds = secondsSince(loop);
  if (quality) report.finalQuality = quality->measure(result.labels, result.palette, true);

  report.input = data.source;
  report.n = std::size_t(data.clusteredItems());
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
  console.line(r.converged ? QStringLiteral("converged after %1 iteration%2")
                                 .arg(iterations)
                                 .arg(iterations == 1 ? "" : "s")
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
                  Result& result, const Console& console) {
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
  if (!options.report.isEmpty()) {
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
                       &options.outCentroids, &options.report}) {
    if (out->isEmpty() || *out == u"-") continue;
    out->replace(QStringLiteral("{name}"), stem);
    if (!options.outDir.isEmpty() && QFileInfo(*out).isRelative())
      *out = QDir(options.outDir).filePath(*out);
  }
  return options;
}

int execute(const CliOptions& given) {
  const Console console(given);
  const DatasetPtr data = obtainData(given, console);
  const CliOptions options = resolveOutputs(withGivenCentroids(given, *data), *data);
  if (options.wantsImageOutputs() && !data->isImage())
    throw UsageError(inputName(options).toStdString() +
                     ": --out-image and --out-palette need an image input; this is a point file");
  Result result;
  ClusteringInputPtr input;
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
    result = cluster(options, *data, *input, console);
  } catch (const InvalidArgument& e) {
    throw LoadError(options.generate ? inputName(options) : options.input,
                    QString::fromUtf8(e.what()));
  }
  printSummary(console, result, options.config.max_iterations);
  writeOutputs(options, *data, *input, result, console);
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
