// CudaEngine: sorted runs for data of d = 1 (sorted_index.cuh, kernels/sorted_iteration.cuh) —
// the index built when the data are loaded, the iteration, and the labels it writes on demand.
#include <algorithm>
#include <string>

#include "common/exact_math.h"
#include "cuda/cuda_engine.cuh"
#include "kmeans/errors.h"

namespace kms::cuda {

void CudaEngine::indexSortedRuns(std::size_t data_bytes) {
  // PointTiles::Always asks for the tiles, which d = 1 then runs on (tests, comparisons).
  if (!sorted_runs_ || shard_ || n_ == 0 || point_tiles_ == PointTiles::Always) return;
  std::size_t free_bytes = 0, total_bytes = 0;
  KMS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  // An index, not the data: it takes only memory that leaves the run its labels (as the tiles).
  const std::size_t run_bytes = n_ * 2 * sizeof(std::uint16_t);
  if (SortedIndex::buildBytesFor(n_) + run_bytes > free_bytes) return;
  if (max_device_bytes_ > 0 &&
      data_bytes + tiles_.bytes() + groups_.bytes() + SortedIndex::bytesFor(n_) > max_device_bytes_)
    return;
  // The inertia grid covers the centred data's magnitude (a little more: the centring rounds).
  const double reach = std::max(double(summary_.hi[0]) - double(summary_.mid[0]),
                                double(summary_.mid[0]) - double(summary_.lo[0])) *
                       (1.0 + 1e-6);
  // Data spanning 2^58 or more, or less than 2^-40, leave no centroid pair the safe gap apart
  // (sorted_iteration.cuh): every row would be looked at one by one, by one block.
  if (!(reach > 0x1p-41 && reach < 0x1p57)) return;
  const int inertia_exp = SortedIndex::inertiaExponent(reach, summary_.total_weight, inertia_bits_);
  try {
    sorted_.build(points_.get(), counts_.size() ? counts_.get() : nullptr, n_,
                  exact::pow2f(summary_.fixed.coord_exp[0]), inertia_exp, compute_.get());
    loadSortedKernels();
  } catch (const DeviceError&) {
    sorted_.release();  // another program took the memory meanwhile: the compact kernels instead
  }
}

SortedArgs CudaEngine::sortedArgs(int cur, int in_half) const {
  SortedArgs a;
  a.values = sorted_.values();
  a.prefix = sorted_.prefix();
  a.samples = sorted_.samples();
  a.sample_count = sorted_.sampleCount();
  a.sample_step = sorted_.sampleStep();
  a.n = n_;
  a.k = k_;
  a.inertia_exp = sorted_.inertiaExp();
  a.inertia_bits = inertia_bits_;
  a.centroids_in = centroids_[cur].get();
  a.centroids_out = centroids_[1 - cur].get();
  a.runs_in = in_half < 0 ? nullptr : runs_.get() + cur;
  a.runs_out = runs_.get() + (1 - cur);
  a.mixed_in = sorted_.mixedLabels(cur);
  a.mixed_out = sorted_.mixedLabels(1 - cur);
  a.empty_flags = empty_flags_.get();
  a.scalars = scalars_.get();
  a.report = report_device_;
  a.update = updateParams();
  return a;
}

void CudaEngine::enqueueSortedIteration(int cur, int in_half) {
  const cudaStream_t s = compute_.get();
  iteration_start_.recordInGraph(s);
  launchSortedIteration(sortedArgs(cur, in_half), s);
  after_update_.recordInGraph(s);
}

void CudaEngine::launchSortedLoop(int count, bool stop_on_empty, bool stop_on_converged) {
  const int in_half = first_iteration_ ? -1 : latest_;
  SortedLoop loop;
  loop.count = count;
  for (int i = 0; i < 2; ++i) {  // iteration j reads arrangement cur_ ^ (j & 1), as step() would
    const int cur = cur_ ^ i;
    loop.centroids[i] = centroids_[cur].get();
    loop.runs[i] = runs_.get() + cur;
    loop.mixed[i] = sorted_.mixedLabels(cur);
  }
  loop.reports = loop_reports_.device();
  loop.done = loop_done_.device();
  loop.stop_on_empty = stop_on_empty;
  loop.stop_on_converged = stop_on_converged;
  const cudaStream_t s = compute_.get();
  iteration_start_.record(s);
  launchSortedIterations(sortedArgs(cur_, in_half), loop, s);
  after_update_.record(s);
}

void CudaEngine::writeSortedLabels(int cur, int half) {
  launchSortedLabels(runs_.get() + (1 - cur), sorted_.mixedLabels(1 - cur), sorted_.origin(), n_,
                     labelHalf(half), static_cast<int>(labelBytes()), compute_.get());
}

}  // namespace kms::cuda
