// NCCL, loaded at run time: a machine without NCCL still runs every single-GPU binary, and a
// multi-GPU run says which library it could not load. Built only when nccl.h was found
// (KMS_HAVE_NCCL); the types come from that header, the code from the library found at run time.
#pragma once

#include <cuda_runtime.h>
#include <nccl.h>

#include <string>

namespace kms::cuda {

/// The NCCL entry points KMeans Studio uses.
struct NcclLibrary {
  ncclResult_t (*commInitAll)(ncclComm_t* comms, int ndev, const int* devices) = nullptr;
  ncclResult_t (*commDestroy)(ncclComm_t comm) = nullptr;
  /// Communicators spanning processes: rank 0 makes the id, every rank joins with it.
  ncclResult_t (*getUniqueId)(ncclUniqueId* id) = nullptr;
  ncclResult_t (*commInitRank)(ncclComm_t* comm, int ranks, ncclUniqueId id, int rank) = nullptr;
  ncclResult_t (*allReduce)(const void* send, void* receive, std::size_t count, ncclDataType_t type,
                            ncclRedOp_t op, ncclComm_t comm, cudaStream_t stream) = nullptr;
  ncclResult_t (*groupStart)() = nullptr;
  ncclResult_t (*groupEnd)() = nullptr;
  ncclResult_t (*getVersion)(int* version) = nullptr;
  const char* (*getErrorString)(ncclResult_t result) = nullptr;
  std::string path;  ///< the library that was loaded
  int version = 0;   ///< NCCL_VERSION_CODE of the loaded library, e.g. 22803

  /// "2.28.3"
  std::string versionText() const;
};

/// The library named by $KMS_NCCL_LIBRARY, else libnccl.so.2 from the loader's search path
/// (LD_LIBRARY_PATH, the system's, CUDA's lib folder), loaded once per path. Throws
/// DeviceError naming the library and the loader's reason when it cannot be loaded or lacks an
/// entry point.
const NcclLibrary& ncclLibrary();

/// Loads the NCCL library at `path` (not cached; ncclLibrary() uses it). Throws as ncclLibrary.
NcclLibrary loadNcclLibrary(const std::string& path);

}  // namespace kms::cuda
