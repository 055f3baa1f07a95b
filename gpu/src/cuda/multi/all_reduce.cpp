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
    note(nccl.allReduce(p.searched, p.searched, 1, ncclUint64, ncclSum, comm, p.stream));
  }
  check(nccl, nccl.groupEnd(), "all-reduce");
  check(nccl, first_error, "all-reduce");
}

std::string AllReduce::describe() const {
  return "NCCL " + state_->nccl->versionText() + " (" + state_->nccl->path + ")";
}

#else  // built without nccl.h

struct AllReduce::State {};

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
