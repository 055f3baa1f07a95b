// kmeans-cli as one rank of several (under mpirun / srun), and runs with --checkpoint / --resume:
// each rank reads its share of a point file, the engine combines through MPI (kmeans/
// collective.h), rank 0 writes the outputs — byte for byte those of one process.
#pragma once

#include "cli/mpi_world.h"
#include "cli/options.h"

namespace kms::app::cli {

/// Runs `options` as rank world->rank() of world->size() (world null: one process, for
/// --checkpoint and --resume). Returns the exit status (cli/exit_codes.h), the same on every
/// rank.
int runDistributed(const CliOptions& options, MpiWorld* world);

/// The options need the distributed path even in one process (checkpoints).
inline bool needsDistributedPath(const CliOptions& options) {
  return !options.checkpoint.isEmpty() || !options.resume.isEmpty() ||
         !options.liveReport.isEmpty();
}

}  // namespace kms::app::cli
