// NVTX ranges around the engine's stages (loading, seeding, each iteration with its kernel
// family's name, launches of several iterations, the all-reduce, snapshots), so that Nsight
// Systems shows on the host's timeline what each stretch of kernels belongs to. NVTX is
// header-only: without a profiler attached a range costs a call that returns at once.
#pragma once

#include <nvtx3/nvToolsExt.h>

namespace kms::cuda {

/// A range from construction to destruction, on the calling thread.
class NvtxRange {
 public:
  explicit NvtxRange(const char* name) { nvtxRangePushA(name); }
  ~NvtxRange() { nvtxRangePop(); }
  NvtxRange(const NvtxRange&) = delete;
  NvtxRange& operator=(const NvtxRange&) = delete;
};

}  // namespace kms::cuda
