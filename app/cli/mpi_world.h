// kmeans-cli's processes under mpirun / srun: MPI started and stopped, the engine's Collective
// over MPI_COMM_WORLD, and what rank 0 gathers for the outputs. Built when CMake finds MPI
// (KMS_HAVE_MPI); otherwise mpiBuilt() is false and a launch of several processes is refused.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kmeans/collective.h"

namespace kms::app::cli {

/// This build can run as one rank of several (found MPI at build time).
bool mpiBuilt();
/// The process was started by an MPI launcher (mpirun, mpiexec, srun): its size, or 0 when not.
int launcherWorldSize();

/// MPI for the life of the object (MPI_Init_thread … MPI_Finalize). One per process.
class MpiWorld {
 public:
  MpiWorld(int* argc, char*** argv);
  ~MpiWorld();
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  int rank() const { return rank_; }
  int size() const { return size_; }
  /// Ranks on this host (the launcher's local size; 1 when it does not say).
  int localSize() const;
  /// This process's place among the ranks on its host (the launcher's local rank; 0 when it
  /// does not say): which GPU it takes.
  int localRank() const;
  std::string host() const;
  std::shared_ptr<Collective> collective();
  /// Every rank's `mine` concatenated in rank order, on rank 0 (empty elsewhere).
  std::vector<std::int32_t> gatherToRoot(const std::vector<std::int32_t>& mine);
  /// Ends every rank of the job with `code` (a rank that cannot go on while others wait).
  [[noreturn]] void abortAll(int code);

 private:
  int rank_ = 0, size_ = 1;
};

}  // namespace kms::app::cli
