#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <mutex>

#include "cpu/cpu_engine.h"
#include "cuda/cuda_backend.h"
#include "kmeans/backend.h"
#include "kmeans/errors.h"
#include "kmeans/testing.h"

namespace kms {

std::string_view toString(BackendKind kind) {
  switch (kind) {
    case BackendKind::Auto:
      return "auto";
    case BackendKind::Cuda:
      return "cuda";
    case BackendKind::Cpu:
      return "cpu";
    case BackendKind::CudaAllGpus:
      return "cuda-all";
  }
  return "?";
}

std::optional<BackendKind> parseBackendKind(std::string_view text) {
  if (text == "auto") return BackendKind::Auto;
  if (text == "cuda" || text == "gpu") return BackendKind::Cuda;
  if (text == "cpu") return BackendKind::Cpu;
  if (text == "cuda-all" || text == "all-gpus") return BackendKind::CudaAllGpus;
  return std::nullopt;
}

CudaStatus cudaStatus() {
  static std::once_flag once;
  static CudaStatus status;
  std::call_once(once, [] { status = cuda::probe(0); });
  return status;
}

std::unique_ptr<Engine> createCpuEngine(int threads, std::shared_ptr<Collective> collective) {
  return std::make_unique<CpuEngine>(threads, std::move(collective));
}

namespace {

/// TestHooks::fault_at_iteration, or else KMS_CUDA_FAULT_AT_ITERATION from the environment: how
/// the programs themselves (kmeans-cli, kmeans-studio) are tested against a GPU that fails
/// mid-run on a GPU machine. Unset, it is 0: never.
int faultAtIteration(const TestingOptions& options) {
  if (options.hooks.fault_at_iteration != 0) return options.hooks.fault_at_iteration;
  const char* fromEnvironment = std::getenv("KMS_CUDA_FAULT_AT_ITERATION");
  return fromEnvironment ? std::atoi(fromEnvironment) : 0;
}

}  // namespace

std::string parseDeviceList(std::string_view text, EngineOptions& options) {
  if (text == "all") {
    options.cuda_all_devices = true;
    options.cuda_devices.clear();
    return {};
  }
  std::vector<int> devices;
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t comma = std::min(text.find(',', begin), text.size());
    const std::string_view entry = text.substr(begin, comma - begin);
    int value = 0;
    const auto [end, error] = std::from_chars(entry.data(), entry.data() + entry.size(), value);
    if (entry.empty() || error != std::errc() || end != entry.data() + entry.size() || value < 0) {
      std::string message = "\"";  // appended piece by piece: GCC 12 warns on "…" + string
      message.append(entry);
      message.append(
          "\" is not a GPU number; give \"all\" or numbers separated by commas, "
          "e.g. 0,1.");
      return message;
    }
    if (std::find(devices.begin(), devices.end(), value) != devices.end())
      return "GPU " + std::to_string(value) + " is listed twice.";
    devices.push_back(value);
    begin = comma + 1;
  }
  options.cuda_all_devices = false;
  options.cuda_devices = std::move(devices);
  return {};
}

CreatedEngine createEngine(BackendKind kind, const EngineOptions& options) {
  TestingOptions defaults;
  static_cast<EngineOptions&>(defaults) = options;
  return createEngine(kind, defaults);
}

CreatedEngine createEngine(BackendKind kind, const TestingOptions& requested) {
  CreatedEngine created;
  TestingOptions options = requested;
  if (options.collective && options.collective->size() > 1 && kind != BackendKind::Cpu &&
      kind != BackendKind::Cuda)
    throw InvalidArgument(
        "A run spread over several processes names its backend: the CPU, or one GPU a process "
        "(CUDA).");
  if (kind == BackendKind::CudaAllGpus) {
    options.cuda_all_devices = true;
    kind = BackendKind::Cuda;
  }
  if (kind == BackendKind::Cpu) {
    created.engine =
        std::make_unique<CpuEngine>(options.cpu_threads, options.collective, options.cpu);
    created.kind = BackendKind::Cpu;
    return created;
  }
  const int first = options.cuda_devices.empty() || options.cuda_all_devices
                        ? options.cuda_device
                        : options.cuda_devices.front();
  const CudaStatus status = first == 0 ? cudaStatus() : cuda::probe(first);
  if (status.available) {
    try {
      TestingOptions resolved = options;
      resolved.hooks.fault_at_iteration = faultAtIteration(options);
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
  created.engine = std::make_unique<CpuEngine>(options.cpu_threads, nullptr, options.cpu);
  created.kind = BackendKind::Cpu;
  return created;
}

}  // namespace kms
