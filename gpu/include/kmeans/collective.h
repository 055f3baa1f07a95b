// The operations a run spread over several processes needs from its transport, and the rule
// that makes its result independent of how many processes there are.
//
// A distributed run gives every process (rank) a contiguous share of the rows, in rank order:
// rank r holds global rows [first_row, first_row + n) of its DataView. Each rank's engine does
// the work of its rows and combines what the whole data set decides through a Collective —
// exact integer sums, minima and maxima, and per-chunk partial results gathered and combined in
// global chunk order — so labels, centroids, the seeding's every draw and even the inertia (a
// double summed chunk by chunk in row order) are bit for bit those of one process on all the
// rows. That needs every share but the last to be a whole number of kShareRowMultiple rows: the
// engines' chunks (8,192 rows for the assignment's inertia, 4,096 for k-means++'s sampling) then
// never straddle two ranks. docs/engine.md, "Several processes", has the argument.
//
// kmeans-cli implements this interface over MPI (app/cli/distributed/mpi_collective.h); the tests
// over threads. A Collective is used by one engine at a time; every rank must make the same calls
// in the same order (the engines do, as long as every rank runs the same configuration).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace kms {

/// Every rank's share but the last is a multiple of this many rows.
inline constexpr std::size_t kShareRowMultiple = 8192;

/// The first row of each of `ranks` shares of `rows` rows, and `rows` at the end (ranks + 1
/// values): shares as even as kShareRowMultiple allows, or in proportion to `weights` (one
/// positive value per rank) when given. Shares may be empty (more ranks than 8,192-row blocks);
/// the caller says so to the user.
std::vector<std::size_t> shareBoundaries(std::size_t rows, int ranks,
                                         const std::vector<double>& weights = {});

class Collective {
 public:
  enum class Op { Sum, Min, Max };

  virtual ~Collective() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;

  /// In place on every rank: values[i] becomes the Sum (wrapping, two's complement), Min or Max
  /// of every rank's values[i].
  virtual void allReduce(std::int64_t* values, std::size_t count, Op op) = 0;
  /// Min or Max only (a float sum would depend on the order).
  virtual void allReduce(float* values, std::size_t count, Op op) = 0;
  /// Every rank's `mine` (any length, maybe empty) concatenated in rank order, on every rank.
  virtual std::vector<double> allGather(const std::vector<double>& mine) = 0;
  virtual std::vector<float> allGather(const std::vector<float>& mine) = 0;
  virtual std::vector<std::int64_t> allGather(const std::vector<std::int64_t>& mine) = 0;
  /// `bytes` of `data` from rank `root` to every rank.
  virtual void broadcast(void* data, std::size_t bytes, int root) = 0;
};

/// The collective of a single process: every operation leaves the values as they are.
std::shared_ptr<Collective> soloCollective();

/// Where one rank's rows sit among all the rows. Computed by the engine from the collective
/// (every rank's row count), checked against kShareRowMultiple.
struct RowShare {
  std::size_t first_row = 0;            ///< global index of the rank's first row
  std::size_t global_rows = 0;          ///< rows of all ranks together
  std::vector<std::size_t> boundaries;  ///< first row of each rank, global_rows last
  /// The rank holding global row `row`.
  int ownerOf(std::size_t row) const;
};

/// This rank's share among every rank's `local_rows` (one exchange). Throws InvalidArgument on
/// every rank alike when a share but the last is not a multiple of kShareRowMultiple rows.
RowShare shareOfRows(Collective& world, std::size_t local_rows);

}  // namespace kms
