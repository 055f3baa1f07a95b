// Choosing and creating an engine.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

/// Whether the CUDA engine indexes data of d ≤ 4 as point tiles (EngineOptions::cuda_point_tiles).
enum class PointTiles {
  Never,  ///< every iteration looks at every row (for comparisons and tests)
  /// Tiles for plain points (no counts) of 4 Mi rows or more, when they fit in GPU memory: a
  /// photo's pixels one by one, large point clouds. (Counted data — distinct values — are too
  /// sparse for tiles, and smaller data are bound by launch latency.)
  Auto,
  Always,  ///< tiles whenever they fit, never given up (tests)
};

/// Whether the CUDA engine iterates over the groups of equal rows of point tiles
/// (EngineOptions::cuda_repeated_rows).
enum class RepeatedRows {
  Never,  ///< every row (or tile) on its own (for comparisons and tests)
  /// With PointTiles::Auto's tiles, when the data repeat their rows eight times or more on
  /// average — a photo's pixels (17.98 MP of 538,753 colours in the benchmarks' photo).
  Auto,
  Always,  ///< whenever the tiles exist (tests)
};

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
  /// Tests only: the CUDA engine's step() number N (≥ 1) first runs a kernel that traps, as a
  /// broken kernel would — the CUDA context is lost, that step throws DeviceError with CUDA's
  /// message and so does every later call. 0 (the default): never. The CPU backend ignores it.
  int cuda_fault_at_iteration = 0;
  /// The most GPU memory the CUDA engine gives the data (points, weights, counts), in bytes;
  /// 0 (the default): whatever the device has free. Data that do not fit stay in page-locked
  /// host memory and are streamed to the GPU every iteration — same results, at the
  /// interconnect's speed. (Labels and distance bounds, 2–6 bytes per point, stay on the GPU.)
  std::size_t max_device_bytes = 0;
  /// Whether the CUDA engine may rank candidate centroids with TF32 tensor cores (d from 17 to
  /// 64 on devices of compute capability 8.0 and later). Labels and centroids are the same either
  /// way — every rank the tensor cores cannot prove is re-done exactly; false runs the FP32 SIMT
  /// kernel instead (for comparisons and tests).
  bool cuda_tensor_cores = true;
  /// Whether the CUDA engine indexes data of d ≤ 4 (a photo's pixels, point clouds) as point
  /// tiles when it loads them: the rows sorted along a Morton curve in tiles of 32, so that an
  /// iteration settles a whole tile inside one centroid's region from its bounding ball without
  /// reading its rows. Labels and centroids are the same either way (the inertia may differ in
  /// its last bits); the index costs a sort at setData and about d·4 + 9 bytes per row of GPU
  /// memory, and is skipped when that memory is not free.
  PointTiles cuda_point_tiles = PointTiles::Auto;
  /// Whether the CUDA engine, for data with point tiles whose rows repeat (a photo's pixels:
  /// few colours, each many times), iterates over the groups of equal rows instead — each group
  /// a distinct row with its count, as compact data are, and every row given its group's label
  /// (only the groups whose label changed write theirs). Labels and centroids are the same
  /// either way (the inertia may differ in its last bits); the groups cost about 12 + 4·d bytes
  /// each of GPU memory beside the tiles.
  RepeatedRows cuda_repeated_rows = RepeatedRows::Auto;
  /// Whether the CUDA engine keeps a distance bound per row for data of 17 ≤ d ≤ 64 and
  /// k ≤ 256 without weights, with the cluster sums kept across iterations: a row whose bound
  /// proves its label is not ranked again (after the first iterations, nearly every row), the
  /// others are searched exactly. Labels and centroids are the same either way; false ranks
  /// every row every iteration (TF32 tensor cores or the FP32 tiled kernel — for comparisons and
  /// tests).
  bool cuda_distance_bounds = true;
  /// Whether the CUDA engine indexes one-dimensional data (d = 1, no weights) as sorted runs
  /// when it loads them: the rows sorted once with exact prefix sums, so that an iteration finds
  /// each centroid's run of rows by a search and its sums by subtraction, without reading the
  /// rows (k ≤ 32, one GPU). Labels and centroids are the same either way (the inertia may
  /// differ in its last bits); the index costs a sort at setData and about 60 bytes per row of
  /// GPU memory, and is skipped when that memory is not free or the data span less than 2^-40
  /// or 2^58 or more.
  bool cuda_sorted_runs = true;
  /// Benchmarks: the CUDA engine's Engine::steps goes on past convergence up to max_iterations,
  /// as repeated step() calls do, so that settled iterations can be timed in launches of several
  /// iterations as well as step() by step() (kmeans-bench). false (the default): steps() stops
  /// at convergence.
  bool cuda_steps_past_convergence = false;
  /// Streamed data (max_device_bytes): the bytes of rows copied at a time (0: none; data of more
  /// than 256 such chunks take larger ones). An iteration of the compact and wide kernels
  /// (d ≤ 64, no weights) copies the data chunk by chunk into two GPU buffers of this size on a
  /// second stream, each chunk's copy overlapping the kernels of the chunk before; the first
  /// chunks, as many as the data's share of GPU memory holds, are copied once and kept there.
  /// The buffers shrink to a quarter of the free GPU memory when it is short; without them (0,
  /// or no memory for them) the kernels read the page-locked host memory directly, as the other
  /// kernels and passes (seeding, re-seeding, captures, replays) always do. Labels and centroids
  /// are the same either way (the inertia, a double summed by other blocks, may differ in its
  /// last bits). The copy buffers are not counted in max_device_bytes (they are not the data).
  std::size_t cuda_stream_chunk_bytes = std::size_t(32) << 20;
};

struct CreatedEngine {
  std::unique_ptr<Engine> engine;
  BackendKind kind = BackendKind::Cpu;  ///< what was created (never Auto)
  std::string note;                     ///< with Auto: why the CPU was chosen, empty otherwise
};

/// Creates an engine. With Cuda and no usable device, throws DeviceError with the reason.
/// With Auto, falls back to the CPU and says why in CreatedEngine::note.
CreatedEngine createEngine(BackendKind kind, const EngineOptions& options = {});

/// Parses a GPU list: "all", or distinct ordinals separated by commas ("0,1"). Sets `options`'
/// cuda_devices / cuda_all_devices; returns an error sentence (naming the bad entry) or "".
std::string parseDeviceList(std::string_view text, EngineOptions& options);

/// The CPU backend directly (used as the reference in tests).
std::unique_ptr<Engine> createCpuEngine(int threads = 0);

}  // namespace kms
