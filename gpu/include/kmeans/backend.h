// Choosing and creating an engine.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "kmeans/collective.h"
#include "kmeans/engine.h"

namespace kms {

enum class BackendKind {
  Auto,  ///< CUDA when a usable device is present, else CPU (with the reason)
  Cuda,
  Cpu,
  /// CUDA on every GPU of the machine, the rows sharded across them (EngineOptions::
  /// cuda_all_devices); one GPU when there is only one.
  CudaAllGpus,
};

std::string_view toString(BackendKind kind);
/// Accepts "auto", "cuda" (also "gpu"), "cpu" and "cuda-all" (also "all-gpus").
std::optional<BackendKind> parseBackendKind(std::string_view text);

/// Whether the CUDA backend can run here, and why not.
struct CudaStatus {
  bool compiled = false;   ///< this build contains the CUDA backend
  bool available = false;  ///< compiled and a device answered
  std::string device;      ///< device name when available
  std::string reason;      ///< why not available ("built without CUDA", "no CUDA device: ...")
  int device_count = 0;    ///< CUDA devices present (0 when none answered)
};

/// Probes the CUDA runtime once per process (cached). Never throws.
CudaStatus cudaStatus();

struct EngineOptions {
  int cpu_threads = 0;  ///< CPU backend threads; ≤ 0 = all hardware threads
  int cuda_device = 0;  ///< CUDA device ordinal (one GPU)
  /// GPUs to spread one run across: distinct CUDA ordinals. Two or more shard the rows across
  /// them — each GPU assigns and sums its rows, NCCL all-reduces the exact integer sums — with
  /// labels and centroids bit-identical to one GPU's run. Empty: cuda_device alone. NCCL is
  /// loaded at run time (libnccl.so.2, or the library named by KMS_NCCL_LIBRARY); without it a
  /// multi-GPU engine fails to start with a DeviceError naming the library.
  std::vector<int> cuda_devices;
  /// Every GPU of the machine (overrides cuda_devices and cuda_device).
  bool cuda_all_devices = false;
  /// The most GPU memory the CUDA engine gives the data (points, weights, counts), in bytes;
  /// 0 (the default): whatever the device has free. Data that do not fit stay in page-locked
  /// host memory and are streamed to the GPU every iteration — same results, at the
  /// interconnect's speed. (Labels and distance bounds, 2–6 bytes per point, stay on the GPU.)
  std::size_t max_device_bytes = 0;
  /// One rank of a run spread over several processes (kmeans/collective.h): the engine takes
  /// this rank's share of the rows and combines through `collective` — on the CPU, or with
  /// BackendKind::Cuda on GPU cuda_device, the processes' GPUs connected by NCCL. Auto and
  /// CudaAllGpus with a collective of several ranks throw InvalidArgument (every rank must
  /// choose alike); null or a single rank: an ordinary engine.
  std::shared_ptr<Collective> collective;
};

struct CreatedEngine {
  std::unique_ptr<Engine> engine;
  BackendKind kind = BackendKind::Cpu;  ///< what was created (never Auto)
  std::string note;                     ///< with Auto: why the CPU was chosen, empty otherwise
};

/// Creates an engine. With Cuda and no usable device, throws DeviceError with the reason.
/// With Auto, falls back to the CPU and says why in CreatedEngine::note. Every engine gives the
/// same labels and centroids, bit for bit, for the same data, configuration and seed (the
/// inertia, a double, may differ in its last bits). kmeans/testing.h has the switches that tests
/// and benchmarks use to pin the CUDA engine's kernels.
CreatedEngine createEngine(BackendKind kind, const EngineOptions& options = {});

/// Parses a GPU list: "all", or distinct ordinals separated by commas ("0,1"). Sets `options`'
/// cuda_devices / cuda_all_devices; returns an error sentence (naming the bad entry) or "".
std::string parseDeviceList(std::string_view text, EngineOptions& options);

/// The CPU backend directly (used as the reference in tests); with `collective`, one rank of a
/// distributed run.
std::unique_ptr<Engine> createCpuEngine(int threads = 0,
                                        std::shared_ptr<Collective> collective = nullptr);

}  // namespace kms
