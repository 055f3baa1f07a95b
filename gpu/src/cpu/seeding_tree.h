// The rows of a k-means++ seeding in a k-d tree, for CpuEngine::initPlusPlus: every node knows
// its rows' bounding box, their largest D² (squared distance to the nearest centroid chosen so
// far) and, for greedy k-means++, the exact sum of their potential terms. A new point c (the
// newest centroid, or a greedy candidate) can change nothing in a node whose box lies farther
// from c than every D² inside it — with a margin for rounding, so that no computed distance can
// come out below a computed D² there — and such a node is skipped whole: the newest centroid
// leaves its D² as they are, a candidate's potential takes its kept term sum. The result is the
// same integers and the same D² as a pass over every row; in three dimensions (a photo's
// colours) most of the tree is skipped once a few dozen centroids are placed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace kms::cpu {

class SeedingTree {
 public:
  /// `x`: the rows' centred coordinates (n × d, row-major, d ≤ kMaxDims); with `scaled`,
  /// `weights` are the rows' weights (n), each term then w·min(D², ‖x − c‖²) — the potential's
  /// terms are seeding::potentialTerm of that on `scale` (unused without greedy).
  SeedingTree(const float* x, const float* weights, bool scaled, double scale, std::size_t n, int d,
              bool greedy);
  static constexpr int kMaxDims = 8;

  /// After D² of every row was set (the first centroid): every node's largest D² and term sum.
  void describe(const std::vector<float>& d2);
  /// The newest centroid `c`: lowers D² where c is nearer (strictly, as a full pass would),
  /// calls changed(i) for every row whose D² changed, and updates the nodes it touched.
  void lower(const float* c, std::vector<float>& d2,
             const std::function<void(std::size_t)>& changed);
  /// Σ term(i, min(D², ‖x_i − c‖²)) over every row, exactly (greedy k-means++'s potential).
  std::int64_t potential(const float* c, const std::vector<float>& d2) const;

 private:
  struct Node {
    std::uint32_t begin = 0, end = 0;  ///< rows order_[begin, end)
    std::int32_t left = -1, right = -1;
    float max_d2 = 0.0f;
    std::int64_t terms = 0;
  };
  /// Builds the tree over rows kept with their coordinates (D of them), so that splitting a node
  /// moves the rows themselves rather than reading them through an index.
  template <int D>
  void buildAll(const float* x, std::size_t n);
  template <typename Record>
  int build(std::vector<Record>& rows, std::uint32_t begin, std::uint32_t end);
  /// Row t's (tree order) exact potential term with distance `nearest`.
  std::int64_t term(std::uint32_t t, float nearest) const;
  /// Whether no row of `node` can come out nearer to c than its D².
  bool outOfReach(const Node& node, int index, const float* c) const;
  bool lowerNode(int index, const float* c, std::vector<float>& d2,
                 const std::function<void(std::size_t)>& changed);
  std::int64_t potentialNode(int index, const float* c, const std::vector<float>& d2) const;
  void describeNode(int index, const std::vector<float>& d2);

  int d_;
  bool greedy_;
  bool scaled_;
  double scale_;
  double margin_;                     ///< relative slack of the skip test
  double slack_;                      ///< absolute slack (subnormal distances)
  std::vector<std::uint32_t> order_;  ///< the rows in tree order
  std::vector<float> points_;         ///< their coordinates in tree order (n × d)
  std::vector<float> weights_;        ///< their weights in tree order (with scaled_)
  std::vector<Node> nodes_;
  std::vector<float> lo_, hi_;  ///< each node's box (nodes × d)
};

}  // namespace kms::cpu
