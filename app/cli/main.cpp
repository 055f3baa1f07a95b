// kmeans-cli: headless colour quantisation and point clustering. Usage and exit status: --help,
// cli/options.cpp and cli/exit_codes.h.
#include <QCoreApplication>
#include <QGuiApplication>

#include <cstdio>

#include <cstring>
#include <memory>
#include <optional>

#include "cli/distributed_run.h"
#include "cli/exit_codes.h"
#include "cli/mpi_world.h"
#include "cli/options.h"
#include "cli/run.h"

namespace {

/// --animate is on the command line (before Qt's parser runs: it decides the application type).
bool drawsClip(int argc, char** argv) {
  for (int i = 1; i < argc; ++i)
    if (std::strcmp(argv[i], "--animate") == 0 || std::strncmp(argv[i], "--animate=", 10) == 0)
      return true;
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace kms::app::cli;
  // Under mpirun / srun every process is one rank of the run (cli/distributed_run.h).
  const int launched = launcherWorldSize();
  if (launched > 1 && !mpiBuilt()) {
    std::fprintf(stderr,
                 "kmeans-cli: started as one of %d processes, but this build has no MPI (built "
                 "without MPI: install libopenmpi-dev and rebuild); run it as one process\n",
                 launched);
    return kBadArguments;
  }
  std::optional<MpiWorld> world;
  if (launched > 0 && mpiBuilt()) world.emplace(&argc, &argv);
  // QImage reading and writing need no GUI platform, so a core application is enough; drawing a
  // clip's text needs fonts, which a GUI application on the offscreen platform provides without
  // a display.
  std::unique_ptr<QCoreApplication> application;
  if (drawsClip(argc, argv)) {
    qputenv("QT_QPA_PLATFORM", "offscreen");
    application = std::make_unique<QGuiApplication>(argc, argv);
  } else {
    application = std::make_unique<QCoreApplication>(argc, argv);
  }
  QCoreApplication::setApplicationName(QStringLiteral("kmeans-cli"));
  QCoreApplication::setApplicationVersion(QStringLiteral(KMS_VERSION));
  CliOptions options;
  try {
    options = parseCommandLine(QCoreApplication::arguments());
  } catch (const UsageError& e) {
    if (!world || world->rank() == 0)  // every rank parses the same line: one message
      std::fprintf(stderr, "kmeans-cli: %s\nTry 'kmeans-cli --help'.\n", e.what());
    return kBadArguments;
  }
  if (world && world->size() > 1 && !options.animate.isEmpty()) {
    if (world->rank() == 0)
      std::fprintf(stderr,
                   "kmeans-cli: --animate draws a run of one process; run it without mpirun "
                   "(the same seed gives the same run)\nTry 'kmeans-cli --help'.\n");
    return kBadArguments;
  }
  if ((world && world->size() > 1) || needsDistributedPath(options))
    return runDistributed(options, world ? &*world : nullptr);
  return run(options);
}
