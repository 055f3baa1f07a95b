#include "kmeans/collective.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "kmeans/errors.h"

namespace kms {
namespace {

class SoloCollective final : public Collective {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  void allReduce(std::int64_t*, std::size_t, Op) override {}
  void allReduce(float*, std::size_t, Op) override {}
  std::vector<double> allGather(const std::vector<double>& mine) override { return mine; }
  std::vector<float> allGather(const std::vector<float>& mine) override { return mine; }
  std::vector<std::int64_t> allGather(const std::vector<std::int64_t>& mine) override {
    return mine;
  }
  void broadcast(void*, std::size_t, int) override {}
};

}  // namespace

std::vector<std::size_t> shareBoundaries(std::size_t rows, int ranks,
                                         const std::vector<double>& weights) {
  if (ranks < 1) throw std::invalid_argument("shareBoundaries: no ranks");
  if (!weights.empty() && weights.size() != static_cast<std::size_t>(ranks))
    throw std::invalid_argument("shareBoundaries: one weight per rank");
  const std::size_t blocks = (rows + kShareRowMultiple - 1) / kShareRowMultiple;
  double total = 0.0;
  for (double w : weights) {
    if (!(w > 0.0) || !std::isfinite(w))
      throw std::invalid_argument("shareBoundaries: weights must be positive");
    total += w;
  }
  std::vector<std::size_t> bounds(static_cast<std::size_t>(ranks) + 1, 0);
  double before = 0.0;
  for (int r = 1; r < ranks; ++r) {
    before += weights.empty() ? 1.0 : weights[static_cast<std::size_t>(r - 1)];
    const double fraction = before / (weights.empty() ? ranks : total);
    const auto block =
        static_cast<std::size_t>(std::llround(fraction * static_cast<double>(blocks)));
    bounds[static_cast<std::size_t>(r)] = std::max(bounds[static_cast<std::size_t>(r - 1)],
                                                   std::min(rows, block * kShareRowMultiple));
  }
  bounds.back() = rows;
  return bounds;
}

std::shared_ptr<Collective> soloCollective() {
  return std::make_shared<SoloCollective>();
}

RowShare shareOfRows(Collective& world, std::size_t local_rows) {
  const auto counts = world.allGather(std::vector<std::int64_t>{std::int64_t(local_rows)});
  RowShare share;
  share.boundaries.push_back(0);
  for (std::int64_t c : counts)
    share.boundaries.push_back(share.boundaries.back() + std::size_t(c));
  share.first_row = share.boundaries[std::size_t(world.rank())];
  share.global_rows = share.boundaries.back();
  for (std::size_t r = 0; r + 1 < counts.size(); ++r)
    if (counts[r] % std::int64_t(kShareRowMultiple) != 0)
      throw InvalidArgument("Rank " + std::to_string(r) + "'s share of the rows (" +
                            std::to_string(counts[r]) + ") is not a multiple of " +
                            std::to_string(kShareRowMultiple) + " rows.");
  return share;
}

int RowShare::ownerOf(std::size_t row) const {
  // The last rank whose first row is at or before `row` (empty shares are skipped).
  const auto it = std::upper_bound(boundaries.begin(), boundaries.end() - 1, row);
  return static_cast<int>(it - boundaries.begin()) - 1;
}

}  // namespace kms
