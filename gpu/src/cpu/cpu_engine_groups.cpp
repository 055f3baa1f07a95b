// The CPU engine's group bounds for compact data at many centroids (Yinyang k-means, Ding et al.,
// ICML 2015): each row keeps a lower bound on the distance to every other centroid of each group
// of nearby centroids, and is settled against its exact distance to its own (which the inertia
// needs anyway).
//
// Why the labels stay the full search's: every bound carries the relative slack kBoundSlack
// (far above the rounding of a float distance of d ≤ 64 terms), upper bounds rounded up and lower
// bounds down. A group whose lower bound exceeds the row's upper bound holds no centroid whose
// float distance could equal or beat the row's own, so it is skipped; every other group is scored
// exactly, and among equal distances the lower index is kept, as the full search keeps it.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "common/constants.h"
#include "common/exact_math.h"
#include "cpu/cpu_engine.h"
#include "cpu/distance_bounds.h"
#include "cpu/exact_distances.h"

namespace kms {

namespace {

/// Lloyd rounds that form the groups from the seeded centroids (Yinyang uses five).
constexpr int kGroupRounds = 5;
/// Centroids a group on average: Yinyang's k/10, rounded to the power of two that ran fastest
/// on photos' distinct colours at k = 256.
constexpr int kCentroidsPerGroup = 16;
/// The group bounds' memory (n × groups floats) stays under this many floats.
constexpr std::size_t kMaxGroupBoundFloats = std::size_t(1) << 25;

constexpr float kInfinity = std::numeric_limits<float>::infinity();

/// The smallest and second smallest of block[0, width) (width a multiple of 8; the values past
/// the group's members are +∞). Eight lanes, each keeping its two smallest; the multiset's second
/// is the smaller of the lanes' seconds and the second smallest of their firsts.
struct TwoSmallest {
  float first;
  float second;
};
TwoSmallest twoSmallest(const float* block, int width) {
  float low[8], high[8];
#if defined(__SSE2__)
  // Explicit vectors: the compiler keeps std::min scalar (it must honour NaN, which distances of
  // finite data never are).
  __m128 low0 = _mm_set1_ps(kInfinity), low1 = low0, high0 = low0, high1 = low0;
  for (int e = 0; e < width; e += 8) {
    const __m128 v0 = _mm_loadu_ps(block + e), v1 = _mm_loadu_ps(block + e + 4);
    high0 = _mm_min_ps(high0, _mm_max_ps(low0, v0));
    high1 = _mm_min_ps(high1, _mm_max_ps(low1, v1));
    low0 = _mm_min_ps(low0, v0);
    low1 = _mm_min_ps(low1, v1);
  }
  _mm_storeu_ps(low, low0);
  _mm_storeu_ps(low + 4, low1);
  _mm_storeu_ps(high, high0);
  _mm_storeu_ps(high + 4, high1);
#else
  for (int l = 0; l < 8; ++l)
    low[l] = high[l] = kInfinity;
  for (int e = 0; e < width; e += 8)
    for (int l = 0; l < 8; ++l) {
      const float v = block[e + l];
      high[l] = std::min(high[l], std::max(low[l], v));
      low[l] = std::min(low[l], v);
    }
#endif
  TwoSmallest out{kInfinity, kInfinity};
  for (int l = 0; l < 8; ++l) {
    out.second = std::min(out.second, std::min(high[l], std::max(out.first, low[l])));
    out.first = std::min(out.first, low[l]);
  }
  return out;
}

/// now_low[g] = max(0, (lows[g] − decay[g])·keep) for the `stride` (a multiple of 4) groups, and
/// the smallest of them.
float lowerBounds(const float* lows, const float* decay, int stride, float keep, float* now_low) {
#if defined(__SSE2__)
  const __m128 zero = _mm_setzero_ps(), factor = _mm_set1_ps(keep);
  __m128 nearest = _mm_set1_ps(kInfinity);
  for (int g = 0; g < stride; g += 4) {
    const __m128 low = _mm_max_ps(
        zero, _mm_mul_ps(_mm_sub_ps(_mm_loadu_ps(lows + g), _mm_loadu_ps(decay + g)), factor));
    _mm_storeu_ps(now_low + g, low);
    nearest = _mm_min_ps(nearest, low);
  }
  nearest = _mm_min_ps(nearest, _mm_shuffle_ps(nearest, nearest, _MM_SHUFFLE(1, 0, 3, 2)));
  nearest = _mm_min_ps(nearest, _mm_shuffle_ps(nearest, nearest, _MM_SHUFFLE(2, 3, 0, 1)));
  return _mm_cvtss_f32(nearest);
#else
  float nearest = kInfinity;
  for (int g = 0; g < stride; ++g) {
    now_low[g] = std::max(0.0f, (lows[g] - decay[g]) * keep);
    nearest = std::min(nearest, now_low[g]);
  }
  return nearest;
#endif
}

}  // namespace

int CpuEngine::groupCountFor() const {
  if (!tuning_.group_bounds || !data_.counts || k_ < kGroupMinK || d_ > kGroupBoundsMaxD) return 0;
  int groups = std::min(kMaxGroups, k_ / kCentroidsPerGroup);
  const std::size_t most = kMaxGroupBoundFloats / std::max<std::size_t>(data_.n, 1);
  groups = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(groups), most));
  return groups >= 2 ? groups : 0;
}

