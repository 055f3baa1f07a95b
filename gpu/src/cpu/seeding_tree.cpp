#include "cpu/seeding_tree.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <stdexcept>

#include "common/exact_math.h"
#include "common/seeding.h"

namespace kms::cpu {
namespace {

/// Rows a leaf holds at most.
constexpr std::uint32_t kLeafRows = 16;

}  // namespace

SeedingTree::SeedingTree(const float* x, const float* weights, bool scaled, double scale,
                         std::size_t n, int d, bool greedy)
    : d_(d), greedy_(greedy), scaled_(scaled), scale_(scale) {
  // Each computed squared distance is within (d + 3)·2⁻²⁴ of its true value, plus (among
  // subnormal floats) a few 2⁻¹⁴⁹ per operation: a node is skipped only where the true
  // distances leave several times that to spare.
  margin_ = 1.0 + 8.0 * (d + 3) * std::ldexp(1.0, -24);
  slack_ = 8.0 * (3 * d + 3) * std::ldexp(1.0, -149);
  switch (d) {
    case 1:
      buildAll<1>(x, n);
      break;
    case 2:
      buildAll<2>(x, n);
      break;
    case 3:
      buildAll<3>(x, n);
      break;
    case 4:
      buildAll<4>(x, n);
      break;
    case 5:
      buildAll<5>(x, n);
      break;
    case 6:
      buildAll<6>(x, n);
      break;
    case 7:
      buildAll<7>(x, n);
      break;
    case 8:
      buildAll<8>(x, n);
      break;
    default:
      throw std::invalid_argument("SeedingTree: d must be 1 to 8");
  }
  if (scaled_) {
    weights_.resize(n);
    for (std::size_t t = 0; t < n; ++t)
      weights_[t] = weights[order_[t]];
  }
}

namespace {

template <int D>
struct Record {
  float p[D];
  std::uint32_t row;
};

}  // namespace

template <int D>
void SeedingTree::buildAll(const float* x, std::size_t n) {
  std::vector<Record<D>> rows(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::copy_n(x + i * D, D, rows[i].p);
    rows[i].row = static_cast<std::uint32_t>(i);
  }
  nodes_.reserve(2 * (n / kLeafRows + 1));
  lo_.reserve(nodes_.capacity() * D);
  hi_.reserve(nodes_.capacity() * D);
  if (n > 0) build(rows, 0, static_cast<std::uint32_t>(n));
  order_.resize(n);
  points_.resize(n * D);
  for (std::size_t t = 0; t < n; ++t) {
    order_[t] = rows[t].row;
    std::copy_n(rows[t].p, D, &points_[t * D]);
  }
}

template <typename Record>
int SeedingTree::build(std::vector<Record>& rows, std::uint32_t begin, std::uint32_t end) {
  const int index = static_cast<int>(nodes_.size());
  nodes_.push_back(Node{begin, end});
  lo_.resize(nodes_.size() * d_);
  hi_.resize(nodes_.size() * d_);
  float* lo = &lo_[static_cast<std::size_t>(index) * d_];
  float* hi = &hi_[static_cast<std::size_t>(index) * d_];
  for (int c = 0; c < d_; ++c) {
    lo[c] = INFINITY;
    hi[c] = -INFINITY;
  }
  for (std::uint32_t t = begin; t < end; ++t)
    for (int c = 0; c < d_; ++c) {
      lo[c] = std::min(lo[c], rows[t].p[c]);
      hi[c] = std::max(hi[c], rows[t].p[c]);
    }
  if (end - begin <= kLeafRows) return index;
  int widest = 0;
  for (int c = 1; c < d_; ++c)
    if (hi[c] - lo[c] > hi[widest] - lo[widest]) widest = c;
  if (!(hi[widest] > lo[widest])) return index;  // every row the same point: a leaf
  const std::uint32_t mid = begin + (end - begin) / 2;
  std::nth_element(
      rows.begin() + begin, rows.begin() + mid, rows.begin() + end,
      [widest](const Record& a, const Record& b) { return a.p[widest] < b.p[widest]; });
  const int left = build(rows, begin, mid);
  const int right = build(rows, mid, end);
  nodes_[static_cast<std::size_t>(index)].left = left;
  nodes_[static_cast<std::size_t>(index)].right = right;
  return index;
}

std::int64_t SeedingTree::term(std::uint32_t t, float nearest) const {
  return seeding::potentialTerm(scaled_ ? exact::mul(weights_[t], nearest) : nearest, scale_);
}

bool SeedingTree::outOfReach(const Node& node, int index, const float* c) const {
  if (node.max_d2 == 0.0f) return true;  // no row can come nearer than 0
  if (!std::isfinite(node.max_d2)) return false;
  const float* lo = &lo_[static_cast<std::size_t>(index) * d_];
  const float* hi = &hi_[static_cast<std::size_t>(index) * d_];
  double gap2 = 0.0;  // squared distance from c to the box, in double (exact enough)
  for (int k = 0; k < d_; ++k) {
    const double below = double(lo[k]) - double(c[k]);
    const double above = double(c[k]) - double(hi[k]);
    const double g = std::max({below, above, 0.0});
    gap2 += g * g;
  }
  return gap2 >= double(node.max_d2) * margin_ + slack_;
}

void SeedingTree::describe(const std::vector<float>& d2) {
  if (!nodes_.empty()) describeNode(0, d2);
}

void SeedingTree::describeNode(int index, const std::vector<float>& d2) {
  Node& node = nodes_[static_cast<std::size_t>(index)];
  if (node.left < 0) {
    float m = 0.0f;
    std::int64_t terms = 0;
    for (std::uint32_t t = node.begin; t < node.end; ++t) {
      const std::uint32_t i = order_[t];
      m = std::max(m, d2[i]);
      if (greedy_) terms += term(t, d2[i]);
    }
    node.max_d2 = m;
    node.terms = terms;
    return;
  }
  describeNode(node.left, d2);
  describeNode(node.right, d2);
  const Node& a = nodes_[static_cast<std::size_t>(node.left)];
  const Node& b = nodes_[static_cast<std::size_t>(node.right)];
  node.max_d2 = std::max(a.max_d2, b.max_d2);
  node.terms = a.terms + b.terms;
}

void SeedingTree::lower(const float* c, std::vector<float>& d2,
                        const std::function<void(std::size_t)>& changed) {
  if (!nodes_.empty()) lowerNode(0, c, d2, changed);
}

bool SeedingTree::lowerNode(int index, const float* c, std::vector<float>& d2,
                            const std::function<void(std::size_t)>& changed) {
  Node& node = nodes_[static_cast<std::size_t>(index)];
  if (outOfReach(node, index, c)) return false;
  if (node.left < 0) {
    bool any = false;
    for (std::uint32_t t = node.begin; t < node.end; ++t) {
      const std::uint32_t i = order_[t];
      const float dn = exact::squaredDistance(&points_[static_cast<std::size_t>(t) * d_], c, d_);
      if (dn < d2[i]) {
        d2[i] = dn;
        changed(i);
        any = true;
      }
    }
    if (any) describeNode(index, d2);
    return any;
  }
  const bool a = lowerNode(node.left, c, d2, changed);
  const bool b = lowerNode(node.right, c, d2, changed);
  if (!a && !b) return false;
  const Node& l = nodes_[static_cast<std::size_t>(node.left)];
  const Node& r = nodes_[static_cast<std::size_t>(node.right)];
  node.max_d2 = std::max(l.max_d2, r.max_d2);
  node.terms = l.terms + r.terms;
  return true;
}

std::int64_t SeedingTree::potential(const float* c, const std::vector<float>& d2) const {
  return nodes_.empty() ? 0 : potentialNode(0, c, d2);
}

std::int64_t SeedingTree::potentialNode(int index, const float* c,
                                        const std::vector<float>& d2) const {
  const Node& node = nodes_[static_cast<std::size_t>(index)];
  if (outOfReach(node, index, c)) return node.terms;
  if (node.left < 0) {
    std::int64_t sum = 0;
    for (std::uint32_t t = node.begin; t < node.end; ++t) {
      const std::uint32_t i = order_[t];
      const float dc = exact::squaredDistance(&points_[static_cast<std::size_t>(t) * d_], c, d_);
      sum += term(t, std::min(d2[i], dc));
    }
    return sum;
  }
  return potentialNode(node.left, c, d2) + potentialNode(node.right, c, d2);
}

}  // namespace kms::cpu
