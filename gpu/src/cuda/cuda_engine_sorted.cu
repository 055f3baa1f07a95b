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
      data_bytes + tiles_.bytes() + SortedIndex::bytesFor(n_) > max_device_bytes_)
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

bool CudaEngine::loopsOnDevice() const {
  // Not where the host acts between iterations: a capture, the history's centroids, a test's
  // trap.
  return plan_.sorted && !snapshot_requested_ && !config_.keep_history && fault_at_iteration_ == 0;
}

int CudaEngine::stepsPerCall() const {
  return loopsOnDevice() ? kSortedLoopMax : 1;
}

int CudaEngine::steps(int max_steps, std::vector<IterationStats>& out) {
  activate();
  requireInitialized();
  const int count = std::min({max_steps, config_.max_iterations - iteration_, kSortedLoopMax});
  const bool past = steps_past_convergence_;  // benchmarks: on past convergence, as step() goes
  const bool over = past ? iteration_ >= config_.max_iterations : finished();
  if (!loopsOnDevice() || count < 2 || over) {
    if (!past) return Engine::steps(max_steps, out);
    int ran = 0;
    for (; ran < max_steps && iteration_ < config_.max_iterations; ++ran)
      out.push_back(step());
    return ran;
  }
  if (loop_reports_.size() == 0) {
    loop_reports_.resize(kSortedLoopMax, /*mapped=*/true);
    loop_done_.resize(1, /*mapped=*/true);
  }
  const double copy_ms = pollCopy();
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
  loop.stop_on_empty = config_.empty_clusters == EmptyClusterPolicy::ReseedFarthest;
  loop.stop_on_converged = !past;
  *loop_done_.get() = 0;
  const cudaStream_t s = compute_.get();
  iteration_start_.record(s);
  launchSortedIterations(sortedArgs(cur_, in_half), loop, s);
  after_update_.record(s);
  after_update_.synchronize();
  const double launch_ms = after_update_.msSince(iteration_start_);
  const int done = *loop_done_.get();
  if (done < 1 || done > count)
    throw DeviceError("internal error: the sorted-runs loop reported " + std::to_string(done) +
                      " iterations of " + std::to_string(count));
  for (int i = 0; i < done; ++i) {
    IterationReport report = checkedReport(loop_reports_.get()[i]);
    const PendingStep p = beginStep(false, i == 0 ? copy_ms : 0.0);
    double ms = launch_ms / done;                        // each iteration's share of the launch
    if (report.empty_count > 0 && loop.stop_on_empty) {  // the loop's last iteration
      // The re-seed re-reports in step()'s slot from the scalars; what only the iteration
      // writes there must be as step() leaves it.
      *report_.get() = report;
      reseedHere(p, report.empty_count);
      report = readReport();
      ms += after_update_.msSince(iteration_start_) - launch_ms;  // the re-seed in full
    }
    out.push_back(finishStep(p, report, ms));
  }
  return done;
}

void CudaEngine::writeSortedLabels(int cur, int half) {
  launchSortedLabels(runs_.get() + (1 - cur), sorted_.mixedLabels(1 - cur), sorted_.origin(), n_,
                     labelHalf(half), static_cast<int>(labelBytes()), compute_.get());
}

}  // namespace kms::cuda
