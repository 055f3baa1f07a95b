// The CPU engine's nearest-centroid search for few dimensions and many centroids: the centroids
// sorted by their projection on the data's principal axis, walked outwards from each row's own.
#include <algorithm>
#include <cmath>
#include <limits>

#include "common/constants.h"
#include "common/exact_math.h"
#include "cpu/cpu_engine.h"

namespace kms {

namespace {

/// a·v in double over d coordinates (the projections' rounding is far inside the margin).
double project(const std::array<float, kMaxAxisDims>& axis, const float* v, int d) {
  double sum = 0.0;
  for (int c = 0; c < d; ++c)
    sum += static_cast<double>(axis[static_cast<std::size_t>(c)]) * static_cast<double>(v[c]);
  return sum;
}

/// Below this a float square or sum can have rounded to zero (subnormal underflow, 2·d steps of
/// half the smallest subnormal at most for d ≤ 64): an absolute margin on top of the relative one.
constexpr double kUnderflowMargin = 1e-43;
/// Hamerly's second test only for squared gaps this large: far from the subnormals, where float
/// rounding is relative.
constexpr float kHalfGapFloor = 1e-30f;

}  // namespace

void CpuEngine::transposeCentroids() {
  transposed_.assign(static_cast<std::size_t>(d_) * k_padded_, 0.0f);
  for (int j = 0; j < k_; ++j)
    for (int c = 0; c < d_; ++c)
      transposed_[static_cast<std::size_t>(c) * k_padded_ + j] =
          centroids_[static_cast<std::size_t>(j) * d_ + c];
  // Hamerly's second test pays for its k²/2 distances when they are few beside a pass over the
  // rows (k·k ≤ 4·n). Its margin (about 10·kBoundSlack) covers the rounding of float distances
  // of up to kHalfGapMaxD terms; a gap whose square overflowed (∞) or is near the subnormals
  // proves nothing and is left at 0.
  half_gap_.assign(static_cast<std::size_t>(k_), 0.0f);
  if (tuning_.sorted_search && k_ > 1 && d_ <= kHalfGapMaxD &&
      static_cast<std::size_t>(k_) * static_cast<std::size_t>(k_) <= 4 * data_.n) {
    std::vector<float> nearest(static_cast<std::size_t>(k_),
                               std::numeric_limits<float>::infinity());
    for (int a = 0; a < k_; ++a)
      for (int b = a + 1; b < k_; ++b) {
        const float dist =
            exact::squaredDistance(&centroids_[static_cast<std::size_t>(a) * d_],
                                   &centroids_[static_cast<std::size_t>(b) * d_], d_);
        nearest[static_cast<std::size_t>(a)] = std::min(nearest[static_cast<std::size_t>(a)], dist);
        nearest[static_cast<std::size_t>(b)] = std::min(nearest[static_cast<std::size_t>(b)], dist);
      }
    for (int j = 0; j < k_; ++j) {
      const float squared = nearest[static_cast<std::size_t>(j)];
      if (std::isfinite(squared) && squared >= kHalfGapFloor)
        half_gap_[static_cast<std::size_t>(j)] =
            0.5f * std::sqrt(squared) * (1.0f - 4.0f * kBoundSlack);
    }
  }
  if (groups_ > 0) transposeGroups();
  if (!useSortedSearch()) return;
  sorted_order_.resize(static_cast<std::size_t>(k_));
  std::vector<double> projection(static_cast<std::size_t>(k_));
  for (int j = 0; j < k_; ++j) {
    sorted_order_[static_cast<std::size_t>(j)] = j;
    projection[static_cast<std::size_t>(j)] =
        project(axis_, &centroids_[static_cast<std::size_t>(j) * d_], d_);
  }
  std::sort(sorted_order_.begin(), sorted_order_.end(), [&](int a, int b) {
    const double pa = projection[static_cast<std::size_t>(a)];
    const double pb = projection[static_cast<std::size_t>(b)];
    return pa < pb || (pa == pb && a < b);
  });
  sorted_projection_.resize(static_cast<std::size_t>(k_));
  for (int r = 0; r < k_; ++r)
    sorted_projection_[static_cast<std::size_t>(r)] =
        projection[static_cast<std::size_t>(sorted_order_[static_cast<std::size_t>(r)])];
}

int CpuEngine::searchSorted(const float* x, int hint, bool runner_up, int& best, float& best_dist,
                            float& lower) const {
  // Why the label is the full search's: a centroid j is passed over only when its projection gap
  // g satisfies g²·(1 − slack) − margin > best_dist. The gap is at most ‖x − c_j‖ (a unit axis,
  // to 1e-7), and j's float distance is at least ‖x − c_j‖²·(1 − (d + 2)·u) less what underflow
  // can take, so it is strictly above best_dist, and above the final best too: it could neither
  // win nor tie. Every centroid at or below the final best is scored exactly, and among equal
  // distances the lower index is kept, as the full search keeps it.
  const double px = project(axis_, x, d_);
  const double keep = 1.0 - static_cast<double>(kBoundSlack);
  best = -1;
  best_dist = std::numeric_limits<float>::infinity();
  float second = std::numeric_limits<float>::infinity();
  int scored = 0;
  const auto score = [&](int j) {
    ++scored;
    const float dist = exact::squaredDistance(x, &centroids_[static_cast<std::size_t>(j) * d_], d_);
    if (best < 0 || dist < best_dist || (dist == best_dist && j < best)) {
      second = best_dist;
      best_dist = dist;
      best = j;
    } else if (dist < second) {
      second = dist;
    }
  };
  if (hint >= 0) score(hint);
  const std::size_t k = static_cast<std::size_t>(k_);
  std::size_t right = static_cast<std::size_t>(
      std::lower_bound(sorted_projection_.begin(), sorted_projection_.end(), px) -
      sorted_projection_.begin());
  std::size_t left = right;  // positions [left, right) have been walked
  const double inf = std::numeric_limits<double>::infinity();
  double gap = 0.0;
  while (true) {
    const double left_gap = left > 0 ? px - sorted_projection_[left - 1] : inf;
    const double right_gap = right < k ? sorted_projection_[right] - px : inf;
    gap = std::min(left_gap, right_gap);
    // With runner_up the walk goes on until the runner-up is certain too: the lower bound it
    // leaves is then the second distance itself, which settles the row for iterations to come.
    const float stop = runner_up ? second : best_dist;
    if (gap == inf || gap * gap * keep - kUnderflowMargin > static_cast<double>(stop)) break;
    const int j = left_gap <= right_gap ? sorted_order_[--left] : sorted_order_[right++];
    if (j != hint) score(j);
  }
  // Every centroid not walked is at least `gap` away; the walked ones at least √second.
  const double nearest_other = std::min(static_cast<double>(std::sqrt(second)), std::max(gap, 0.0));
  lower = std::max(0.0f, static_cast<float>(nearest_other * keep) - kUnderflowDistance);
  return scored;
}

}  // namespace kms
