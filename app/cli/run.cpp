#include "cli/run.h"

#include <QFileInfo>

#include <chrono>
#include <cstdio>

#include "cli/exit_codes.h"
#include "cli/progress.h"
#include "core/format.h"
#include "io/export.h"
#include "io/load.h"
#include "kmeans/errors.h"

namespace kms::app::cli {
namespace {

/// What a finished run produced.
struct Result {
  Snapshot snapshot;
  RunReport report;
  double loopSeconds = 0.0;  ///< wall time of the iterations alone
};

/// Writes a line to stdout unless --quiet.
class Console {
 public:
  explicit Console(bool quiet) : quiet_(quiet) {}
  void line(const QString& text) const {
    if (!quiet_) std::fprintf(stdout, "%s\n", text.toUtf8().constData());
  }

 private:
  bool quiet_;
};

QString fromStd(std::string_view s) {
  return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

DatasetPtr obtainData(const CliOptions& options) {
  if (!options.generate) return loadDataset(options.input);
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

void printHeader(const Console& console, const Dataset& data, const CreatedEngine& created,
                 const KMeansConfig& config) {
  QString input = QStringLiteral("input: %1 (%2 points × %3 dimensions)")
                      .arg(data.displayName, groupedCount(data.n))
                      .arg(data.d);
  if (data.isImage()) input += QStringLiteral(", %1 × %2 pixels").arg(data.width).arg(data.height);
  console.line(input);
  const BackendInfo info = created.engine->info();
  console.line(QStringLiteral("backend: %1 (%2)").arg(fromStd(info.backend), fromStd(info.device)));
  if (!created.note.empty()) console.line(QStringLiteral("note: ") + fromStd(created.note));
  console.line(QStringLiteral("k = %1, init %2, seed %3, at most %4 iterations, tolerance %5")
                   .arg(config.k)
                   .arg(fromStd(toString(config.init)))
                   .arg(config.seed)
                   .arg(config.max_iterations)
                   .arg(config.tolerance));
}

Result cluster(const CliOptions& options, const Dataset& data, const Console& console) {
  EngineOptions engineOptions;
  engineOptions.cpu_threads = options.threads;
  const CreatedEngine created = createEngine(options.backend, engineOptions);
  Engine& engine = *created.engine;
  printHeader(console, data, created, options.config);

  const auto start = std::chrono::steady_clock::now();
  engine.setData(data.view());
  engine.initialize(options.config);
  Result result;
  {
    std::optional<ProgressPrinter> progress;
    if (!options.quiet) progress.emplace(stdout, data.n, options.config.max_iterations);
    const auto loop = std::chrono::steady_clock::now();
    while (!engine.finished()) {
      result.report.iterations.push_back(engine.step());
      if (progress) progress->iteration(result.report.iterations.back());
    }
    result.loopSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - loop).count();
  }
  engine.snapshot(result.snapshot);
  const std::chrono::duration<double> wall = std::chrono::steady_clock::now() - start;

  RunReport& report = result.report;
  report.input = inputDescription(options, data);
  report.n = data.n;
  report.d = data.d;
  report.config = options.config;
  report.backend = fromStd(engine.info().backend);
  report.device = fromStd(engine.info().device);
  report.backendNote = fromStd(created.note);
  report.converged = engine.converged();
  report.wallSeconds = wall.count();
  return result;
}

void printSummary(const Console& console, const Result& result, int maxIterations) {
  const RunReport& r = result.report;
  const int iterations = int(r.iterations.size());
  console.line(r.converged ? QStringLiteral("converged after %1 iteration%2")
                                 .arg(iterations)
                                 .arg(iterations == 1 ? "" : "s")
                           : QStringLiteral("not converged: stopped at the limit of %1 iterations")
                                 .arg(maxIterations));
  if (!r.iterations.empty())
    console.line(QStringLiteral("final inertia %1").arg(r.iterations.back().inertia, 0, 'e', 6));
  double computeMs = 0.0;
  for (const IterationStats& s : r.iterations)
    computeMs += s.ms.computeMs();
  console.line(QStringLiteral("time: %1 ms in iterations (%2 ms per iteration), %3 ms wall")
                   .arg(computeMs, 0, 'f', 2)
                   .arg(iterations ? computeMs / iterations : 0.0, 0, 'f', 3)
                   .arg(r.wallSeconds * 1000.0, 0, 'f', 2));
  if (iterations > 0 && result.loopSeconds > 0.0)
    console.line(
        QStringLiteral("rate: %1 iterations/s (wall clock, from the first iteration to the last)")
            .arg(iterations / result.loopSeconds, 0, 'f', 1));
}

void writeOutputs(const CliOptions& options, const Dataset& data, const Result& result,
                  const Console& console) {
  const Snapshot& s = result.snapshot;
  const std::vector<double> shares = clusterShares(data, s.labels, s.k);
  const auto wrote = [&](const QString& path) { console.line(QStringLiteral("wrote ") + path); };
  if (!options.outImage.isEmpty()) {
    writeImage(options.outImage, quantizedImage(data, s.centroids, s.labels));
    wrote(options.outImage);
  }
  if (!options.outPalette.isEmpty()) {
    if (QFileInfo(options.outPalette).suffix().compare(u"gpl", Qt::CaseInsensitive) == 0)
      writePaletteGpl(options.outPalette, s.centroids, shares,
                      QStringLiteral("%1 — %2 colours").arg(data.displayName).arg(s.k));
    else
      writePaletteHex(options.outPalette, s.centroids, shares);
    wrote(options.outPalette);
  }
  if (!options.outLabels.isEmpty()) {
    writeLabelsCsv(options.outLabels, s.labels);
    wrote(options.outLabels);
  }
  if (!options.outCentroids.isEmpty()) {
    writeCentroidsCsv(options.outCentroids, s.centroids, s.d, data.dimensionNames, shares);
    wrote(options.outCentroids);
  }
  if (!options.report.isEmpty()) {
    writeRunReport(options.report, result.report);
    wrote(options.report);
  }
}

/// The input's name for messages about it: the file name, or "generated data".
QString inputName(const CliOptions& options) {
  return options.generate ? QStringLiteral("generated data") : QFileInfo(options.input).fileName();
}

int execute(const CliOptions& options) {
  const Console console(options.quiet);
  const DatasetPtr data = obtainData(options);
  if (options.wantsImageOutputs() && !data->isImage())
    throw UsageError(inputName(options).toStdString() +
                     ": --out-image and --out-palette need an image input; this is a point file");
  Result result;
  try {
    validateConfig(options.config, data->n, data->d);  // before printing anything
    result = cluster(options, *data, console);
  } catch (const InvalidArgument& e) {
    throw LoadError(options.generate ? inputName(options) : options.input,
                    QString::fromUtf8(e.what()));
  }
  printSummary(console, result, options.config.max_iterations);
  writeOutputs(options, *data, result, console);
  return kSuccess;
}

void printError(const char* message) {
  std::fprintf(stderr, "kmeans-cli: %s\n", message);
}

}  // namespace

int run(const CliOptions& options) {
  try {
    return execute(options);
  } catch (const UsageError& e) {
    printError(e.what());
    return kBadArguments;
  } catch (const LoadError& e) {
    printError(e.what());
    return kBadInput;
  } catch (const DeviceError& e) {
    printError(e.what());
    return kDeviceError;
  } catch (const ExportError& e) {
    printError(e.what());
    return kExportFailure;
  } catch (const std::exception& e) {
    printError(e.what());
    return kBadInput;
  }
}

}  // namespace kms::app::cli
