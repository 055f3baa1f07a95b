// The data a k-means engine works on: N points of d float32 coordinates, optional weights.
#pragma once

#include <cstddef>
#include <vector>

namespace kms {

/// Non-owning view of the input. Points are row-major: point i, coordinate c is
/// points[i * d + c]. The caller keeps the memory alive while an engine uses it
/// (the CPU backend reads it in place; the CUDA backend copies it to the device).
struct DataView {
  const float* points = nullptr;
  std::size_t n = 0;
  int d = 0;
  /// Optional per-point weights (n values, finite, ≥ 0, not all zero). A weight w counts the point
  /// w times: image colour compaction passes pixel counts here.
  const float* weights = nullptr;
};

/// Fixed-point scales used to sum coordinates exactly (see docs/engine.md, "Exact sums").
/// A centred, weighted coordinate v = w·(x − mid) is summed as the integer rint(v · 2^coord_exp),
/// which keeps |q| ≤ 2^23; weights are summed as rint(w · 2^weight_exp) (or 1 per point when
/// unweighted). Integer sums are associative, so every backend, thread count and launch
/// order gives bit-identical centroids.
struct FixedPointScales {
  std::vector<int> coord_exp;  ///< per dimension
  int weight_exp = 0;
  bool weighted = false;
};

/// What every backend needs to know about the data before iterating; computed once per data set.
struct DataSummary {
  std::vector<float> lo, hi;  ///< per-dimension minimum and maximum
  std::vector<float> mid;  ///< per-dimension centre of the bounding box; engines work on x − mid
  float scale = 1.0f;      ///< largest per-dimension range (1 when all points coincide)
  double total_weight = 0.0;  ///< N when unweighted
  FixedPointScales fixed;
};

/// Validates `data` and summarises it. Throws InvalidArgument for N = 0, d = 0, a null pointer,
/// NaN or infinite coordinates or weights (naming the first point and coordinate), negative
/// weights, or weights that are all zero. `threads` ≤ 0 means all hardware threads.
DataSummary summarizeData(const DataView& data, int threads = 0);

}  // namespace kms