void CpuEngine::formGroups() {
  // Group centres start at centroids spread through the seeding's order (k-means++ spreads its
  // picks), then a few Lloyd rounds on the centroids in double precision. Deterministic.
  const std::size_t d = static_cast<std::size_t>(d_);
  std::vector<double> centre(static_cast<std::size_t>(groups_) * d);
  for (int g = 0; g < groups_; ++g) {
    const std::size_t j = static_cast<std::size_t>(g) * static_cast<std::size_t>(k_) /
                          static_cast<std::size_t>(groups_);
    for (std::size_t c = 0; c < d; ++c)
      centre[static_cast<std::size_t>(g) * d + c] = centroids_[j * d + c];
  }
  std::vector<int> of(static_cast<std::size_t>(k_), 0);
  for (int round = 0; round <= kGroupRounds; ++round) {
    for (int j = 0; j < k_; ++j) {
      double nearest = std::numeric_limits<double>::infinity();
      for (int g = 0; g < groups_; ++g) {
        double sum = 0.0;
        for (std::size_t c = 0; c < d; ++c) {
          const double t = centroids_[static_cast<std::size_t>(j) * d + c] -
                           centre[static_cast<std::size_t>(g) * d + c];
          sum += t * t;
        }
        if (sum < nearest) {
          nearest = sum;
          of[static_cast<std::size_t>(j)] = g;
        }
      }
    }
    if (round == kGroupRounds) break;
    std::vector<double> sum(centre.size(), 0.0);
    std::vector<int> members(static_cast<std::size_t>(groups_), 0);
    for (int j = 0; j < k_; ++j) {
      const std::size_t g = static_cast<std::size_t>(of[static_cast<std::size_t>(j)]);
      ++members[g];
      for (std::size_t c = 0; c < d; ++c)
        sum[g * d + c] += centroids_[static_cast<std::size_t>(j) * d + c];
    }
    for (std::size_t g = 0; g < members.size(); ++g)
      if (members[g] > 0)
        for (std::size_t c = 0; c < d; ++c)
          centre[g * d + c] = sum[g * d + c] / members[g];
  }
  // Number the non-empty groups in order and list their members.
  std::vector<int> renumber(static_cast<std::size_t>(groups_), -1);
  int used = 0;
  for (int j = 0; j < k_; ++j) {
    int& r = renumber[static_cast<std::size_t>(of[static_cast<std::size_t>(j)])];
    if (r < 0) r = used++;
  }
  groups_ = used;
  group_of_.resize(static_cast<std::size_t>(k_));
  group_begin_.assign(static_cast<std::size_t>(groups_) + 1, 0);
  for (int j = 0; j < k_; ++j) {
    const int g = renumber[static_cast<std::size_t>(of[static_cast<std::size_t>(j)])];
    group_of_[static_cast<std::size_t>(j)] = g;
    ++group_begin_[static_cast<std::size_t>(g) + 1];
  }
  for (int g = 0; g < groups_; ++g)
    group_begin_[static_cast<std::size_t>(g) + 1] += group_begin_[static_cast<std::size_t>(g)];
  group_members_.resize(static_cast<std::size_t>(k_));
  std::vector<int> next(group_begin_.begin(), group_begin_.end() - 1);
  for (int j = 0; j < k_; ++j)
    group_members_[static_cast<std::size_t>(
        next[static_cast<std::size_t>(group_of_[static_cast<std::size_t>(j)])]++)] = j;
  group_shifts_.assign(static_cast<std::size_t>(groups_), 0.0f);
  if (groups_ < 2) {  // one group is Hamerly's bound
    groups_ = 0;
    return;
  }
  // The grouped copy's layout (transposeGroups fills it every step): each group's centroids in
  // adjacent columns, the group padded to a multiple of 8 columns.
  group_column_.assign(static_cast<std::size_t>(groups_) + 1, 0);
  group_column_of_.resize(static_cast<std::size_t>(k_));
  for (int g = 0; g < groups_; ++g) {
    const int begin = group_begin_[static_cast<std::size_t>(g)];
    const int end = group_begin_[static_cast<std::size_t>(g) + 1];
    const std::size_t first = group_column_[static_cast<std::size_t>(g)];
    for (int e = begin; e < end; ++e)
      group_column_of_[static_cast<std::size_t>(group_members_[static_cast<std::size_t>(e)])] =
          first + static_cast<std::size_t>(e - begin);
    group_column_[static_cast<std::size_t>(g) + 1] =
        first + ((static_cast<std::size_t>(end - begin) + 7) & ~std::size_t(7));
  }
}

