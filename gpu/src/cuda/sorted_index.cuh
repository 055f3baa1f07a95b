// Sorted runs: an index of one-dimensional data (d = 1), built once when the data are loaded,
// that lets an iteration find every cluster without reading the rows.
//
// In one dimension the rows each centroid wins form one run of the rows sorted by value: the
// Voronoi cells are intervals, and the engine's float distance fl(fl(x − c)²) keeps that order
// wherever no two centroids are so close that their distances from a far row round alike
// (kernels/sorted_iteration.cuh has the proof and what is done where they are). An iteration
// then needs each run's end — a search among the sorted values — and the sums over each run,
// which are differences of exact integer prefix sums. It reads O(k log n) values instead of n.
//
// Kept per sorted position: the value, the row it came from, and the exact prefix sums
// (SortedPrefix) Σ w·q(x) (the engine's fixed-point grid, so the centroids are the CPU's bit for
// bit), Σ w, and on a finer grid for the inertia Σ w·qᵢ(x) and Σ w·qᵢ(x)² (128-bit).
// Plus a sample of every step-th value for the search's first levels, and a label per sorted
// position for the rare runs of near-tied centroids, two halves (iterations alternate).
// The engine's own points (original order) stay as they are: seeding, re-seeding, snapshots and
// assign() never see the sorted copy.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "cuda/device_memory.cuh"

namespace kms::cuda {

/// The exclusive prefix sums at one sorted position (the rows before it); position n holds the
/// totals. 48 bytes side by side: a run's sums are two such loads.
struct alignas(16) SortedPrefix {
  long long q;  ///< Σ w·quantize(x, coord_scale): the engine's sums
  long long w;  ///< Σ w
  __int128 b;   ///< Σ w·qᵢ, qᵢ on the inertia grid
  __int128 a;   ///< Σ w·qᵢ²
};
static_assert(sizeof(SortedPrefix) == 48);

class SortedIndex {
 public:
  /// The search's first levels run over at most this many samples held in shared memory.
  static constexpr int kMaxSamples = 4096;

  /// Device bytes the index of n rows keeps.
  static std::size_t bytesFor(std::size_t n);
  /// Device bytes needed while building it (the sort's and the scans' buffers on top).
  static std::size_t buildBytesFor(std::size_t n);

  /// The exponent of the inertia grid: rows of magnitude up to `reach` (centred) become integers
  /// below 2^bits, bits chosen so that every Σ w·qᵢ² and the arithmetic the iteration does on
  /// them stay inside 125 bits for a total weight `total_weight`. Also returns `bits`.
  static int inertiaExponent(double reach, double total_weight, int& bits);

  /// Builds the index of `n` centred values (`points`, device) with `counts` (device, or null)
  /// on `stream`; `coord_scale` is the engine's fixed-point scale (a power of two), `inertia_exp`
  /// the inertia grid's exponent. Synchronises `stream` before returning.
  void build(const float* points, const std::uint32_t* counts, std::size_t n, float coord_scale,
             int inertia_exp, cudaStream_t stream);
  void release() noexcept;

  bool empty() const { return n_ == 0; }
  std::size_t size() const { return n_; }
  std::size_t bytes() const;

  const float* values() const { return values_.get(); }          ///< n sorted values
  const SortedPrefix* prefix() const { return prefix_.get(); }   ///< n + 1 positions
  const std::uint32_t* origin() const { return origin_.get(); }  ///< each one's original row
  const float* samples() const { return samples_.get(); }  ///< values at 0, step, 2·step, …
  int sampleCount() const { return sample_count_; }
  std::size_t sampleStep() const { return sample_step_; }
  int inertiaExp() const { return inertia_exp_; }
  /// Half h (0 or 1) of the per-position labels of near-tied runs (written by the iterations).
  unsigned short* mixedLabels(int h) const {
    return mixed_.get() + static_cast<std::size_t>(h) * n_;
  }

 private:
  std::size_t n_ = 0;
  int sample_count_ = 0;
  std::size_t sample_step_ = 1;
  int inertia_exp_ = 0;
  DeviceBuffer<float> values_;
  DeviceBuffer<SortedPrefix> prefix_;
  DeviceBuffer<std::uint32_t> origin_;
  DeviceBuffer<float> samples_;
  DeviceBuffer<unsigned short> mixed_;
};

}  // namespace kms::cuda
