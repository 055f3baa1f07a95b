#include "cpu/cpu_engine.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "common/centring.h"
#include "common/constants.h"
#include "common/convergence.h"
#include "common/exact_math.h"
#include "common/seeding.h"
#include "cpu/distance_bounds.h"
#include "cpu/exact_distances.h"
#include "kmeans/errors.h"

namespace kms {
namespace {

constexpr std::size_t kAssignChunk = 8192;

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

}  // namespace

CpuEngine::CpuEngine(int threads, std::shared_ptr<Collective> collective, CpuTuning tuning)
    : tuning_(tuning),
      pool_(threads),
      collective_(collective ? std::move(collective) : soloCollective()) {}

BackendInfo CpuEngine::info() const {
  std::string device =
      "CPU, " + std::to_string(pool_.size()) + " thread" + (pool_.size() == 1 ? "" : "s");
  if (collective_->size() > 1)
    device += " a rank, " + std::to_string(collective_->size()) + " ranks";
  return {"cpu", device};
}

void CpuEngine::setData(const DataView& data) {
  has_data_ = false;
  initialized_ = false;
  seeding_tree_.reset();                       // of the previous data
  share_ = shareOfRows(*collective_, data.n);  // where this rank's rows sit among all
  summary_ = summarizeData(data, pool_.size(), collective_.get(), share_.first_row);
  data_ = data;
  d_ = data.d;
  has_data_ = true;
  initialized_ = false;
  resetRun();
  coord_scale_.resize(d_);
  for (int c = 0; c < d_; ++c)
    coord_scale_[c] = exact::pow2f(summary_.fixed.coord_exp[c]);
  weight_scale_ = exact::pow2f(summary_.fixed.weight_exp);
  // Low dimensions search the centroids sorted along the data's principal axis (this rank's
  // rows: only the speed depends on it).
  sorted_search_ = tuning_.sorted_search && d_ <= kSortedSearchMaxD && data.n > 0;
  if (sorted_search_) axis_ = principalAxis(data.points, data.n, d_);
}

void CpuEngine::centreInto(std::size_t i, float* out) const {
  const float* x = data_.points + i * static_cast<std::size_t>(d_);
  for (int c = 0; c < d_; ++c)
    out[c] = exact::sub(x[c], summary_.mid[c]);
}

void CpuEngine::initialize(const KMeansConfig& config) {
  if (!has_data_) throw std::logic_error("CpuEngine::initialize called before setData");
  validateConfig(config, share_.global_rows, d_);
  initialized_ = false;  // until the seeding finishes (it may be interrupted)
  config_ = config;
  k_ = config.k;
  k_padded_ = (k_ + 7) & ~7;
  centroids_.assign(static_cast<std::size_t>(k_) * d_, 0.0f);
  switch (config.init) {
    case InitMethod::Random:
      initRandom();
      break;
    case InitMethod::KMeansPlusPlus:
      initPlusPlus(false);
      break;
    case InitMethod::GreedyKMeansPlusPlus:
      initPlusPlus(true);
      break;
    case InitMethod::KMeansParallel:
      initParallel();
      break;
    case InitMethod::Given:
      initGiven();
      break;
  }
  previous_ = centroids_;
  labels_.assign(data_.n, -1);
  accumulators_.assign(static_cast<std::size_t>(pool_.size()), Accumulator{});
  for (auto& acc : accumulators_) {
    acc.coord.assign(static_cast<std::size_t>(k_) * d_, 0);
    acc.weight.assign(k_, 0);
  }
  chunk_inertia_.assign(chunkCount(data_.n, kAssignChunk), 0.0);
  kept_.coord.assign(static_cast<std::size_t>(k_) * d_, 0);
  kept_.weight.assign(k_, 0);
  kept_.changed = 0;
  shifts_.assign(static_cast<std::size_t>(k_) + 2, 0.0f);
  largest_shift_ = -1;
  groups_ = groupCountFor();
  if (groups_ > 0) formGroups();
  // Hamerly's (upper, lower) a counted row, where the group bounds do not take their place.
  bounds_.assign(data_.counts && groups_ == 0 ? 2 * data_.n : 0, 0.0f);
  distance_width_ = static_cast<std::size_t>(k_padded_);
  if (groups_ > 0) distance_width_ = std::max(distance_width_, group_column_.back());
  distance_scratch_.assign(static_cast<std::size_t>(pool_.size()),
                           std::vector<float>(distance_width_ + static_cast<std::size_t>(d_)));
  group_stride_ = (groups_ + 3) & ~3;
  group_bounds_.assign(static_cast<std::size_t>(group_stride_) * (groups_ > 0 ? data_.n : 0),
                       std::numeric_limits<float>::infinity());
  group_stamps_.assign(groups_ > 0 ? data_.n : 0, 0);
  group_moved_.assign(static_cast<std::size_t>(group_stride_), 0.0);
  group_steps_ = 0;
  group_bounds_stale_ = false;
  initialized_ = true;
  beginRun();
}

Engine::CentroidsNow CpuEngine::centroidsForHistory() const {
  return {centroids_, &summary_.mid};
}

void CpuEngine::fetchRows(const std::vector<std::size_t>& rows, float* out) {
  const std::size_t d = static_cast<std::size_t>(d_);
  if (collective_->size() == 1) {
    for (std::size_t e = 0; e < rows.size(); ++e)
      centreInto(rows[e], out + e * d);
    return;
  }
  // Each rank sends the rows it holds with their places in `rows`; every rank places them all.
  std::vector<std::int64_t> places;
  std::vector<float> values;
  std::vector<float> x(d);
  for (std::size_t e = 0; e < rows.size(); ++e) {
    if (rows[e] < share_.first_row || rows[e] >= share_.first_row + data_.n) continue;
    places.push_back(std::int64_t(e));
    centreInto(rows[e] - share_.first_row, x.data());
    values.insert(values.end(), x.begin(), x.end());
  }
  places = collective_->allGather(places);
  values = collective_->allGather(values);
  for (std::size_t p = 0; p < places.size(); ++p)
    std::copy_n(&values[p * d], d, out + std::size_t(places[p]) * d);
}

void CpuEngine::initRandom() {
  if (data_.counts) {  // one process only (shares take no counts)
    const auto picks = seeding::weightedDistinctIndices(data_.counts, data_.n, k_, config_.seed);
    for (int j = 0; j < k_; ++j)
      centreInto(picks[j], &centroids_[static_cast<std::size_t>(j) * d_]);
    return;
  }
  fetchRows(seeding::distinctIndices(share_.global_rows, k_, config_.seed), centroids_.data());
}

void CpuEngine::initGiven() {
  centroids_ = givenCentred(config_, summary_.mid);
}

void CpuEngine::assignChunk(std::size_t chunk, Accumulator& acc, std::vector<float>& scratch) {
  const std::size_t begin = chunk * kAssignChunk;
  const std::size_t end = std::min(data_.n, begin + kAssignChunk);
  const int kp = k_padded_;
  float* dist = scratch.data();
  float* x = scratch.data() + distance_width_;
  const bool weighted = data_.weights != nullptr;
  const bool counted = data_.counts != nullptr;
  double inertia = 0.0;
  for (std::size_t i = begin; i < end; ++i) {
    centreInto(i, x);
    if (counted) {
      if (groups_ > 0)
        assignCountedRowGrouped(i, x, dist, acc, inertia);
      else
        assignCountedRow(i, x, dist, acc, inertia);
      continue;
    }
    int best = 0;
    float best_dist = 0.0f;
    const int old = labels_[i];
    bool kept = false;
    if (old >= 0 && half_gap_[static_cast<std::size_t>(old)] > 0.0f) {
      // Hamerly's second test: a row nearer its centroid than half the way to that centroid's
      // nearest other keeps it (the margins make it the full search's label).
      best_dist = exact::squaredDistance(x, &centroids_[static_cast<std::size_t>(old) * d_], d_);
      kept = cpu::upperFromSquared(best_dist) < half_gap_[static_cast<std::size_t>(old)];
      if (kept) best = old;
      ++acc.distances;
    }
    if (!kept) ++acc.rows_searched;
    if (!kept && useSortedSearch()) {
      float lower = 0.0f;
      acc.distances +=
          static_cast<std::uint64_t>(searchSorted(x, old, false, best, best_dist, lower));
    } else if (!kept) {
      // Distances to all centroids, vectorised over centroids.
      acc.distances += static_cast<std::uint64_t>(k_);
      cpu::exactDistancesToAll(x, transposed_.data(), d_, kp, dist);
      best_dist = dist[0];
      for (int j = 1; j < k_; ++j) {
        if (dist[j] < best_dist) {
          best_dist = dist[j];
          best = j;
        }
      }
    }
    const float w = weighted ? data_.weights[i] : 1.0f;
    inertia += weighted ? static_cast<double>(exact::mul(best_dist, w)) : best_dist;
    if (labels_[i] != best) ++acc.changed;
    next_labels_[i] = best;
    std::int64_t* sums = &acc.coord[static_cast<std::size_t>(best) * d_];
    for (int c = 0; c < d_; ++c)
      sums[c] += exact::quantize(weighted ? exact::mul(x[c], w) : x[c], coord_scale_[c]);
    acc.weight[best] += weighted ? exact::quantize(w, weight_scale_) : 1;
  }
  chunk_inertia_[chunk] = inertia;
}

void CpuEngine::assignCountedRow(std::size_t i, const float* x, float* dist, Accumulator& acc,
                                 double& inertia) {
  // The row stands for m identical points, so it adds m times everything one of them would add
  // — in integers, hence exactly what the expanded data add. The bounds carry a relative slack
  // far above float rounding (see kBoundSlack), so a row is settled only when its centroid is
  // nearer than every other by a margin no rounding can close: its label is the full search's.
  const int old = labels_[i];
  const float* bound = &bounds_[2 * i];
  float* next_bound = &next_bounds_[2 * i];
  int best = old;
  float best_dist = 0.0f;
  float upper = 0.0f, lower = 0.0f;
  bool settled = false;
  if (old >= 0) {
    // The nearest other centroid came at most the largest move of the *other* centroids nearer
    // (Hamerly): the second largest when this row's own centroid moved most.
    const float others = old == largest_shift_ ? shifts_[k_ + 1] : shifts_[k_];
    lower = std::max(0.0f, (bound[1] - others) * (1.0f - kBoundSlack));
    // Settled by the lower bound or by Hamerly's second test (nearer than half the way to the
    // centroid's nearest other: no other centroid can be as near).
    const float enough = std::max(lower, half_gap_[static_cast<std::size_t>(old)]);
    if ((bound[0] + shifts_[old]) * (1.0f + kBoundSlack) < enough) {
      best_dist = exact::squaredDistance(x, &previous_[static_cast<std::size_t>(old) * d_], d_);
      upper = cpu::upperFromSquared(best_dist);
      settled = upper < enough;
      ++acc.distances;
    }
  }
  if (!settled) ++acc.rows_searched;
  if (!settled && useSortedSearch()) {
    acc.distances += static_cast<std::uint64_t>(searchSorted(x, old, true, best, best_dist, lower));
    upper = cpu::upperFromSquared(best_dist);
  } else if (!settled) {
    acc.distances += static_cast<std::uint64_t>(k_);
    cpu::exactDistancesToAll(x, transposed_.data(), d_, k_padded_, dist);
    best = 0;
    best_dist = dist[0];
    float second = std::numeric_limits<float>::infinity();
    for (int j = 1; j < k_; ++j) {
      const float s = dist[j];
      if (s < best_dist) {  // strict: among equal distances the lower index stays
        second = best_dist;
        best_dist = s;
        best = j;
      } else if (s < second) {
        second = s;
      }
    }
    upper = cpu::upperFromSquared(best_dist);
    lower = cpu::lowerFromSquared(second);  // k = 1: no other centroid, ∞
  }
  next_bound[0] = upper;
  next_bound[1] = lower;
  next_labels_[i] = best;
  inertia += static_cast<double>(best_dist) * data_.counts[i];
  if (old != best) moveCountedRow(i, x, old, best, acc);
}

void CpuEngine::moveCountedRow(std::size_t i, const float* x, int from, int to,
                               Accumulator& acc) const {
  const std::uint32_t m = data_.counts[i];
  acc.changed += m;
  std::int64_t* into = &acc.coord[static_cast<std::size_t>(to) * d_];
  std::int64_t* out = from >= 0 ? &acc.coord[static_cast<std::size_t>(from) * d_] : nullptr;
  for (int c = 0; c < d_; ++c) {
    const std::int64_t q = static_cast<std::int64_t>(m) * exact::quantize(x[c], coord_scale_[c]);
    into[c] += q;
    if (out) out[c] -= q;
  }
  acc.weight[to] += m;
  if (from >= 0) acc.weight[from] -= m;
}

std::vector<float> CpuEngine::farthestPositions(int count) {
  // The `count` farthest distinct positions (see EmptyClusterPolicy::ReseedFarthest): points in
  // the order of (distance to the centroid they were assigned to, descending; centred
  // coordinates, lexicographically ascending), each position taken once. The order ignores
  // point indices, so compact data (one row per value), the expanded data and any split of the
  // rows between ranks pick the same positions. Each chunk keeps its best `count` positions,
  // then every chunk's (and every rank's) candidates are merged.
  const std::size_t d = static_cast<std::size_t>(d_);
  const std::size_t stride = d + 1;  // a candidate: its distance, then its centred coordinates
  auto before = [d](const float* a, const float* b) {
    if (a[0] != b[0]) return a[0] > b[0];
    for (std::size_t c = 1; c <= d; ++c)
      if (a[c] != b[c]) return a[c] < b[c];
    return false;
  };
  // Keeps the first `count` distinct positions of `list` (candidates of `stride` floats) in
  // order (equal positions compare equal, so they are neighbours once sorted).
  auto keepBest = [&](std::vector<float>& list) {
    std::vector<const float*> order(list.size() / stride);
    for (std::size_t e = 0; e < order.size(); ++e)
      order[e] = &list[e * stride];
    std::sort(order.begin(), order.end(), before);
    std::vector<float> distinct;
    const float* last = nullptr;
    for (const float* c : order) {
      if (distinct.size() == static_cast<std::size_t>(count) * stride) break;
      if (last && !before(last, c) && !before(c, last)) continue;
      distinct.insert(distinct.end(), c, c + stride);
      last = c;
    }
    list = std::move(distinct);
  };
  const std::size_t chunks = chunkCount(data_.n, kAssignChunk);
  std::vector<std::vector<float>> best(chunks);
  pool_.parallelFor(chunks, [&](std::size_t chunk, int) {
    const std::size_t begin = chunk * kAssignChunk, end = std::min(data_.n, begin + kAssignChunk);
    std::vector<float>& out = best[chunk];
    std::vector<std::pair<float, std::size_t>> far;
    far.reserve(end - begin);
    std::vector<float> x(d);
    for (std::size_t i = begin; i < end; ++i) {
      centreInto(i, x.data());
      const float* c = &previous_[static_cast<std::size_t>(labels_[i]) * d];
      far.emplace_back(exact::squaredDistance(x.data(), c, d_), i);
    }
    std::sort(far.begin(), far.end(),
              [](const auto& a, const auto& b) { return a.first > b.first; });
    // Whole groups of equal distance, farthest first, until `count` distinct positions: the
    // chunk's first `count` positions in the full order are then among them.
    std::size_t e = 0;
    while (e < far.size() && out.size() < static_cast<std::size_t>(count) * stride) {
      for (const float group = far[e].first; e < far.size() && far[e].first == group; ++e) {
        out.push_back(group);
        centreInto(far[e].second, x.data());
        out.insert(out.end(), x.begin(), x.end());
      }
      keepBest(out);
    }
  });
  std::vector<float> all;
  for (const auto& b : best)
    all.insert(all.end(), b.begin(), b.end());
  keepBest(all);
  all = collective_->allGather(all);  // every rank's best, merged alike on every rank
  keepBest(all);
  std::vector<float> positions;
  for (std::size_t e = 0; e < all.size(); e += stride)
    positions.insert(positions.end(), all.begin() + std::ptrdiff_t(e + 1),
                     all.begin() + std::ptrdiff_t(e + stride));
  return positions;
}

void CpuEngine::requireInitialized() const {
  if (!initialized_) throw std::logic_error("CpuEngine::step called before initialize");
}

IterationStats CpuEngine::step() {
  requireInitialized();
  IterationStats stats;
  stats.iteration = iteration_ + 1;
  const std::size_t kd = static_cast<std::size_t>(k_) * d_;

  // Assign (and accumulate exact per-worker sums).
  auto t0 = Clock::now();
  previous_ = centroids_;
  transposeCentroids();
  for (auto& acc : accumulators_) {
    std::fill(acc.coord.begin(), acc.coord.end(), 0);
    std::fill(acc.weight.begin(), acc.weight.end(), 0);
    acc.changed = 0;
    acc.rows_searched = 0;
    acc.distances = 0;
  }
  next_labels_.resize(labels_.size());
  next_bounds_.resize(bounds_.size());
  if (groups_ > 0) prepareGroupDecay();
  std::atomic<bool> interrupted{false};
  pool_.parallelFor(chunk_inertia_.size(), [&](std::size_t chunk, int worker) {
    if (interrupted.load(std::memory_order_relaxed) || interruptRequested()) {
      interrupted.store(true, std::memory_order_relaxed);
      return;
    }
    assignChunk(chunk, accumulators_[worker], distance_scratch_[worker]);
  });
  if (interrupted.load()) {
    group_bounds_stale_ = groups_ > 0;
    throw Interrupted("iteration interrupted");
  }
  group_bounds_stale_ = false;
  labels_.swap(next_labels_);
  bounds_.swap(next_bounds_);
  stats.ms.assign_ms = msSince(t0);

  // Reduce: integer sums are exact, so the worker order does not matter; inertia is summed in
  // chunk order.
  t0 = Clock::now();
  Accumulator& total = accumulators_[0];
  for (std::size_t w = 1; w < accumulators_.size(); ++w) {
    const Accumulator& a = accumulators_[w];
    for (std::size_t i = 0; i < kd; ++i)
      total.coord[i] += a.coord[i];
    for (int j = 0; j < k_; ++j)
      total.weight[j] += a.weight[j];
    total.changed += a.changed;
    total.rows_searched += a.rows_searched;
    total.distances += a.distances;
  }
  if (collective_->size() > 1) {  // every rank's sums, in one exchange
    std::vector<std::int64_t> all(kd + static_cast<std::size_t>(k_) + 3);
    std::copy(total.coord.begin(), total.coord.end(), all.begin());
    std::copy(total.weight.begin(), total.weight.end(), all.begin() + std::ptrdiff_t(kd));
    all[all.size() - 3] = std::int64_t(total.changed);
    all[all.size() - 2] = std::int64_t(total.rows_searched);
    all[all.size() - 1] = std::int64_t(total.distances);
    collective_->allReduce(all.data(), all.size(), Collective::Op::Sum);
    std::copy_n(all.begin(), kd, total.coord.begin());
    std::copy_n(all.begin() + std::ptrdiff_t(kd), k_, total.weight.begin());
    total.changed = std::uint64_t(all[all.size() - 3]);
    total.rows_searched = std::uint64_t(all[all.size() - 2]);
    total.distances = std::uint64_t(all[all.size() - 1]);
  }
  // Chunk by chunk in row order, every rank's chunks in rank order: the shares hold whole chunks,
  // so this is the sum one process makes.
  std::vector<double> every_rank;
  if (collective_->size() > 1) every_rank = collective_->allGather(chunk_inertia_);
  for (double v : collective_->size() > 1 ? every_rank : chunk_inertia_)
    stats.inertia += v;
  stats.changed = total.changed;
  stats.rows_searched = static_cast<std::int64_t>(total.rows_searched);
  stats.distances_computed = static_cast<std::int64_t>(total.distances);
  if (data_.counts) {  // compact data: this pass moved sums between clusters; keep the totals
    for (std::size_t i = 0; i < kd; ++i)
      kept_.coord[i] += total.coord[i];
    for (int j = 0; j < k_; ++j)
      kept_.weight[j] += total.weight[j];
  }
  const Accumulator& sums = data_.counts ? kept_ : total;
  stats.ms.reduce_ms = msSince(t0);

  // Update: means, empty clusters, shift, convergence.
  t0 = Clock::now();
  std::vector<int> empty;
  for (int j = 0; j < k_; ++j) {
    float* c = &centroids_[static_cast<std::size_t>(j) * d_];
    if (sums.weight[j] == 0) {
      empty.push_back(j);
      continue;  // keeps the old centroid unless re-seeded below
    }
    for (int dim = 0; dim < d_; ++dim)
      c[dim] = exact::meanFromSums(sums.coord[static_cast<std::size_t>(j) * d_ + dim],
                                   summary_.fixed.coord_exp[dim], sums.weight[j],
                                   summary_.fixed.weight_exp);
  }
  stats.empty_clusters = static_cast<int>(empty.size());
  if (!empty.empty() && config_.empty_clusters == EmptyClusterPolicy::ReseedFarthest) {
    const auto picks = farthestPositions(static_cast<int>(empty.size()));
    for (std::size_t e = 0; e * d_ < picks.size(); ++e) {
      float* c = &centroids_[static_cast<std::size_t>(empty[e]) * d_];
      for (int dim = 0; dim < d_; ++dim)  // −0 → +0: equal positions give equal centroids
        c[dim] = exact::add(picks[e * d_ + dim], 0.0f);
    }
  }
  float shift = 0.0f, second = 0.0f;
  largest_shift_ = -1;
  for (int j = 0; j < k_; ++j) {
    const std::size_t o = static_cast<std::size_t>(j) * d_;
    const float squared = exact::squaredDistance(&centroids_[o], &previous_[o], d_);
    const float own = std::sqrt(squared);
    shifts_[static_cast<std::size_t>(j)] = cpu::upperFromSquared(squared);
    if (largest_shift_ < 0 || own > shift) {
      second = shift;
      shift = own;
      largest_shift_ = j;
    } else {
      second = std::max(second, own);
    }
  }
  shifts_[static_cast<std::size_t>(k_)] = shift * (1.0f + kBoundSlack) + kUnderflowDistance;
  shifts_[static_cast<std::size_t>(k_) + 1] = second * (1.0f + kBoundSlack) + kUnderflowDistance;
  if (groups_ > 0) updateGroupShifts();
  stats.max_shift = shift;
  stats.converged = passesConvergenceTest(stats.changed, summary_.total_count, stats.max_shift,
                                          summary_.scale, config_.tolerance);
  stats.ms.update_ms = msSince(t0);

  endIteration(stats);
  return stats;
}

void CpuEngine::snapshot(Snapshot& out) {
  requireInitialized();
  out.iteration = iteration_;
  out.n = data_.n;
  out.k = k_;
  out.d = d_;
  out.centroids = toDataUnits(centroids_.data(), centroids_.size(), summary_.mid);
  out.centred_centroids = centroids_;
  if (iteration_ > 0)
    out.labels.assign(labels_.begin(), labels_.end());
  else
    out.labels.clear();
  out.stats = last_;
}

void CpuEngine::assign(const std::vector<float>& centred_centroids,
                       std::vector<std::int32_t>& labels) {
  if (!has_data_) throw std::logic_error("CpuEngine::assign called before setData");
  const int k = validateCentroidCount(centred_centroids.size(), d_);
  const int kp = (k + 7) & ~7;
  // Columns past the centroids hold +∞: never nearest.
  std::vector<float> transposed(static_cast<std::size_t>(d_) * kp,
                                std::numeric_limits<float>::infinity());
  for (int j = 0; j < k; ++j)
    for (int c = 0; c < d_; ++c)
      transposed[static_cast<std::size_t>(c) * kp + j] =
          centred_centroids[static_cast<std::size_t>(j) * d_ + c];
  labels.resize(data_.n);
  std::vector<std::vector<float>> scratch(static_cast<std::size_t>(pool_.size()),
                                          std::vector<float>(static_cast<std::size_t>(kp) + d_));
  // The run's own centroids (the usual call: the labels of the result): the group bounds settle
  // most rows, as in the next step; the others are searched in full.
  const bool bounded =
      groups_ > 0 && initialized_ && iteration_ > 0 && !group_bounds_stale_ &&
      centred_centroids.size() == centroids_.size() &&
      std::equal(centred_centroids.begin(), centred_centroids.end(), centroids_.begin(),
                 [](float a, float b) {
                   return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
                 });
  if (bounded) prepareGroupDecay();
  pool_.parallelFor(chunkCount(data_.n, kAssignChunk), [&](std::size_t chunk, int worker) {
    float* dist = scratch[static_cast<std::size_t>(worker)].data();
    float* x = dist + kp;
    const std::size_t end = std::min(data_.n, (chunk + 1) * kAssignChunk);
    for (std::size_t i = chunk * kAssignChunk; i < end; ++i) {
      centreInto(i, x);
      if (bounded && settledByGroupBounds(i, x)) {
        labels[i] = labels_[i];
        continue;
      }
      cpu::exactDistancesToAll(x, transposed.data(), d_, kp, dist);  // step()'s roundings
      labels[i] = cpu::firstNearest(dist, kp);
    }
  });
}

}  // namespace kms