void CpuEngine::updateGroupShifts() {
  std::fill(group_shifts_.begin(), group_shifts_.end(), 0.0f);
  for (int j = 0; j < k_; ++j) {
    float& largest =
        group_shifts_[static_cast<std::size_t>(group_of_[static_cast<std::size_t>(j)])];
    largest = std::max(largest, shifts_[static_cast<std::size_t>(j)]);
  }
  const std::size_t stride = static_cast<std::size_t>(group_stride_);
  const std::size_t last = group_moved_.size() - stride;
  for (std::size_t g = 0; g < stride; ++g)
    group_moved_.push_back(group_moved_[last + g] +
                           (g < group_shifts_.size() ? double(group_shifts_[g]) : 0.0));
  ++group_steps_;
}

void CpuEngine::prepareGroupDecay() {
  // A row stamped s holds bounds for the centroids of step s; since then each group's centroids
  // moved at most the sum of its largest moves of updates s … now − 1 — rounded up to float, so
  // that the lowered bound stays a bound.
  const std::size_t stride = static_cast<std::size_t>(group_stride_);
  const std::size_t now = static_cast<std::size_t>(group_steps_) + 1;
  group_decay_.assign(now * stride, 0.0f);
  const double* moved_now = &group_moved_[(now - 1) * stride];
  for (std::size_t s = 1; s < now; ++s)
    for (std::size_t g = 0; g < stride; ++g) {
      const double since = moved_now[g] - group_moved_[(s - 1) * stride + g];
      float up = static_cast<float>(since);
      if (static_cast<double>(up) < since) up = std::nextafter(up, kInfinity);
      group_decay_[s * stride + g] = up;
    }
}

void CpuEngine::transposeGroups() {
  // The centroids in the grouped layout, padding +∞ (distance +∞: never nearest), so that one
  // group's distances are one vectorised pass; and each group's centre (its centroids' mean) and
  // radius (the farthest one from it), in double, for the first assignment's bounds.
  const std::size_t d = static_cast<std::size_t>(d_);
  const std::size_t stride = group_column_.back();
  grouped_transposed_.assign(d * stride, kInfinity);
  group_centre_.assign(static_cast<std::size_t>(groups_) * d, 0.0);
  group_radius_.assign(static_cast<std::size_t>(groups_), 0.0);
  const auto centroid = [&](int e) {
    return &centroids_[static_cast<std::size_t>(group_members_[static_cast<std::size_t>(e)]) * d];
  };
  for (int g = 0; g < groups_; ++g) {
    const int begin = group_begin_[static_cast<std::size_t>(g)];
    const int end = group_begin_[static_cast<std::size_t>(g) + 1];
    double* centre = &group_centre_[static_cast<std::size_t>(g) * d];
    for (int e = begin; e < end; ++e) {
      const float* c = centroid(e);
      const std::size_t column =
          group_column_[static_cast<std::size_t>(g)] + static_cast<std::size_t>(e - begin);
      for (std::size_t v = 0; v < d; ++v) {
        grouped_transposed_[v * stride + column] = c[v];
        centre[v] += c[v];
      }
    }
    for (std::size_t v = 0; v < d; ++v)
      centre[v] /= double(end - begin);
    double radius = 0.0;
    for (int e = begin; e < end; ++e) {
      const float* c = centroid(e);
      double squared = 0.0;
      for (std::size_t v = 0; v < d; ++v) {
        const double t = double(c[v]) - centre[v];
        squared += t * t;
      }
      radius = std::max(radius, std::sqrt(squared));
    }
    group_radius_[static_cast<std::size_t>(g)] = radius;
  }
}

