// CudaEngine::steps: several iterations in one launch wherever the host has nothing to do
// between them — the sorted runs (one block, kernels/sorted_iteration.cuh) and compact rows of
// 4 < d ≤ 16 (a cooperative grid, kernels/compact_iteration.cuh). Each iteration writes its
// report to its own slot of mapped memory; the host then finishes them in order, as step()
// would have.
#include <algorithm>
#include <string>

#include "cuda/cuda_engine.cuh"
#include "kmeans/errors.h"

namespace kms::cuda {
namespace {

/// Most iterations of one launch, whichever loop runs.
constexpr int kDeviceLoopMax = std::min(kSortedLoopMax, kCompactLoopMax);

}  // namespace

bool CudaEngine::loopsOnDevice() const {
  // Not where the host acts between iterations: a capture, the history's centroids, a test's
  // trap.
  return (plan_.sorted || plan_.device_loop) && !snapshot_requested_ && !config_.keep_history &&
         fault_at_iteration_ == 0;
}

int CudaEngine::stepsPerCall() const {
  return loopsOnDevice() ? kDeviceLoopMax : 1;
}

int CudaEngine::steps(int max_steps, std::vector<IterationStats>& out) {
  activate();
  requireInitialized();
  const int count = std::min({max_steps, config_.max_iterations - iteration_, kDeviceLoopMax});
  const bool past = steps_past_convergence_;  // benchmarks: on past convergence, as step() goes
  const bool over = past ? iteration_ >= config_.max_iterations : finished();
  // Compact rows keep labels by row: while a capture's labels are still being copied out, step()
  // writes the other half (the sorted runs write labels only on demand).
  const bool copying = plan_.device_loop && frozen_ >= 0 && !copy_done_.done();
  if (!loopsOnDevice() || count < 2 || over || copying) {
    if (!past) return Engine::steps(max_steps, out);
    int ran = 0;
    for (; ran < max_steps && iteration_ < config_.max_iterations; ++ran)
      out.push_back(step());
    return ran;
  }
  if (loop_reports_.size() == 0) {
    loop_reports_.resize(kDeviceLoopMax, /*mapped=*/true);
    loop_done_.resize(1, /*mapped=*/true);
  }
  const double copy_ms = pollCopy();
  const int in_half = first_iteration_ ? -1 : latest_;
  const bool stop_on_empty = config_.empty_clusters == EmptyClusterPolicy::ReseedFarthest;
  *loop_done_.get() = 0;
  const cudaStream_t s = compute_.get();
  iteration_start_.record(s);
  if (plan_.sorted) {
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
    loop.stop_on_converged = !past;
    launchSortedIterations(sortedArgs(cur_, in_half), loop, s);
  } else {
    CompactLoop loop;
    loop.count = count;
    for (int i = 0; i < 2; ++i)
      loop.centroids[i] = centroids_[cur_ ^ i].get();
    loop.reports = loop_reports_.device();
    loop.done = loop_done_.device();
    loop.stop_on_empty = stop_on_empty;
    loop.stop_on_converged = !past;
    launchCompactLoop(in_half, loop);  // labels stay in half latest_, as step() writes them
  }
  after_update_.record(s);
  after_update_.synchronize();
  const double launch_ms = after_update_.msSince(iteration_start_);
  const int done = *loop_done_.get();
  if (done < 1 || done > count)
    throw DeviceError("internal error: the device loop reported " + std::to_string(done) +
                      " iterations of " + std::to_string(count));
  for (int i = 0; i < done; ++i) {
    IterationReport report = checkedReport(loop_reports_.get()[i]);
    const PendingStep p = beginStep(false, i == 0 ? copy_ms : 0.0);
    double ms = launch_ms / done;                   // each iteration's share of the launch
    if (report.empty_count > 0 && stop_on_empty) {  // the loop's last iteration
      // The re-seed re-reports in step()'s slot from the scalars; what only the update writes
      // (rows searched, distances computed) must be there as step() leaves it.
      *report_.get() = report;
      reseedHere(p, report.empty_count);
      report = readReport();
      ms += after_update_.msSince(iteration_start_) - launch_ms;  // the re-seed in full
    }
    out.push_back(finishStep(p, report, ms));
  }
  return done;
}

}  // namespace kms::cuda
