#include "cuda/multi/nccl_library.h"

#include <dlfcn.h>

#include <cstdlib>
#include <map>
#include <mutex>

#include "kmeans/errors.h"

namespace kms::cuda {
namespace {

constexpr const char* kDefaultLibrary = "libnccl.so.2";

template <typename Function>
void bind(void* handle, const std::string& path, const char* symbol, Function& out) {
  void* address = dlsym(handle, symbol);
  if (address == nullptr)
    throw DeviceError("The NCCL library " + path + " has no " + symbol +
                      "; multi-GPU runs need NCCL 2.x.");
  out = reinterpret_cast<Function>(address);
}

}  // namespace

std::string NcclLibrary::versionText() const {
  // NCCL ≥ 2.9 encodes X·10000 + Y·100 + Z.
  const int major = version / 10000, minor = version / 100 % 100, patch = version % 100;
  return std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(patch);
}

NcclLibrary loadNcclLibrary(const std::string& path) {
  // RTLD_LOCAL: NCCL's symbols stay out of the global namespace (PyTorch or another copy of
  // NCCL in the same process keeps its own).
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* reason = dlerror();
    throw DeviceError("Multi-GPU runs need NCCL, but the library " + path +
                      " could not be loaded (" + (reason ? reason : "unknown reason") +
                      "). Install NCCL 2 (Debian/Ubuntu: libnccl2; or pip: nvidia-nccl-cu12) "
                      "or name the library in KMS_NCCL_LIBRARY.");
  }
  NcclLibrary library;
  library.path = path;
  bind(handle, path, "ncclCommInitAll", library.commInitAll);
  bind(handle, path, "ncclCommDestroy", library.commDestroy);
  bind(handle, path, "ncclGetUniqueId", library.getUniqueId);
  bind(handle, path, "ncclCommInitRank", library.commInitRank);
  bind(handle, path, "ncclAllReduce", library.allReduce);
  bind(handle, path, "ncclGroupStart", library.groupStart);
  bind(handle, path, "ncclGroupEnd", library.groupEnd);
  bind(handle, path, "ncclGetVersion", library.getVersion);
  bind(handle, path, "ncclGetErrorString", library.getErrorString);
  if (library.getVersion(&library.version) != ncclSuccess || library.version < 20900)
    throw DeviceError("The NCCL library " + path + " is version " + library.versionText() +
                      "; multi-GPU runs need NCCL 2.9 or newer.");
  return library;  // the handle stays open for the life of the process
}

const NcclLibrary& ncclLibrary() {
  static std::mutex mutex;
  static std::map<std::string, NcclLibrary> loaded;  // by path; a failure is not remembered
  const std::lock_guard lock(mutex);
  const char* named = std::getenv("KMS_NCCL_LIBRARY");
  const std::string path = named && *named ? named : kDefaultLibrary;
  auto found = loaded.find(path);
  if (found == loaded.end()) found = loaded.emplace(path, loadNcclLibrary(path)).first;
  return found->second;
}

}  // namespace kms::cuda
