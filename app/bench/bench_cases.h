// The benchmark cases of kmeans-bench and the data they run on.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>
#include "kmeans/testing.h"

namespace kms::bench {

struct BenchCase {
  std::string name;      ///< e.g. "photo 4096², d=3, k=16"
  std::string data_key;  ///< cases with the same key share one data set
  std::size_t n = 0;     ///< points (rows) the engine clusters
  int d = 0;
  int k = 0;
  double target_ms = 0.0;  ///< per-iteration target on an H100/H200 (0 = none)
  bool run_cpu = false;    ///< also time the CPU backend
  bool compact = false;    ///< the rows are distinct colours with pixel counts
  /// The data stay in host memory and stream to the GPU (EngineOptions::max_device_bytes = 1);
  /// the floor is then the host-to-device copy rate.
  bool streamed = false;
  /// Streamed data read in place from the page-locked host memory by the kernels
  /// (CudaTuning::stream_chunk_bytes = 0) instead of copied in chunks, for comparison.
  bool in_place = false;
  /// Streamed data given this share (0 to 1) of their size in GPU memory
  /// (EngineOptions::max_device_bytes): the first chunks stay there, the rest are copied each
  /// iteration. 0: nothing kept.
  double kept_share = 0.0;
  /// Run without tensor cores (CudaTuning::tensor_cores = false): the FP32 SIMT kernel,
  /// for comparison.
  bool simt = false;
  /// Run on every GPU of the machine (rows sharded, sums all-reduced through NCCL) and on one,
  /// for the speed-up; skipped on machines with one GPU.
  bool all_gpus = false;
  /// Run without point tiles or sorted runs (CudaTuning::point_tiles = Never,
  /// sorted_runs = false): every iteration looks at every row, for comparison with the tiles
  /// of d ≤ 4 and the sorted runs of d = 1.
  bool rows = false;
  /// Run a photo's pixels on the point tiles rather than on the groups of equal rows
  /// (CudaTuning::repeated_rows = Never), for comparison.
  bool no_groups = false;
  /// Rank every row every iteration (CudaTuning::distance_bounds = false): the tensor or
  /// tiled kernels of 17 ≤ d ≤ 64, for comparison with the wide kernels' bounds.
  bool every_row = false;
  /// Iterations asked of one Engine::steps call (0: step() by step()). The CUDA engine runs the
  /// sorted runs of d = 1 as one launch for up to 64 of them, the loop on the device; each
  /// iteration's time is then its share of the launch.
  int batch = 0;
  /// Time whole runs from the seed to convergence (the warm-up is one such run), instead of
  /// iterations 11 onwards of one run that step() continues past convergence: the iterations a
  /// user's run does, each one with rows that change, and comparable between step() and steps()
  /// (which stops at convergence). The timed runs go on until at least the asked iterations
  /// are timed and the last run has converged; --warmup is not used. Reported per iteration as
  /// the mean (total time over iterations); the case's name says so.
  bool whole_runs = false;
};

/// A case's data: n × d values, and counts for compact cases.
struct BenchData {
  std::vector<float> values;
  std::vector<std::uint32_t> counts;
};

/// A real photograph's pixels, 0xAARRGGBB (alpha 255), read from a binary PPM (P6, 8-bit).
struct Photo {
  std::string name;
  int width = 0, height = 0;
  std::vector<std::uint32_t> pixels;
};

/// Reads a binary PPM; throws std::runtime_error naming the file and the problem.
Photo readPpm(const std::string& path);

/// The cases of the issue (full size), or scaled-down ones for a quick smoke run; with a photo,
/// also its pixels one by one and its distinct colours with their counts.
std::vector<BenchCase> benchCases(bool quick, const Photo* photo = nullptr);

/// The data of a case: a photo-like image for "photo", the real photo's pixels or distinct
/// colours for "real-pixels" / "real-distinct", Gaussian mixtures otherwise.
BenchData benchData(const BenchCase& c, const Photo* photo = nullptr);

}  // namespace kms::bench
