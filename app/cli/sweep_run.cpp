#include "cli/sweep_run.h"

#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <cstdio>

#include "cli/exit_codes.h"
#include "core/sweep.h"
#include "io/save_file.h"
#include "kmeans/backend.h"

namespace kms::app::cli {

int runSweepCommand(const CliOptions& options, const ClusteringInput& input) {
  const CreatedEngine created = createEngine(options.backend, engineOptionsFor(options));
  Engine& engine = *created.engine;
  engine.setData(input.view());
  SweepOptions sweep;
  sweep.kFrom = options.sweep->first;
  sweep.kTo = options.sweep->second;
  sweep.restarts = options.restarts;
  sweep.base = options.config;
  const int total = (sweep.kTo - sweep.kFrom + 1) * sweep.restarts;
  const SweepResult result = runSweep(engine, input.view(), sweep, [&](int done, int) {
    if (!options.quiet) std::fprintf(stderr, "\rsweep: %d of %d runs", done, total);
    return true;
  });
  if (!options.quiet) std::fprintf(stderr, "\n");
  if (!options.quiet) {
    std::printf("backend: %s (%s)\n", engine.info().backend.c_str(), engine.info().device.c_str());
    std::printf("%4s  %14s  %10s  %12s  %12s  %6s  %8s\n", "k", "inertia", "silhouette",
                "calinski-h.", "davies-b.", "iters", "seconds");
    for (const SweepRow& r : result.rows)
      std::printf("%4d  %14.6e  %10.4f  %12.4g  %12.4f  %6d  %8.3f%s\n", r.k, r.inertia,
                  r.silhouette, r.calinskiHarabasz, r.daviesBouldin, r.iterations, r.seconds,
                  r.k == result.elbowK ? "  <- elbow" : "");
    std::printf("silhouette over %zu rows%s\n", result.silhouetteRows,
                result.silhouetteSampled ? " (a seeded sample)" : " (all of them, exact)");
  }
  std::printf("elbow: k = %d (%s)\n", result.elbowK, SweepResult::kElbowRule);
  std::fflush(stdout);
  if (!options.report.isEmpty()) {
    QJsonArray rows;
    for (const SweepRow& r : result.rows)
      rows.append(QJsonObject{{"k", r.k},
                              {"inertia", r.inertia},
                              {"silhouette", r.silhouette},
                              {"calinski_harabasz", r.calinskiHarabasz},
                              {"davies_bouldin", r.daviesBouldin},
                              {"iterations", r.iterations},
                              {"converged", r.converged},
                              {"best_start", r.bestStart},
                              {"seconds", r.seconds}});
    const QJsonObject report{
        {"kind", "sweep"},
        {"input", options.input},
        {"restarts", options.restarts},
        {"seed", double(options.config.seed)},
        {"backend", QString::fromStdString(engine.info().backend)},
        {"device", QString::fromStdString(engine.info().device)},
        {"rows", rows},
        {"elbow", QJsonObject{{"k", result.elbowK}, {"rule", SweepResult::kElbowRule}}},
        {"silhouette", QJsonObject{{"rows", double(result.silhouetteRows)},
                                   {"sampled", result.silhouetteSampled}}}};
    io::saveFile(options.report,
                 [&](QIODevice& device) { device.write(QJsonDocument(report).toJson()); });
    if (!options.quiet) std::printf("wrote %s\n", qPrintable(options.report));
  }
  return kSuccess;
}

}  // namespace kms::app::cli
