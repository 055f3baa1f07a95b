// kmeans-cli: headless colour quantisation and point clustering. Usage and exit status: --help,
// cli/options.cpp and cli/exit_codes.h.
#include <QCoreApplication>

#include <cstdio>

#include <optional>

#include "cli/distributed_run.h"
#include "cli/exit_codes.h"
#include "cli/mpi_world.h"
#include "cli/options.h"
#include "cli/run.h"

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
  // QImage reading and writing need no GUI platform, so a core application is enough.
  QCoreApplication app(argc, argv);
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
  if ((world && world->size() > 1) || needsDistributedPath(options))
    return runDistributed(options, world ? &*world : nullptr);
  return run(options);
}
