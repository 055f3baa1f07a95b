#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <thread>

#include "common/exact_math.h"
#include "common/thread_pool.h"
#include "kmeans/collective.h"
#include "kmeans/data.h"
#include "kmeans/errors.h"

namespace kms {
namespace {

constexpr std::size_t kChunk = 1 << 16;
// |q| ≤ 2^23: a GPU lane adds up to 4 points and a warp 32 lanes, 2^30 in all, within an int32.
constexpr int kFixedBits = 23;

struct ChunkScan {
  std::vector<float> lo, hi;
  std::size_t bad_index = std::numeric_limits<std::size_t>::max();  // first bad value (flat)
  bool bad_weight = false;
  bool bad_count = false;
  double weight_sum = 0.0;
  std::uint64_t count_sum = 0;
  float weight_max = 0.0f;
};

/// Exponent e with max_abs · 2^e < 2^kFixedBits, as large as possible, clamped to what a float
/// power of two can express.
int fixedExponent(float max_abs) {
  if (!(max_abs > 0.0f)) return 0;
  int e2 = 0;
  std::frexp(max_abs, &e2);  // max_abs = m · 2^e2 with m in [0.5, 1) ⇒ max_abs < 2^e2
  return std::clamp(kFixedBits - e2, -120, 120);
}

std::string describePoint(std::size_t flat, int d) {
  return "point " + std::to_string(flat / static_cast<std::size_t>(d)) + ", coordinate " +
         std::to_string(flat % static_cast<std::size_t>(d));
}

}  // namespace

DataSummary summarizeData(const DataView& data, int threads, Collective* collective,
                          std::size_t first_row) {
  const bool shared = collective != nullptr && collective->size() > 1;
  if (shared) {
    // Every rank decides alike before any of them throws (a rank that threw alone would leave
    // the others waiting in a collective).
    std::int64_t problems[2] = {data.n == 0 ? 1 : 0, data.weights || data.counts ? 1 : 0};
    std::int64_t dims[2] = {data.d, -std::int64_t(data.d)};
    collective->allReduce(problems, 2, Collective::Op::Max);
    collective->allReduce(dims, 2, Collective::Op::Max);
    if (problems[0])
      throw InvalidArgument(
          "A rank's share of the data set has no points (more ranks than "
          "blocks of 8,192 rows).");
    if (problems[1])
      throw InvalidArgument(
          "A run spread over several processes takes points without weights "
          "or counts.");
    if (dims[0] != -dims[1]) throw InvalidArgument("The ranks' shares differ in dimensions.");
  }
  if (data.n == 0) throw InvalidArgument("The data set has no points.");
  if (data.d <= 0) throw InvalidArgument("The data set has no dimensions (d = 0).");
  if (data.points == nullptr) throw InvalidArgument("The data set has no point array.");
  if (data.weights && data.counts)
    throw InvalidArgument("A data set has either weights or counts, not both.");
  const int d = data.d;
  const std::size_t n = data.n;
  const std::size_t chunks = (n + kChunk - 1) / kChunk;
  std::vector<ChunkScan> scans(chunks);
  int workers = threads > 0 ? threads : static_cast<int>(std::thread::hardware_concurrency());
  workers = static_cast<int>(
      std::clamp<std::size_t>(static_cast<std::size_t>(std::max(workers, 1)), 1, chunks));
  ThreadPool pool(workers);

  pool.parallelFor(chunks, [&](std::size_t c, int) {
    ChunkScan& s = scans[c];
    s.lo.assign(d, std::numeric_limits<float>::infinity());
    s.hi.assign(d, -std::numeric_limits<float>::infinity());
    const std::size_t begin = c * kChunk, end = std::min(n, begin + kChunk);
    for (std::size_t i = begin; i < end; ++i) {
      const float* x = data.points + i * d;
      for (int k = 0; k < d; ++k) {
        if (!std::isfinite(x[k])) {
          s.bad_index = i * d + k;
          return;
        }
        s.lo[k] = std::min(s.lo[k], x[k]);
        s.hi[k] = std::max(s.hi[k], x[k]);
      }
      if (data.weights) {
        const float w = data.weights[i];
        if (!std::isfinite(w) || w < 0.0f) {
          s.bad_index = i;
          s.bad_weight = true;
          return;
        }
        s.weight_sum += w;
        s.weight_max = std::max(s.weight_max, w);
      }
      if (data.counts) {
        if (data.counts[i] == 0) {
          s.bad_index = i;
          s.bad_count = true;
          return;
        }
        s.count_sum += data.counts[i];
      }
    }
  });

  DataSummary summary;
  summary.lo.assign(d, std::numeric_limits<float>::infinity());
  summary.hi.assign(d, -std::numeric_limits<float>::infinity());
  float weight_max = 0.0f;
  if (shared) {
    // The first bad value of all the rows (by global index), known to every rank: NaN (0) or
    // infinite (1), the flat index above those two bits.
    std::int64_t first_bad = std::numeric_limits<std::int64_t>::max();
    for (const ChunkScan& s : scans)
      if (s.bad_index != std::numeric_limits<std::size_t>::max()) {
        const std::size_t flat = first_row * std::size_t(d) + s.bad_index;
        first_bad = std::int64_t(flat) * 2 + (std::isnan(data.points[s.bad_index]) ? 0 : 1);
        break;
      }
    collective->allReduce(&first_bad, 1, Collective::Op::Min);
    if (first_bad != std::numeric_limits<std::int64_t>::max())
      throw InvalidArgument("The data contain " +
                            std::string((first_bad & 1) == 0 ? "NaN" : "an infinite value") +
                            " at " + describePoint(std::size_t(first_bad / 2), d) + ".");
  }
  for (const ChunkScan& s : scans) {  // chunk order: the first bad value is reported
    if (s.bad_index != std::numeric_limits<std::size_t>::max()) {
      if (s.bad_count)
        throw InvalidArgument("The count of point " + std::to_string(s.bad_index) +
                              " is zero; every point stands for at least one.");
      if (s.bad_weight) {
        const float w = data.weights[s.bad_index];
        throw InvalidArgument("The weight of point " + std::to_string(s.bad_index) + " is " +
                              (std::isfinite(w) ? "negative" : "not a finite number") + ".");
      }
      const float v = data.points[s.bad_index];
      throw InvalidArgument("The data contain " +
                            std::string(std::isnan(v) ? "NaN" : "an infinite value") + " at " +
                            describePoint(s.bad_index, d) + ".");
    }
    for (int k = 0; k < d; ++k) {
      summary.lo[k] = std::min(summary.lo[k], s.lo[k]);
      summary.hi[k] = std::max(summary.hi[k], s.hi[k]);
    }
    summary.total_weight += s.weight_sum;
    summary.total_count += s.count_sum;
    weight_max = std::max(weight_max, s.weight_max);
  }
  if (data.counts) {
    if (summary.total_count > kMaxTotalCount)
      throw InvalidArgument("The point counts add up to " + std::to_string(summary.total_count) +
                            ", more than the supported 2^40.");
    summary.total_weight = static_cast<double>(summary.total_count);
  } else {
    summary.total_count = n;
    if (!data.weights) summary.total_weight = static_cast<double>(n);
  }
  if (shared) {  // minima, maxima and counts are exact whatever the order
    collective->allReduce(summary.lo.data(), summary.lo.size(), Collective::Op::Min);
    collective->allReduce(summary.hi.data(), summary.hi.size(), Collective::Op::Max);
    std::int64_t rows = std::int64_t(n);
    collective->allReduce(&rows, 1, Collective::Op::Sum);
    summary.total_count = std::uint64_t(rows);
    summary.total_weight = static_cast<double>(rows);
  }
  if (data.weights && !(summary.total_weight > 0.0))
    throw InvalidArgument("All point weights are zero.");

  summary.mid.resize(d);
  summary.scale = 0.0f;
  for (int k = 0; k < d; ++k) {
    // Midpoint computed in double then rounded, so it lies inside [lo, hi].
    summary.mid[k] = static_cast<float>(0.5 * (static_cast<double>(summary.lo[k]) + summary.hi[k]));
    summary.scale = std::max(summary.scale, summary.hi[k] - summary.lo[k]);
  }
  if (!(summary.scale > 0.0f) || !std::isfinite(summary.scale)) summary.scale = 1.0f;

  // Largest centred, weighted magnitude per dimension, computed with the exact operations the
  // engines use, so the chosen fixed-point exponent provably keeps |q| ≤ 2^23. Counts do not
  // enter here: the exponent is the expanded data's, which is what makes counts exact.
  std::vector<std::vector<float>> chunk_max(chunks, std::vector<float>(d, 0.0f));
  pool.parallelFor(chunks, [&](std::size_t c, int) {
    auto& m = chunk_max[c];
    const std::size_t begin = c * kChunk, end = std::min(n, begin + kChunk);
    for (std::size_t i = begin; i < end; ++i) {
      const float* x = data.points + i * d;
      const float w = data.weights ? data.weights[i] : 1.0f;
      for (int k = 0; k < d; ++k) {
        float v = exact::sub(x[k], summary.mid[k]);
        if (data.weights) v = exact::mul(v, w);
        m[k] = std::max(m[k], std::fabs(v));
      }
    }
  });
  std::vector<float> largest(d, 0.0f);
  for (int k = 0; k < d; ++k)
    for (const auto& cm : chunk_max)
      largest[k] = std::max(largest[k], cm[k]);
  if (shared) collective->allReduce(largest.data(), largest.size(), Collective::Op::Max);
  summary.fixed.coord_exp.assign(d, 0);
  for (int k = 0; k < d; ++k)
    summary.fixed.coord_exp[k] = fixedExponent(largest[k]);
  summary.fixed.weighted = data.weights != nullptr;
  summary.fixed.counted = data.counts != nullptr;
  summary.fixed.weight_exp = data.weights ? fixedExponent(weight_max) : 0;
  return summary;
}

double squaredDiameter(const DataSummary& summary) {
  double diameter2 = 0.0;
  for (std::size_t c = 0; c < summary.lo.size(); ++c) {
    const double extent = double(summary.hi[c]) - double(summary.lo[c]);
    diameter2 += extent * extent;
  }
  return diameter2;
}

}  // namespace kms
