// The CUDA engine's tuned constants in one place: each is a measured choice, not a limit of
// correctness (every value gives the same labels and centroids). Each says what it decides and
// the alternative that measured slower; the measurements, with device and date, are in
// docs/experiments.md and docs/benchmarks.md. Plain C++: kernels and host code both read them.
#pragma once

#include <cstddef>

namespace kms::cuda {

/// PointTiles::Auto indexes plain points (no counts) of at least this many rows. Counted data
/// are too sparse for tiles (a tile's ball spans several regions, and its rows then searched one
/// by one cost more than the row kernel's bounds), and below this size an iteration is bound by
/// launch latency, where tiles gain nothing.
inline constexpr std::size_t kTileMinRows = std::size_t(1) << 22;

/// RepeatedRows::Auto forms groups of equal rows when the rows repeat at least this many times
/// on average (at most n / kRepeatMinFactor groups): fewer repeats leave the groups' expansion
/// costing more than the tiles save.
inline constexpr std::size_t kRepeatMinFactor = 8;

/// Rows of a group written by one warp at most when the rows take their groups' labels
/// (expandGroupLabelsKernel): a colour of a million pixels is written by four thousand warps,
/// not one (a warp a group had made the expansion the iteration's longest stage).
inline constexpr unsigned kGroupSegment = 256;

/// A changed group of at most this many segments (16,384 rows) has them listed by the thread
/// that labelled it; a larger one is listed whole and shared by every warp of the expansion.
/// Every warp reads the whole list of large groups, so only the rare largest go there (8 had
/// every warp walking a long list of changed colours).
inline constexpr unsigned kListedSegments = 64;

/// Iterations of the compact kernels captured back to back into one graph for Engine::steps: a
/// launch long enough that the host's wait is rare, short enough that a run that converges
/// early wastes little (later iterations of the launch skip their work).
inline constexpr int kCompactLoopSteps = 16;

/// Most starts of a best-of-N run (CudaEngine::runStarts) that run at once, each on its own
/// stream and host thread over its own copy of the data: enough to keep the GPU busy between one
/// start's launches, few enough that the copies stay small and the host's threads (one waiting
/// on each start's launch) fit the cores of the machines we measured (16).
inline constexpr int kMaxStartLanes = 16;

/// Most iterations of one launch of the sorted runs' looping kernel.
inline constexpr int kSortedLoopMax = 64;

/// Resident blocks per multiprocessor the compact assignment's grid is sized for (at most):
/// every block that fits, in one wave (4 to 6 measured within 5 % of it).
inline constexpr int kCompactBlocksPerSm = 8;

/// Resident blocks per multiprocessor the wide assignment's grid is sized for (at most).
inline constexpr int kWideBlocksPerSm = 4;

/// Tiles whose rows a warp of the tile kernel loads together (their loads overlap), with three
/// blocks per multiprocessor (up to 85 registers, none spilled). Two tiles with four blocks
/// spilled and was slower at large k; four tiles gained nothing; five blocks spilled more.
inline constexpr int kTileBatch = 3;

}  // namespace kms::cuda
