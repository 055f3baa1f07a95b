#include "cli/trace_run.h"

#include <QFileInfo>
#include <QSaveFile>

#include <cstdio>

#include "cli/options.h"
#include "core/run_trace.h"
#include "core/trace_compare.h"
#include "io/trace.h"

namespace kms::app::cli {

int writeRunTrace(const CliOptions& options, const Dataset& data, const ClusteringInput& input,
                  Engine& engine, std::uint64_t seed) {
  if (data.isImage()) throw UsageError("--trace: traces are written for point files, not pictures");
  KMeansConfig config = options.config;
  config.seed = seed;
  const RunTrace trace = recordRunTrace(input, config, engine,
                                        QStringLiteral("kmeans-cli " KMS_VERSION " (%1)")
                                            .arg(QString::fromStdString(engine.info().device)));
  writeTrace(options.trace, trace);
  return trace.iterations();
}

void compareTraceCommand(const CliOptions& options, const Dataset& data) {
  const RunTrace trace = readTrace(options.compareTrace);
  const QString name = QFileInfo(options.compareTrace).fileName();
  const bool print = options.report.isEmpty() || !options.quiet;
  const auto line = [&](const QString& text) {
    if (print) std::printf("%s\n", text.toUtf8().constData());
  };
  line(QStringLiteral("trace %1: k = %2, d = %3, %4 iterations%5%6")
           .arg(name)
           .arg(trace.k)
           .arg(trace.d)
           .arg(trace.iterations())
           .arg(trace.source.isEmpty() ? QString() : QStringLiteral(", from ") + trace.source)
           .arg(trace.labels.empty() ? QString() : QStringLiteral(", with labels")));
  for (const QString& note : trace.notes)
    line(QStringLiteral("note: ") + note);
  CompareOptions compare;
  compare.emptyClusters = options.config.empty_clusters;
  compare.tolerance = options.config.tolerance > 0 ? options.config.tolerance : 1e-4;
  compare.threads = options.threads;
  const TraceComparison comparison = compareTrace(data, trace, name, compare);
  if (print) std::fputs(formatComparison(comparison).toUtf8().constData(), stdout);
  if (!options.report.isEmpty()) {
    QSaveFile file(options.report);
    const QByteArray json = comparisonJson(comparison, name);
    if (!file.open(QIODevice::WriteOnly) || file.write(json) != json.size() || !file.commit())
      throw ExportError(options.report, file.errorString());
  }
}

}  // namespace kms::app::cli
