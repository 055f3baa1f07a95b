// For tests and benchmarks only: switches that pin which of the CUDA engine's kernel families
// (and the CPU engine's searches) may run, and hooks that make a run fail on purpose or go on past
// convergence. None of the switches changes labels or centroids (each family is exact); they let
// tests reach every path and kmeans-bench compare paths on the same data. Applications use
// kmeans/backend.h alone.
#pragma once

#include <cstddef>

#include "kmeans/backend.h"

namespace kms {

/// Whether the CUDA engine indexes data of d ≤ 4 as point tiles when it loads them: the rows
/// sorted along a Morton curve in tiles of 32, so that an iteration settles a whole tile inside
/// one centroid's region from its bounding ball without reading its rows. The index costs a sort
/// at setData and about d·4 + 9 bytes per row of GPU memory, and is skipped when that memory is
/// not free.
enum class PointTiles {
  Never,  ///< every iteration looks at every row
  /// Tiles for plain points (no counts) of 4 Mi rows or more (a photo's pixels one by one, large
  /// point clouds); counted data and smaller data run row by row.
  Auto,
  Always,  ///< tiles whenever they fit, never given up
};

/// Whether the CUDA engine, for data with point tiles whose rows repeat (a photo's pixels: few
/// colours, each many times), iterates over the groups of equal rows instead — each group a
/// distinct row with its count, and every row given its group's label. The groups cost about
/// 12 + 4·d bytes each of GPU memory beside the tiles.
enum class RepeatedRows {
  Never,  ///< every row (or tile) on its own
  /// With PointTiles::Auto's tiles, when the rows repeat eight times or more on average.
  Auto,
  Always,  ///< whenever the tiles exist
};

/// The CUDA engine's path switches (the defaults are what applications get).
struct CudaTuning {
  /// TF32 tensor cores may rank candidate centroids for d ≥ 17 (compute capability 8.0 and
  /// later); every rank they cannot prove is re-done exactly. false: the FP32 SIMT kernels (for
  /// d > 64 the high-dimensional family's FP32 tiles).
  bool tensor_cores = true;
  PointTiles point_tiles = PointTiles::Auto;
  RepeatedRows repeated_rows = RepeatedRows::Auto;
  /// Rows of 17 ≤ d ≤ 64 and k ≤ 256 (no weights) keep a distance bound each, with the sums kept
  /// across iterations (the wide rows family). false: every row ranked every iteration.
  bool distance_bounds = true;
  /// Rows of d > 64 without counts run on the high-dimensional family (tiled over d, sums kept
  /// across iterations). false: the generic assignment kernel, for comparisons.
  bool high_dim_rows = true;
  /// The high-dimensional family on tensor cores ranks from FP16 copies of the rows and centroids
  /// (each set scaled by a power of two) where the device has room for them. false: from the
  /// FP32 words read as TF32 (a bound twice as wide), as when there is no room.
  bool half_copies = true;
  /// One-dimensional data (no weights) are indexed as sorted runs with exact prefix sums: an
  /// iteration finds each centroid's rows by a search (k ≤ 32, one GPU). Skipped when its memory
  /// (about 60 bytes per row) is not free or the data span less than 2^-40 or 2^58 or more.
  bool sorted_runs = true;
  /// Streamed data (EngineOptions::max_device_bytes): the bytes of rows copied at a time by the
  /// families that read each row once an iteration (0: none — the kernels read the page-locked
  /// host memory in place). Data of more than 256 such chunks take larger ones; the two copy
  /// buffers are not counted in max_device_bytes, and shrink to a quarter of the free GPU memory
  /// when it is short.
  std::size_t stream_chunk_bytes = std::size_t(32) << 20;
};

/// The CPU engine's path switches.
struct CpuTuning {
  /// Data of d ≤ 4 and k ≥ 32 find each row's nearest centroid by walking the centroids sorted
  /// along the data's principal axis, and rows of d ≤ 64 nearer their centroid than half the way
  /// to its nearest other keep it (Hamerly's second test). false: every row the bounds of counted
  /// data leave scores all k centroids.
  bool sorted_search = true;
  /// Compact data (counts) of d ≤ 64 at k ≥ 64 keep, per row, a lower bound on the distance to
  /// each group of nearby centroids (Yinyang) instead of one to all of them (Hamerly): a
  /// centroid's move then erodes only its own group's bounds. false: Hamerly's one bound.
  bool group_bounds = true;
};

/// Hooks that change a run on purpose.
struct TestHooks {
  /// The CUDA engine's step() number N (≥ 1) first runs a kernel that traps, as a broken kernel
  /// would — the CUDA context is lost, that step throws DeviceError with CUDA's message and so
  /// does every later call. 0: never; then KMS_CUDA_FAULT_AT_ITERATION from the environment is
  /// read (how kmeans-cli and kmeans-studio are tested against a GPU failing mid-run).
  int fault_at_iteration = 0;
  /// The CUDA engine's Engine::steps goes on past convergence up to max_iterations, as repeated
  /// step() calls do, so that settled iterations can be timed in launches (kmeans-bench).
  bool steps_past_convergence = false;
};

/// EngineOptions with the switches and hooks above.
struct TestingOptions : EngineOptions {
  CudaTuning cuda;
  CpuTuning cpu;
  TestHooks hooks;
};

/// createEngine (kmeans/backend.h) with the switches and hooks of `options`.
CreatedEngine createEngine(BackendKind kind, const TestingOptions& options);

}  // namespace kms