float CpuEngine::groupLowBound(std::size_t i, float* now_low) const {
  const float* decay = &group_decay_[static_cast<std::size_t>(group_stamps_[i]) *
                                     static_cast<std::size_t>(group_stride_)];
  return lowerBounds(&group_bounds_[i * static_cast<std::size_t>(group_stride_)], decay,
                     group_stride_, 1.0f - kBoundSlack, now_low);
}

bool CpuEngine::settledByGroupBounds(std::size_t i, const float* x) const {
  const int old = labels_[i];
  if (old < 0) return false;
  float now_low[kMaxGroups];
  const float nearest_low = groupLowBound(i, now_low);
  const float own = exact::squaredDistance(x, &centroids_[static_cast<std::size_t>(old) * d_], d_);
  return cpu::upperFromSquared(own) < nearest_low;
}

void CpuEngine::assignCountedRowGrouped(std::size_t i, const float* x, float* dist,
                                        Accumulator& acc, double& inertia) {
  const int groups = groups_;
  const int old = labels_[i];
  float* lows = &group_bounds_[i * static_cast<std::size_t>(group_stride_)];
  const float keep = 1.0f - kBoundSlack;
  const std::size_t stride = group_column_.back();
  int best = old;
  float best_dist = 0.0f;
  float old_dist = 0.0f;  // the distance to the old centroid, once scored
  // The scored groups' distances sit at dist + group_column_[g]; each group's smallest.
  std::array<float, kMaxGroups> first;
  std::array<bool, kMaxGroups> searched;  // set where a row is searched (not for a settled one)
  const auto groupWidth = [&](int g) {
    return static_cast<int>(group_column_[static_cast<std::size_t>(g) + 1] -
                            group_column_[static_cast<std::size_t>(g)]);
  };
  const auto scoreGroup = [&](int g) {
    const float low =
        cpu::smallestOf(dist + group_column_[static_cast<std::size_t>(g)], groupWidth(g));
    searched[static_cast<std::size_t>(g)] = true;
    first[static_cast<std::size_t>(g)] = low;
    best_dist = std::min(best_dist, low);
  };
  // Scores every centroid of group g (their distances at dist + group_column_[g]).
  const auto scoreWhole = [&](int g) {
    const std::size_t column = group_column_[static_cast<std::size_t>(g)];
    cpu::exactDistancesToColumns(
        x, grouped_transposed_.data(), d_, stride, column,
        static_cast<int>(group_column_[static_cast<std::size_t>(g) + 1] - column), dist + column);
    scoreGroup(g);
    acc.distances += static_cast<std::uint64_t>(group_begin_[static_cast<std::size_t>(g) + 1] -
                                                group_begin_[static_cast<std::size_t>(g)]);
  };
  if (old < 0 || group_bounds_stale_) {
    // No bounds yet: each group's distance from its centre less its radius bounds every member's
    // (in double, shaved far beyond its rounding, then float's slack). The groups are scored
    // nearest first until the next one's bound clears the best distance found; the others keep
    // that bound.
    ++acc.rows_searched;
    std::fill_n(searched.begin(), groups, false);
    float centre_low[kMaxGroups];
    int nearest_group = 0;
    for (int g = 0; g < groups; ++g) {
      double squared = 0.0;
      for (int c = 0; c < d_; ++c) {
        const double t = double(x[c]) -
                         group_centre_[static_cast<std::size_t>(g) * static_cast<std::size_t>(d_) +
                                       static_cast<std::size_t>(c)];
        squared += t * t;
      }
      const double gap = std::sqrt(squared) * (1.0 - 1e-12) -
                         group_radius_[static_cast<std::size_t>(g)] * (1.0 + 1e-12);
      centre_low[g] = std::max(0.0f, static_cast<float>(gap) * keep);
      if (centre_low[g] < centre_low[nearest_group]) nearest_group = g;
    }
    // The group likeliest to hold the nearest first, then every group its bound does not clear.
    best_dist = kInfinity;
    scoreWhole(nearest_group);
    for (int g = 0; g < groups; ++g)
      if (g != nearest_group && !(centre_low[g] > cpu::upperFromSquared(best_dist))) scoreWhole(g);
    for (int g = 0; g < groups; ++g)
      if (!searched[static_cast<std::size_t>(g)]) lows[g] = centre_low[g];
    best = std::numeric_limits<int>::max();
    // The old centroid's distance where its group was scored; elsewhere the group's bound
    // already covers it.
    old_dist =
        old >= 0 && searched[static_cast<std::size_t>(group_of_[static_cast<std::size_t>(old)])]
            ? dist[group_column_of_[static_cast<std::size_t>(old)]]
            : kInfinity;
  } else {
    // Every group's bound falls by its moves since the row's stamp (lows keeps the stamped ones
    // until the row is searched: a settled row writes nothing).
    float now_low[kMaxGroups];
    const float nearest_low = groupLowBound(i, now_low);
    const float enough = std::max(nearest_low, half_gap_[static_cast<std::size_t>(old)]);
    best_dist = exact::squaredDistance(x, &previous_[static_cast<std::size_t>(old) * d_], d_);
    ++acc.distances;
    const float reach = cpu::upperFromSquared(best_dist);
    if (reach < enough) {  // settled: no other centroid can be as near
      next_labels_[i] = old;
      inertia += static_cast<double>(best_dist) * data_.counts[i];
      return;
    }
    // The groups whose bound the own centroid's distance does not clear may hold one as near.
    ++acc.rows_searched;
    std::fill_n(searched.begin(), groups, false);
    old_dist = best_dist;
    for (int g = 0; g < groups; ++g) {
      lows[g] = now_low[g];
      if (!(now_low[g] > reach)) scoreWhole(g);
    }
    best = old_dist == best_dist ? old : std::numeric_limits<int>::max();
  }
  // The label: the lowest index at the smallest distance, as the full search keeps it.
  for (int g = 0; g < groups; ++g) {
    if (!searched[static_cast<std::size_t>(g)] ||
        !(first[static_cast<std::size_t>(g)] == best_dist))
      continue;
    const float* block = dist + group_column_[static_cast<std::size_t>(g)];
    const int begin = group_begin_[static_cast<std::size_t>(g)];
    for (int e = 0; e < group_begin_[static_cast<std::size_t>(g) + 1] - begin; ++e)
      if (block[e] == best_dist)
        best = std::min(best, group_members_[static_cast<std::size_t>(begin + e)]);
  }
  // The old centroid, if it lost and its group was not scored, is one of its group's others.
  if (old >= 0 && best != old &&
      !searched[static_cast<std::size_t>(group_of_[static_cast<std::size_t>(old)])]) {
    const int old_group = group_of_[static_cast<std::size_t>(old)];
    lows[old_group] = std::min(lows[old_group], cpu::lowerFromSquared(old_dist));
  }
  // A scored group's bound is its nearest other than the best: its smallest, or for the best's
  // own group its second smallest.
  const int best_group = group_of_[static_cast<std::size_t>(best)];
  if (searched[static_cast<std::size_t>(best_group)])
    first[static_cast<std::size_t>(best_group)] =
        twoSmallest(dist + group_column_[static_cast<std::size_t>(best_group)],
                    groupWidth(best_group))
            .second;
  for (int g = 0; g < groups; ++g)
    if (searched[static_cast<std::size_t>(g)])
      lows[g] = cpu::lowerFromSquared(first[static_cast<std::size_t>(g)]);
  group_stamps_[i] = group_steps_ + 1;
  next_labels_[i] = best;
  inertia += static_cast<double>(best_dist) * data_.counts[i];
  if (old != best) moveCountedRow(i, x, old, best, acc);
}

}  // namespace kms
