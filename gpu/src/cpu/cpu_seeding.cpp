// CpuEngine::initPlusPlus: k-means++ and greedy k-means++ seeding on the CPU.
//
// Each step lowers every row's D² with the newest centroid, sums the D² sampling's chunks, draws,
// and (greedy) sums each candidate's potential Σ w·min(D², ‖x − c‖²) exactly, as integers. For
// data of few dimensions the rows sit in a k-d tree (seeding_tree.h) that skips every node no new
// point can reach: the same D², the same integers, so every draw and every choice is the one a
// pass over every row makes — and the one the CUDA engine makes (tested against a full pass).
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "common/constants.h"
#include "common/exact_math.h"
#include "common/seeding.h"
#include "cpu/cpu_engine.h"
#include "cpu/seeding_tree.h"
#include "kmeans/errors.h"

namespace kms {
namespace {

/// The k-d tree pays where a box bounds its rows tightly: up to this many dimensions.
constexpr int kTreeMaxDims = cpu::SeedingTree::kMaxDims;
/// And while its copy of the rows stays modest (values n × d).
constexpr std::size_t kTreeMaxValues = std::size_t(64) << 20;

}  // namespace

std::int64_t CpuEngine::potentialTermOf(std::size_t i, float d2, double scale) const {
  const bool scaled = data_.weights || data_.counts;
  return seeding::potentialTerm(scaled ? exact::mul(pointWeight(i), d2) : d2, scale);
}

void CpuEngine::initPlusPlus(bool greedy) {
  const std::size_t n = data_.n;
  const std::size_t chunks = chunkCount(n, kSamplingChunk);
  std::vector<float> d2(n, 0.0f);
  std::vector<double> sums(chunks);
  std::vector<std::vector<float>> scratch(static_cast<std::size_t>(pool_.size()),
                                          std::vector<float>(d_));
  const bool scaled = data_.weights || data_.counts;
  auto mass = [&](std::size_t i, int j) -> float {  // p_i of step j
    const float w = pointWeight(i);
    if (j == 0) return w;
    return scaled ? exact::mul(w, d2[i]) : d2[i];
  };
  // Every rank's chunk sums in rank order: the whole data set's, chunk by chunk (the shares
  // hold whole chunks). Gathered once per step, after the sums change.
  std::vector<double> all_sums;
  // The centred point D² sampling draws with uniform number u at step j (chunk sums, then a scan
  // of the chosen chunk by the rank that holds it), into `out`.
  const std::size_t global_n = share_.global_rows;
  auto draw = [&](int j, double u, float* out) {
    const seeding::ChunkPick pick = seeding::pickChunk(all_sums, u);
    if (pick.chunk < 0) {
      const std::size_t row =
          std::min(global_n - 1, static_cast<std::size_t>(u * double(global_n)));
      fetchRows({row}, out);
      return;
    }
    const std::size_t global_begin = static_cast<std::size_t>(pick.chunk) * kSamplingChunk;
    const int owner = share_.ownerOf(global_begin);
    if (owner == collective_->rank()) {
      const std::size_t begin = global_begin - share_.first_row;
      const std::size_t end = std::min(n, begin + kSamplingChunk);
      double prefix = 0.0;
      std::size_t chosen = begin, last_positive = begin;
      bool found = false;
      for (std::size_t i = begin; i < end && !found; ++i) {
        const float p = mass(i, j);
        if (p > 0.0f) last_positive = i;
        prefix += p;
        if (prefix > pick.target) {
          chosen = i;
          found = true;
        }
      }
      centreInto(found ? chosen : last_positive, out);
    }
    collective_->broadcast(out, static_cast<std::size_t>(d_) * sizeof(float), owner);
  };
  const int candidates = greedy ? seeding::greedyCandidates(k_) : 1;
  const double scale = greedy ? seeding::potentialScale(summary_) : 1.0;
  auto sumChunk = [&](std::size_t c, int j) {
    const std::size_t begin = c * kSamplingChunk, end = std::min(n, begin + kSamplingChunk);
    double s = 0.0;
    for (std::size_t i = begin; i < end; ++i)
      s += mass(i, j);
    sums[c] = s;
  };

  // The tree depends only on the data (and whether its nodes keep greedy term sums): built once
  // for every start on the same data; each seeding describes its nodes afresh at its second step.
  cpu::SeedingTree* tree = nullptr;
  const bool use_tree =
      d_ <= kTreeMaxDims && n * static_cast<std::size_t>(d_) <= kTreeMaxValues && k_ > 2;
  if (use_tree && (!seeding_tree_ || seeding_tree_greedy_ != greedy)) {
    seeding_tree_.reset();
    std::vector<float> centred(n * static_cast<std::size_t>(d_));
    pool_.parallelFor(chunks, [&](std::size_t c, int) {
      for (std::size_t i = c * kSamplingChunk; i < std::min(n, (c + 1) * kSamplingChunk); ++i)
        centreInto(i, &centred[i * static_cast<std::size_t>(d_)]);
    });
    std::vector<float> weights;
    if (scaled) {
      weights.resize(n);
      for (std::size_t i = 0; i < n; ++i)
        weights[i] = pointWeight(i);
    }
    seeding_tree_ = std::make_unique<cpu::SeedingTree>(centred.data(), weights.data(), scaled,
                                                       scale, n, d_, greedy);
    seeding_tree_greedy_ = greedy;
  }
  if (use_tree) tree = seeding_tree_.get();

  std::atomic<bool> stopped{false};  // a chunk saw the interrupt flag (it may be lowered since)
  auto stopHere = [&] {
    if (stopped.load(std::memory_order_relaxed) || interruptRequested()) {
      stopped.store(true, std::memory_order_relaxed);  // a task was skipped: no result
      return true;
    }
    return false;
  };
  std::vector<std::vector<std::int64_t>> potentials(chunks);
  std::vector<float> candidate(static_cast<std::size_t>(candidates) * d_);
  std::vector<unsigned char> dirty(chunks, 0);
  for (int j = 0; j < k_; ++j) {
    const float* newest = j > 0 ? &centroids_[static_cast<std::size_t>(j - 1) * d_] : nullptr;
    if (j >= 2 && tree) {
      // The tree lowers D² where the newest centroid reaches; only those chunks are summed again.
      std::fill(dirty.begin(), dirty.end(), 0);
      tree->lower(newest, d2, [&](std::size_t i) { dirty[i / kSamplingChunk] = 1; });
      if (interruptRequested()) throw Interrupted("initialisation interrupted");
      pool_.parallelFor(chunks, [&](std::size_t c, int) {
        if (dirty[c]) sumChunk(c, j);
      });
    } else {
      pool_.parallelFor(chunks, [&](std::size_t c, int worker) {
        if (stopHere()) return;
        float* x = scratch[static_cast<std::size_t>(worker)].data();
        const std::size_t begin = c * kSamplingChunk, end = std::min(n, begin + kSamplingChunk);
        if (newest)
          for (std::size_t i = begin; i < end; ++i) {
            centreInto(i, x);
            const float dn = exact::squaredDistance(x, newest, d_);
            if (j == 1 || dn < d2[i]) d2[i] = dn;
          }
        sumChunk(c, j);
      });
      if (stopped.load()) throw Interrupted("initialisation interrupted");
      if (j == 1 && tree) tree->describe(d2);
    }
    all_sums = collective_->allGather(sums);
    float* out = &centroids_[static_cast<std::size_t>(j) * d_];
    if (j == 0 || !greedy) {
      draw(j, seeding::plusPlusUniform(config_.seed, j), out);
      continue;
    }
    // Greedy: the candidate whose potential Σ w·min(D², ‖x − c‖²) is lowest, summed exactly.
    for (int l = 0; l < candidates; ++l)
      draw(j, seeding::greedyUniform(config_.seed, j, l),
           &candidate[static_cast<std::size_t>(l) * d_]);
    std::vector<std::int64_t> potential(static_cast<std::size_t>(candidates), 0);
    if (tree) {
      pool_.parallelFor(static_cast<std::size_t>(candidates), [&](std::size_t l, int) {
        if (stopHere()) return;
        potential[l] = tree->potential(&candidate[l * d_], d2);
      });
    } else {
      pool_.parallelFor(chunks, [&](std::size_t c, int worker) {
        if (stopHere()) return;
        float* x = scratch[static_cast<std::size_t>(worker)].data();
        std::vector<std::int64_t>& total = potentials[c];
        total.assign(static_cast<std::size_t>(candidates), 0);
        const std::size_t begin = c * kSamplingChunk, end = std::min(n, begin + kSamplingChunk);
        for (std::size_t i = begin; i < end; ++i) {
          centreInto(i, x);
          for (int l = 0; l < candidates; ++l) {
            const float dc =
                exact::squaredDistance(x, &candidate[static_cast<std::size_t>(l) * d_], d_);
            total[static_cast<std::size_t>(l)] += potentialTermOf(i, std::min(d2[i], dc), scale);
          }
        }
      });
      // A chunk the interrupt skipped has no totals (on the first greedy step, not even an
      // empty row of them): stop before reading any.
      if (stopped.load()) throw Interrupted("initialisation interrupted");
      for (const auto& total : potentials)
        for (int l = 0; l < candidates; ++l)
          potential[static_cast<std::size_t>(l)] += total[static_cast<std::size_t>(l)];
    }
    if (stopped.load()) throw Interrupted("initialisation interrupted");
    collective_->allReduce(potential.data(), potential.size(), Collective::Op::Sum);
    int best = 0;
    for (int l = 1; l < candidates; ++l)  // ties keep the earlier candidate
      if (potential[static_cast<std::size_t>(l)] < potential[static_cast<std::size_t>(best)])
        best = l;
    std::copy_n(&candidate[static_cast<std::size_t>(best) * d_], d_, out);
  }
}

}  // namespace kms
