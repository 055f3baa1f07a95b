#include <cstdlib>
#include <mutex>

#include "cpu/cpu_engine.h"
#include "cuda/cuda_backend.h"
#include "kmeans/backend.h"
#include "kmeans/errors.h"

namespace kms {

std::string_view toString(BackendKind kind) {
  switch (kind) {
    case BackendKind::Auto:
      return "auto";
    case BackendKind::Cuda:
      return "cuda";
    case BackendKind::Cpu:
      return "cpu";
  }
  return "?";
}

std::optional<BackendKind> parseBackendKind(std::string_view text) {
  if (text == "auto") return BackendKind::Auto;
  if (text == "cuda" || text == "gpu") return BackendKind::Cuda;
  if (text == "cpu") return BackendKind::Cpu;
  return std::nullopt;
}

CudaStatus cudaStatus() {
  static std::once_flag once;
  static CudaStatus status;
  std::call_once(once, [] { status = cuda::probe(0); });
  return status;
}

std::unique_ptr<Engine> createCpuEngine(int threads) {
  return std::make_unique<CpuEngine>(threads);
}

namespace {

/// EngineOptions::cuda_fault_at_iteration, or else KMS_CUDA_FAULT_AT_ITERATION from the
/// environment: how the programs themselves (kmeans-cli, kmeans-studio) are tested against a
/// GPU that fails mid-run on a GPU machine. Unset, it is 0: never.
int faultAtIteration(const EngineOptions& options) {
  if (options.cuda_fault_at_iteration != 0) return options.cuda_fault_at_iteration;
  const char* fromEnvironment = std::getenv("KMS_CUDA_FAULT_AT_ITERATION");
  return fromEnvironment ? std::atoi(fromEnvironment) : 0;
}

}  // namespace

CreatedEngine createEngine(BackendKind kind, const EngineOptions& options) {
  CreatedEngine created;
  if (kind == BackendKind::Cpu) {
    created.engine = createCpuEngine(options.cpu_threads);
    created.kind = BackendKind::Cpu;
    return created;
  }
  const CudaStatus status =
      options.cuda_device == 0 ? cudaStatus() : cuda::probe(options.cuda_device);
  if (status.available) {
    try {
      EngineOptions resolved = options;
      resolved.cuda_fault_at_iteration = faultAtIteration(options);
      created.engine = cuda::createEngine(resolved);
      created.kind = BackendKind::Cuda;
      return created;
    } catch (const DeviceError& e) {
      if (kind == BackendKind::Cuda) throw;
      created.note = std::string("CUDA backend failed to start (") + e.what() + "); using the CPU";
    }
  } else {
    if (kind == BackendKind::Cuda) throw DeviceError("CUDA backend unavailable: " + status.reason);
    created.note = "CUDA backend unavailable (" + status.reason + "); using the CPU";
  }
  created.engine = createCpuEngine(options.cpu_threads);
  created.kind = BackendKind::Cpu;
  return created;
}

}  // namespace kms
