// CpuEngine::initPlusPlus: k-means++ and greedy k-means++ seeding on the CPU, pruned by the
// triangle inequality without changing a bit of the result.
//
// Each row x has D²(x), its squared distance to the nearest centroid chosen so far, and belongs
// to that centroid's bucket; a bucket keeps its radius R (the largest D among its rows) and the
// exact sum of its rows' potential terms. For a new point c (the newest centroid, or a greedy
// candidate), a bucket whose centroid b lies at least 2R from c (with a margin for rounding)
// holds no row closer to c than to b: ‖x − c‖ ≥ ‖c − b‖ − ‖x − b‖ ≥ R ≥ D(x). Its rows keep D²
// and contribute their kept term sum, so only the buckets within reach are read. The potentials
// are the same integers (sums of the same terms), the chunk sums of the D² sampling are summed
// in the same order, so every draw and every choice is the one a full pass makes — and the one
// the CUDA engine makes. At k = 256 most buckets are out of reach of most points.
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <vector>

#include "common/constants.h"
#include "common/exact_math.h"
#include "common/seeding.h"
#include "cpu/cpu_engine.h"
#include "kmeans/errors.h"

namespace kms {
namespace {

/// Rows a task of a bucket reads at most (large buckets are split between the threads).
constexpr std::size_t kBucketTask = 4096;

std::size_t chunksOf(std::size_t n, std::size_t chunk) {
  return (n + chunk - 1) / chunk;
}

/// A piece of one bucket's rows.
struct BucketTask {
  int bucket = 0;
  std::size_t begin = 0, end = 0;
};

}  // namespace

void CpuEngine::initPlusPlus(bool greedy) {
  const std::size_t n = data_.n;
  const std::size_t chunks = chunksOf(n, kSamplingChunk);
  const int workers = pool_.size();
  std::vector<float> d2(n, 0.0f);
  std::vector<double> sums(chunks);
  std::vector<std::vector<float>> scratch(static_cast<std::size_t>(workers),
                                          std::vector<float>(d_));
  const bool scaled = data_.weights || data_.counts;
  auto mass = [&](std::size_t i, int j) -> float {  // p_i of step j
    const float w = pointWeight(i);
    if (j == 0) return w;
    return scaled ? exact::mul(w, d2[i]) : d2[i];
  };
  // The point D² sampling draws with uniform number u at step j (chunk sums, then a scan).
  auto draw = [&](int j, double u) -> std::size_t {
    const seeding::ChunkPick pick = seeding::pickChunk(sums, u);
    if (pick.chunk < 0)
      return std::min(n - 1, static_cast<std::size_t>(u * static_cast<double>(n)));
    const std::size_t begin = static_cast<std::size_t>(pick.chunk) * kSamplingChunk;
    const std::size_t end = std::min(n, begin + kSamplingChunk);
    double prefix = 0.0;
    std::size_t last_positive = begin;
    for (std::size_t i = begin; i < end; ++i) {
      const float p = mass(i, j);
      if (p > 0.0f) last_positive = i;
      prefix += p;
      if (prefix > pick.target) return i;
    }
    return last_positive;
  };
  const int candidates = greedy ? seeding::greedyCandidates(k_) : 1;
  const double scale = greedy ? seeding::potentialScale(summary_) : 1.0;
  auto term = [&](std::size_t i, float nearest) {  // row i's exact potential term
    return seeding::potentialTerm(scaled ? exact::mul(pointWeight(i), nearest) : nearest, scale);
  };

  // The buckets (rows by nearest chosen centroid), their radii and term sums.
  std::vector<std::vector<std::uint32_t>> bucket(static_cast<std::size_t>(k_));
  std::vector<double> radius(static_cast<std::size_t>(k_), 0.0);
  std::vector<std::int64_t> bucket_terms(static_cast<std::size_t>(k_), 0);
  // Rounding: each computed squared distance is within (d + 3)·2⁻²⁴ of its true value, so a
  // bucket is skipped only where the true distances leave several times that to spare.
  const double reach_margin = 1.0 + 8.0 * (d_ + 3) * std::ldexp(1.0, -24);
  auto gap = [&](const float* a, const float* b) {
    double s = 0.0;
    for (int c = 0; c < d_; ++c) {
      const double t = double(a[c]) - double(b[c]);
      s += t * t;
    }
    return std::sqrt(s);
  };
  auto outOfReach = [&](const float* point, int b) {
    const double r = radius[static_cast<std::size_t>(b)];
    return std::isfinite(r) &&
           gap(point, &centroids_[static_cast<std::size_t>(b) * d_]) >= 2.0 * r * reach_margin;
  };
  // The buckets' rows within reach of `point`, in tasks for the threads (buckets < `buckets`).
  auto tasksWithin = [&](const std::vector<const float*>& points, int buckets) {
    std::vector<BucketTask> tasks;
    for (int b = 0; b < buckets; ++b) {
      bool reached = false;
      for (const float* p : points)
        reached = reached || !outOfReach(p, b);
      if (!reached) continue;
      const std::size_t size = bucket[static_cast<std::size_t>(b)].size();
      for (std::size_t at = 0; at < size; at += kBucketTask)
        tasks.push_back({b, at, std::min(size, at + kBucketTask)});
    }
    return tasks;
  };
  // A bucket's radius and term sum from its rows (after rows left it or joined it).
  auto describeBucket = [&](int b) {
    double r = 0.0;
    std::int64_t terms = 0;
    for (const std::uint32_t i : bucket[static_cast<std::size_t>(b)]) {
      r = std::max(r, double(d2[i]));
      if (greedy) terms += term(i, d2[i]);
    }
    radius[static_cast<std::size_t>(b)] = std::sqrt(r);
    bucket_terms[static_cast<std::size_t>(b)] = terms;
  };
  auto sumChunk = [&](std::size_t c, int j) {
    const std::size_t begin = c * kSamplingChunk, end = std::min(n, begin + kSamplingChunk);
    double s = 0.0;
    for (std::size_t i = begin; i < end; ++i)
      s += mass(i, j);
    sums[c] = s;
  };

  std::atomic<bool> stopped{false};  // a task saw the interrupt flag (it may be lowered since)
  auto stopHere = [&] {
    if (stopped.load(std::memory_order_relaxed) || interruptRequested()) {
      stopped.store(true, std::memory_order_relaxed);  // a task was skipped: no result
      return true;
    }
    return false;
  };
  std::vector<std::int64_t> worker_totals(static_cast<std::size_t>(workers) * candidates);
  std::vector<float> candidate(static_cast<std::size_t>(candidates) * d_);
  for (int j = 0; j < k_; ++j) {
    const float* newest = j > 0 ? &centroids_[static_cast<std::size_t>(j - 1) * d_] : nullptr;
    if (j <= 1) {
      // Every row: its weight (step 0), or its distance to the first centroid (step 1).
      pool_.parallelFor(chunks, [&](std::size_t c, int worker) {
        if (stopHere()) return;
        float* x = scratch[static_cast<std::size_t>(worker)].data();
        const std::size_t begin = c * kSamplingChunk, end = std::min(n, begin + kSamplingChunk);
        if (newest)
          for (std::size_t i = begin; i < end; ++i) {
            centreInto(i, x);
            d2[i] = exact::squaredDistance(x, newest, d_);
          }
        sumChunk(c, j);
      });
      if (stopped.load()) throw Interrupted("initialisation interrupted");
      if (j == 1) {
        bucket[0].resize(n);
        for (std::size_t i = 0; i < n; ++i)
          bucket[0][i] = static_cast<std::uint32_t>(i);
        describeBucket(0);
      }
    } else {
      // The newest centroid takes the rows now nearer to it, from the buckets within reach.
      const std::vector<BucketTask> tasks = tasksWithin({newest}, j - 1);
      std::vector<std::vector<std::uint32_t>> kept(tasks.size()), moved(tasks.size());
      std::vector<unsigned char> dirty(chunks, 0);
      std::vector<std::vector<std::size_t>> dirty_chunks(static_cast<std::size_t>(workers));
      pool_.parallelFor(tasks.size(), [&](std::size_t t, int worker) {
        if (stopHere()) return;
        float* x = scratch[static_cast<std::size_t>(worker)].data();
        const BucketTask& task = tasks[t];
        const std::vector<std::uint32_t>& rows = bucket[static_cast<std::size_t>(task.bucket)];
        for (std::size_t at = task.begin; at < task.end; ++at) {
          const std::uint32_t i = rows[at];
          centreInto(i, x);
          const float dn = exact::squaredDistance(x, newest, d_);
          if (dn < d2[i]) {
            d2[i] = dn;
            moved[t].push_back(i);
            dirty_chunks[static_cast<std::size_t>(worker)].push_back(i / kSamplingChunk);
          } else {
            kept[t].push_back(i);
          }
        }
      });
      if (stopped.load()) throw Interrupted("initialisation interrupted");
      // Rebuild the buckets read (their rows in task order) and the newest one.
      std::vector<std::uint32_t>& joined = bucket[static_cast<std::size_t>(j - 1)];
      for (std::size_t t = 0; t < tasks.size(); ++t) {
        const int b = tasks[t].bucket;
        if (tasks[t].begin == 0) bucket[static_cast<std::size_t>(b)].clear();
        // Rows before this task's range were already rebuilt by earlier tasks of the bucket;
        // clear() above left the vector empty, so appending in task order rebuilds it.
        joined.insert(joined.end(), moved[t].begin(), moved[t].end());
      }
      for (std::size_t t = 0; t < tasks.size(); ++t) {
        std::vector<std::uint32_t>& rows = bucket[static_cast<std::size_t>(tasks[t].bucket)];
        rows.insert(rows.end(), kept[t].begin(), kept[t].end());
      }
      for (std::size_t t = 0; t < tasks.size(); ++t)
        if (tasks[t].begin == 0) describeBucket(tasks[t].bucket);
      describeBucket(j - 1);
      for (const auto& list : dirty_chunks)
        for (const std::size_t c : list)
          dirty[c] = 1;
      pool_.parallelFor(chunks, [&](std::size_t c, int) {
        if (dirty[c]) sumChunk(c, j);
      });
    }
    float* out = &centroids_[static_cast<std::size_t>(j) * d_];
    if (j == 0 || !greedy) {
      centreInto(draw(j, seeding::plusPlusUniform(config_.seed, j)), out);
      continue;
    }
    // Greedy: the candidate whose potential Σ w·min(D², ‖x − c‖²) is lowest, summed exactly:
    // the kept term sums of the buckets out of its reach, the rows of the others.
    std::vector<const float*> points;
    for (int l = 0; l < candidates; ++l) {
      float* c = &candidate[static_cast<std::size_t>(l) * d_];
      centreInto(draw(j, seeding::greedyUniform(config_.seed, j, l)), c);
      points.push_back(c);
    }
    std::vector<std::int64_t> potential(static_cast<std::size_t>(candidates), 0);
    std::vector<std::vector<unsigned char>> reaches(static_cast<std::size_t>(j));
    for (int b = 0; b < j; ++b) {
      reaches[static_cast<std::size_t>(b)].resize(static_cast<std::size_t>(candidates));
      for (int l = 0; l < candidates; ++l) {
        const bool in = !outOfReach(points[static_cast<std::size_t>(l)], b);
        reaches[static_cast<std::size_t>(b)][static_cast<std::size_t>(l)] = in;
        if (!in)
          potential[static_cast<std::size_t>(l)] += bucket_terms[static_cast<std::size_t>(b)];
      }
    }
    const std::vector<BucketTask> tasks = tasksWithin(points, j);
    std::fill(worker_totals.begin(), worker_totals.end(), 0);
    pool_.parallelFor(tasks.size(), [&](std::size_t t, int worker) {
      if (stopHere()) return;
      float* x = scratch[static_cast<std::size_t>(worker)].data();
      std::int64_t* total = &worker_totals[static_cast<std::size_t>(worker) * candidates];
      const BucketTask& task = tasks[t];
      const std::vector<unsigned char>& in = reaches[static_cast<std::size_t>(task.bucket)];
      const std::vector<std::uint32_t>& rows = bucket[static_cast<std::size_t>(task.bucket)];
      for (std::size_t at = task.begin; at < task.end; ++at) {
        const std::uint32_t i = rows[at];
        centreInto(i, x);
        for (int l = 0; l < candidates; ++l) {
          if (!in[static_cast<std::size_t>(l)]) continue;
          const float dc =
              exact::squaredDistance(x, &candidate[static_cast<std::size_t>(l) * d_], d_);
          total[l] += term(i, std::min(d2[i], dc));
        }
      }
    });
    if (stopped.load()) throw Interrupted("initialisation interrupted");
    for (int w = 0; w < workers; ++w)
      for (int l = 0; l < candidates; ++l)
        potential[static_cast<std::size_t>(l)] +=
            worker_totals[static_cast<std::size_t>(w) * candidates + l];
    int best = 0;
    for (int l = 1; l < candidates; ++l)  // ties keep the earlier candidate
      if (potential[static_cast<std::size_t>(l)] < potential[static_cast<std::size_t>(best)])
        best = l;
    std::copy_n(&candidate[static_cast<std::size_t>(best) * d_], d_, out);
  }
}

}  // namespace kms
