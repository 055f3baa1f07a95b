// Sums the per-GPU results of an iteration across GPUs: NCCL all-reduce when the build found
// nccl.h; otherwise construction fails with "built without NCCL".
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <vector>

#include "kmeans/collective.h"

namespace kms::cuda {

/// One GPU's part of an all-reduce: its own integer sums in, everyone's out, and its iteration
/// scalars summed in place — all on its compute stream.
struct AllReduceBuffers {
  const long long* totals = nullptr;   ///< this GPU's k·(d+1) integer sums
  long long* global_totals = nullptr;  ///< receives the sum over all GPUs
  std::size_t columns = 0;             ///< k·(d+1)
  double* inertia = nullptr;           ///< summed in place
  unsigned long long* changed = nullptr;
  /// Two words summed in place: rows searched and distances computed (IterationScalars).
  unsigned long long* searched = nullptr;
  cudaStream_t stream = nullptr;
};

/// A communicator over a fixed list of distinct GPUs, in the order of that list.
class AllReduce {
 public:
  /// Creates one communicator per device (ncclCommInitAll). Throws DeviceError when NCCL is
  /// missing (naming the library), the build has no NCCL, or the communicators cannot be made.
  explicit AllReduce(const std::vector<int>& devices);
  /// One GPU of each of `world`'s processes (this one's: `device`), in rank order: rank 0 makes
  /// NCCL's id and `world` hands it to the others (ncclGetUniqueId, ncclCommInitRank). Every
  /// rank must construct it together.
  AllReduce(int device, Collective& world);
  ~AllReduce();
  AllReduce(const AllReduce&) = delete;
  AllReduce& operator=(const AllReduce&) = delete;

  /// Enqueues the sums on every GPU's stream (one NCCL group). `parts` has one entry per device,
  /// in the constructor's order. Integer sums are exact, so the order NCCL adds in cannot change
  /// them; the inertia is a double and may differ from one GPU's sum in its last bits.
  void sum(const std::vector<AllReduceBuffers>& parts);

  /// "NCCL 2.28.3 (libnccl.so.2)"
  std::string describe() const;

 private:
  /// One all-reduce on every GPU, waited for: NCCL's connection set-up happens here.
  void warmUp(const std::vector<int>& devices);

  struct State;
  State* state_ = nullptr;
};

}  // namespace kms::cuda
