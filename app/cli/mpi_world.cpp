#include "cli/mpi_world.h"

#include <algorithm>
#include <cstdlib>
#include <stdexcept>

#if KMS_HAVE_MPI
#include <mpi.h>
#endif

namespace kms::app::cli {
namespace {

int environmentInt(const char* name) {
  const char* v = std::getenv(name);
  return v ? std::atoi(v) : 0;
}

}  // namespace

int launcherWorldSize() {
  // Open MPI, MPICH / Intel MPI (Hydra), PMIx and Slurm's srun say so in the environment.
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS"})
    if (const int size = environmentInt(name); size > 0) return size;
  if (std::getenv("SLURM_STEP_ID") && environmentInt("SLURM_NTASKS") > 0)
    return environmentInt("SLURM_NTASKS");
  return 0;
}

#if KMS_HAVE_MPI

bool mpiBuilt() {
  return true;
}

namespace {

void check(int code, const char* what) {
  if (code == MPI_SUCCESS) return;
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  throw std::runtime_error(std::string(what) + ": " + std::string(text, std::size_t(length)));
}

MPI_Op toMpi(Collective::Op op) {
  switch (op) {
    case Collective::Op::Sum:
      return MPI_SUM;
    case Collective::Op::Min:
      return MPI_MIN;
    case Collective::Op::Max:
      return MPI_MAX;
  }
  return MPI_SUM;
}

/// Collective over MPI_COMM_WORLD. int64 sums are MPI_INT64_T sums: two's complement, exact.
class MpiCollective final : public Collective {
 public:
  MpiCollective(int rank, int size) : rank_(rank), size_(size) {}
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void allReduce(std::int64_t* values, std::size_t count, Op op) override {
    check(MPI_Allreduce(MPI_IN_PLACE, values, int(count), MPI_INT64_T, toMpi(op), MPI_COMM_WORLD),
          "MPI_Allreduce");
  }
  void allReduce(float* values, std::size_t count, Op op) override {
    if (op == Op::Sum) throw std::logic_error("a float sum would depend on the order");
    check(MPI_Allreduce(MPI_IN_PLACE, values, int(count), MPI_FLOAT, toMpi(op), MPI_COMM_WORLD),
          "MPI_Allreduce");
  }
  std::vector<double> allGather(const std::vector<double>& mine) override {
    return gather(mine, MPI_DOUBLE);
  }
  std::vector<float> allGather(const std::vector<float>& mine) override {
    return gather(mine, MPI_FLOAT);
  }
  std::vector<std::int64_t> allGather(const std::vector<std::int64_t>& mine) override {
    return gather(mine, MPI_INT64_T);
  }
  void broadcast(void* data, std::size_t bytes, int root) override {
    check(MPI_Bcast(data, int(bytes), MPI_BYTE, root, MPI_COMM_WORLD), "MPI_Bcast");
  }

 private:
  template <typename T>
  std::vector<T> gather(const std::vector<T>& mine, MPI_Datatype type) {
    int count = int(mine.size());
    std::vector<int> counts(static_cast<std::size_t>(size_)), offsets(counts.size());
    check(MPI_Allgather(&count, 1, MPI_INT, counts.data(), 1, MPI_INT, MPI_COMM_WORLD),
          "MPI_Allgather");
    int total = 0;
    for (int r = 0; r < size_; ++r) {
      offsets[std::size_t(r)] = total;
      total += counts[std::size_t(r)];
    }
    std::vector<T> all(static_cast<std::size_t>(total));
    check(MPI_Allgatherv(mine.data(), count, type, all.data(), counts.data(), offsets.data(), type,
                         MPI_COMM_WORLD),
          "MPI_Allgatherv");
    return all;
  }

  int rank_, size_;
};

}  // namespace

MpiWorld::MpiWorld(int* argc, char*** argv) {
  int provided = 0;
  // The engine's threads never call MPI: only the main thread does.
  MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiWorld::~MpiWorld() {
  MPI_Finalize();
}

int MpiWorld::localSize() const {
  const int local = environmentInt("OMPI_COMM_WORLD_LOCAL_SIZE");
  return local > 0 ? local : std::max(1, environmentInt("MPI_LOCALNRANKS"));
}

int MpiWorld::localRank() const {
  for (const char* name : {"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "SLURM_LOCALID"})
    if (const char* v = std::getenv(name)) return std::atoi(v);
  return 0;
}

std::string MpiWorld::host() const {
  char name[MPI_MAX_PROCESSOR_NAME];
  int length = 0;
  MPI_Get_processor_name(name, &length);
  return std::string(name, std::size_t(length));
}

std::shared_ptr<Collective> MpiWorld::collective() {
  return std::make_shared<MpiCollective>(rank_, size_);
}

std::vector<std::int32_t> MpiWorld::gatherToRoot(const std::vector<std::int32_t>& mine) {
  // Counts in 64 bits, the values sent in pieces: all the rows together may pass 2^31, which an
  // MPI count (an int) cannot.
  constexpr std::size_t kPiece = std::size_t(1) << 28;
  std::int64_t count = std::int64_t(mine.size());
  std::vector<std::int64_t> counts(static_cast<std::size_t>(size_));
  check(MPI_Gather(&count, 1, MPI_INT64_T, counts.data(), 1, MPI_INT64_T, 0, MPI_COMM_WORLD),
        "MPI_Gather");
  if (rank_ != 0) {
    for (std::size_t at = 0; at < mine.size(); at += kPiece)
      check(MPI_Send(mine.data() + at, int(std::min(kPiece, mine.size() - at)), MPI_INT32_T, 0, 0,
                     MPI_COMM_WORLD),
            "MPI_Send");
    return {};
  }
  std::size_t total = 0;
  for (std::int64_t c : counts)
    total += std::size_t(c);
  std::vector<std::int32_t> all(total);
  std::copy(mine.begin(), mine.end(), all.begin());
  std::size_t offset = mine.size();
  for (int r = 1; r < size_; ++r) {
    const std::size_t n = std::size_t(counts[std::size_t(r)]);
    for (std::size_t at = 0; at < n; at += kPiece)
      check(MPI_Recv(all.data() + offset + at, int(std::min(kPiece, n - at)), MPI_INT32_T, r, 0,
                     MPI_COMM_WORLD, MPI_STATUS_IGNORE),
            "MPI_Recv");
    offset += n;
  }
  return all;
}

void MpiWorld::abortAll(int code) {
  MPI_Abort(MPI_COMM_WORLD, code);
  std::exit(code);
}

#else  // built without MPI

bool mpiBuilt() {
  return false;
}
MpiWorld::MpiWorld(int*, char***) {}
MpiWorld::~MpiWorld() = default;
int MpiWorld::localRank() const {
  return 0;
}
int MpiWorld::localSize() const {
  return 1;
}
std::string MpiWorld::host() const {
  return "localhost";
}
std::shared_ptr<Collective> MpiWorld::collective() {
  return soloCollective();
}
std::vector<std::int32_t> MpiWorld::gatherToRoot(const std::vector<std::int32_t>& mine) {
  return mine;
}
void MpiWorld::abortAll(int code) {
  std::exit(code);
}

#endif

}  // namespace kms::app::cli
