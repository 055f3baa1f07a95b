#include "cuda/multi/all_reduce.h"

#include "kmeans/errors.h"

#if KMS_HAVE_NCCL
#include "cuda/multi/nccl_library.h"
#endif

namespace kms::cuda {

#if KMS_HAVE_NCCL

struct AllReduce::State {
  const NcclLibrary* nccl = nullptr;
  std::vector<ncclComm_t> comms;
};

namespace {

void check(const NcclLibrary& nccl, ncclResult_t result, const char* what) {
  if (result != ncclSuccess)
    throw DeviceError(std::string("NCCL ") + what + " failed: " + nccl.getErrorString(result));
}

}  // namespace

AllReduce::AllReduce(const std::vector<int>& devices) {
  const NcclLibrary& nccl = ncclLibrary();
  auto* state = new State;
  state->nccl = &nccl;
  state->comms.resize(devices.size());
  const ncclResult_t result =
      nccl.commInitAll(state->comms.data(), static_cast<int>(devices.size()), devices.data());
  if (result != ncclSuccess) {
    delete state;
    throw DeviceError(std::string("NCCL could not connect the GPUs (ncclCommInitAll: ") +
                      nccl.getErrorString(result) + ")");
  }
  state_ = state;
  try {
    warmUp(devices);
  } catch (...) {  // the destructor does not run for a constructor that throws
    for (ncclComm_t comm : state_->comms)
      nccl.commDestroy(comm);
    delete state_;
    state_ = nullptr;
    throw;
  }
}

AllReduce::AllReduce(int device, Collective& world) {
  const NcclLibrary& nccl = ncclLibrary();
  ncclUniqueId id{};
  // Every rank learns whether rank 0 could make the id before any of them waits in NCCL.
  std::int64_t made = 1;
  if (world.rank() == 0) made = nccl.getUniqueId(&id) == ncclSuccess ? 1 : 0;
  world.broadcast(&made, sizeof made, 0);
  if (!made) throw DeviceError("NCCL could not make the id that connects the processes' GPUs");
  world.broadcast(&id, sizeof id, 0);
  auto* state = new State;
  state->nccl = &nccl;
  state->comms.resize(1);
  int current = 0;
  cudaGetDevice(&current);
  cudaSetDevice(device);
  const ncclResult_t result = nccl.commInitRank(&state->comms[0], world.size(), id, world.rank());
  cudaSetDevice(current);
  if (result != ncclSuccess) {
    delete state;
    throw DeviceError(
        std::string("NCCL could not connect the processes' GPUs (ncclCommInitRank: ") +
        nccl.getErrorString(result) + ")");
  }
  state_ = state;
  try {
    warmUp({device});
  } catch (...) {
    nccl.commDestroy(state_->comms[0]);
    delete state_;
    state_ = nullptr;
    throw;
  }
}

void AllReduce::warmUp(const std::vector<int>& devices) {
  // NCCL connects the GPUs on the first collective (tens of milliseconds): do it now, so that it
  // is not charged to the first iteration's communication time.
  constexpr std::size_t kWords = 8192;  // 64 KiB, the size of typical sums
  int current = 0;
  cudaGetDevice(&current);
  std::vector<void*> buffers(devices.size(), nullptr);
  const auto cudaCheck = [](cudaError_t error, const char* what) {
    if (error != cudaSuccess)
      throw DeviceError(std::string("Connecting the GPUs failed: ") + what + ": " +
                        cudaGetErrorString(error));
  };
  std::string failure;
  try {
    for (std::size_t g = 0; g < devices.size(); ++g) {
      cudaCheck(cudaSetDevice(devices[g]), "cudaSetDevice");
      cudaCheck(cudaMalloc(&buffers[g], kWords * sizeof(long long)), "cudaMalloc");
      cudaCheck(cudaMemset(buffers[g], 0, kWords * sizeof(long long)), "cudaMemset");
    }
    const NcclLibrary& nccl = *state_->nccl;
    check(nccl, nccl.groupStart(), "group start");
    for (std::size_t g = 0; g < devices.size(); ++g)
      check(nccl,
            nccl.allReduce(buffers[g], buffers[g], kWords, ncclInt64, ncclSum, state_->comms[g],
                           nullptr),
            "all-reduce");
    check(nccl, nccl.groupEnd(), "all-reduce");
    for (std::size_t g = 0; g < devices.size(); ++g) {
      cudaCheck(cudaSetDevice(devices[g]), "cudaSetDevice");
      cudaCheck(cudaDeviceSynchronize(), "the first all-reduce");
    }
  } catch (const DeviceError& e) {
    failure = e.what();
  }
  for (std::size_t g = 0; g < devices.size(); ++g)
    if (buffers[g] != nullptr) {
      cudaSetDevice(devices[g]);
      cudaFree(buffers[g]);
    }
  cudaSetDevice(current);
  if (!failure.empty()) throw DeviceError(failure);
}

AllReduce::~AllReduce() {
  if (state_ == nullptr) return;
  for (ncclComm_t comm : state_->comms)
    state_->nccl->commDestroy(comm);
  delete state_;
}

void AllReduce::sum(const std::vector<AllReduceBuffers>& parts) {
  const NcclLibrary& nccl = *state_->nccl;
  check(nccl, nccl.groupStart(), "group start");
  // Every call is queued inside the group; errors of a call surface at groupEnd, which must be
  // reached either way.
  ncclResult_t first_error = ncclSuccess;
  const auto note = [&](ncclResult_t r) {
    if (first_error == ncclSuccess) first_error = r;
  };
  for (std::size_t g = 0; g < parts.size(); ++g) {
    const AllReduceBuffers& p = parts[g];
    ncclComm_t comm = state_->comms[g];
    note(nccl.allReduce(p.totals, p.global_totals, p.columns, ncclInt64, ncclSum, comm, p.stream));
    note(nccl.allReduce(p.inertia, p.inertia, 1, ncclFloat64, ncclSum, comm, p.stream));
    note(nccl.allReduce(p.changed, p.changed, 1, ncclUint64, ncclSum, comm, p.stream));
    note(nccl.allReduce(p.searched, p.searched, 2, ncclUint64, ncclSum, comm, p.stream));
  }
  check(nccl, nccl.groupEnd(), "all-reduce");
  check(nccl, first_error, "all-reduce");
}

std::string AllReduce::describe() const {
  return "NCCL " + state_->nccl->versionText() + " (" + state_->nccl->path + ")";
}

#else  // built without nccl.h

struct AllReduce::State {};

AllReduce::AllReduce(int, Collective&) : AllReduce(std::vector<int>{}) {}

AllReduce::AllReduce(const std::vector<int>&) {
  throw DeviceError(
      "This build of KMeans Studio was built without NCCL, which runs on several GPUs need; "
      "rebuild with NCCL's headers installed (nccl.h), or choose one GPU.");
}

AllReduce::~AllReduce() = default;

void AllReduce::sum(const std::vector<AllReduceBuffers>&) {}

std::string AllReduce::describe() const {
  return "built without NCCL";
}

#endif

}  // namespace kms::cuda
