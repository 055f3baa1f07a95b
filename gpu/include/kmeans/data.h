// The data a k-means engine works on: N points of d float32 coordinates, optional weights.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kms {

/// Non-owning view of the input. Points are row-major: point i, coordinate c is
/// points[i * d + c]. The caller keeps the memory alive while an engine uses it
/// (the CPU backend reads it in place; the CUDA backend copies it to the device).
struct DataView {
  const float* points = nullptr;
  std::size_t n = 0;
  int d = 0;
  /// Optional per-point weights (n values, finite, ≥ 0, not all zero). A weight w scales the
  /// point's pull on its centroid; w·x is rounded to the fixed-point grid before it is summed.
  const float* weights = nullptr;
  /// Optional multiplicities (n values ≥ 1, adding up to at most kMaxTotalCount; never together
  /// with weights): point i stands for counts[i] identical points. This is the compact form of
  /// data with repeated values (an image's distinct colours with their pixel counts). It is
  /// exact: from the same initial centroids, labels, centroids (bit for bit), changed counts and
  /// convergence are those of the expanded data in which point i appears counts[i] times, because
  /// every count enters the integer sums as counts[i]·q(x) (see FixedPointScales).
  const std::uint32_t* counts = nullptr;
};

/// Largest total of DataView::counts: keeps every integer sum of counts[i]·q(x) (|q| ≤ 2^23)
/// inside an int64.
inline constexpr std::uint64_t kMaxTotalCount = std::uint64_t(1) << 40;

/// Fixed-point scales used to sum coordinates exactly (see docs/engine.md, "Exact sums").
/// A centred, weighted coordinate v = w·(x − mid) is summed as the integer rint(v · 2^coord_exp),
/// which keeps |q| ≤ 2^23; weights are summed as rint(w · 2^weight_exp) (or 1 per point when
/// unweighted). With counts, a point adds counts[i]·q(x − mid) in 64-bit integers and its
/// count as its weight; coord_exp is then the one of the expanded data, so both sums equal the
/// expanded data's exactly. Integer sums are associative, so every backend, thread count and
/// launch order gives bit-identical centroids.
struct FixedPointScales {
  std::vector<int> coord_exp;  ///< per dimension
  int weight_exp = 0;
  bool weighted = false;
  bool counted = false;  ///< DataView::counts is set
};

/// What every backend needs to know about the data before iterating; computed once per data set.
struct DataSummary {
  std::vector<float> lo, hi;  ///< per-dimension minimum and maximum
  std::vector<float> mid;  ///< per-dimension centre of the bounding box; engines work on x − mid
  float scale = 1.0f;      ///< largest per-dimension range (1 when all points coincide)
  double total_weight = 0.0;  ///< N when unweighted, Σ counts with counts
  /// Number of points the data stand for: Σ counts with counts, else N. Changed counts and the
  /// convergence test are in these units.
  std::uint64_t total_count = 0;
  FixedPointScales fixed;
};

class Collective;

/// Validates `data` and summarises it. Throws InvalidArgument for N = 0, d = 0, a null pointer,
/// NaN or infinite coordinates or weights (naming the first point and coordinate), negative
/// weights, weights that are all zero, a zero count, counts together with weights, or counts
/// adding up to more than kMaxTotalCount. `threads` ≤ 0 means all hardware threads.
///
/// With a `collective` of several ranks, `data` is this rank's share (its first row is global
/// row `first_row`) and the summary is the whole data set's, the same on every rank, bit for bit
/// what one process summarising all the rows gets; every rank throws alike, naming the first bad
/// value by its global index. Shares take points without weights or counts.
DataSummary summarizeData(const DataView& data, int threads = 0, Collective* collective = nullptr,
                          std::size_t first_row = 0);

/// Σ (hi − lo)² over the dimensions, in double: the squared diagonal of the data's bounding box,
/// which no distance between two points of the data exceeds.
double squaredDiameter(const DataSummary& summary);

}  // namespace kms
