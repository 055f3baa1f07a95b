// CudaEngine: the sorted runs of data of d = 1 (sorted_index.cuh), built when the data are
// loaded; the SortedRunsFamily iterates over them (families/sorted_runs.cuh).
#include <algorithm>
#include <string>

#include "common/exact_math.h"
#include "cuda/cuda_engine.cuh"
#include "cuda/kernels/sorted_iteration.cuh"
#include "kmeans/errors.h"

namespace kms::cuda {

void CudaEngine::indexSortedRuns(std::size_t data_bytes) {
  // PointTiles::Always asks for the tiles, which d = 1 then runs on (tests, comparisons).
  if (!options_.cuda.sorted_runs || data_.shard || data_.n == 0 ||
      options_.cuda.point_tiles == PointTiles::Always)
    return;
  std::size_t free_bytes = 0, total_bytes = 0;
  KMS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  // An index, not the data: it takes only memory that leaves the run its labels (as the tiles).
  const std::size_t run_bytes = data_.n * 2 * sizeof(std::uint16_t);
  if (SortedIndex::buildBytesFor(data_.n) + run_bytes > free_bytes) return;
  if (options_.max_device_bytes > 0 &&
      data_bytes + data_.tiles.bytes() + data_.groups.bytes() + SortedIndex::bytesFor(data_.n) >
          options_.max_device_bytes)
    return;
  // The inertia grid covers the centred data's magnitude (a little more: the centring rounds).
  const double reach = std::max(double(data_.summary.hi[0]) - double(data_.summary.mid[0]),
                                double(data_.summary.mid[0]) - double(data_.summary.lo[0])) *
                       (1.0 + 1e-6);
  // Data spanning 2^58 or more, or less than 2^-40, leave no centroid pair the safe gap apart
  // (sorted_iteration.cuh): every row would be looked at one by one, by one block.
  if (!(reach > 0x1p-41 && reach < 0x1p57)) return;
  const int inertia_exp =
      SortedIndex::inertiaExponent(reach, data_.summary.total_weight, data_.inertia_bits);
  try {
    data_.sorted.build(data_.points.get(), data_.counts.size() ? data_.counts.get() : nullptr,
                       data_.n, exact::pow2f(data_.summary.fixed.coord_exp[0]), inertia_exp,
                       compute_.get());
    loadSortedKernels();
  } catch (const DeviceError&) {
    data_.sorted
        .release();  // another program took the memory meanwhile: the compact kernels instead
  }
}

}  // namespace kms::cuda
