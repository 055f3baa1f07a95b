// CudaEngine::steps: several iterations in one launch, the loop kept on the device — the sorted
// runs' one kernel that loops (kernels/sorted_iteration.cuh, launchSortedLoop), or the compact
// kernels' iterations captured back to back into one graph (kCompactLoopSteps of them,
// launchCompactLoop in cuda_engine_iteration.cu). Either way the host waits
// once a launch instead of once an iteration, and reads a report per iteration from pinned
// memory; the results are those of as many step() calls, bit for bit.
#include <algorithm>
#include <string>

#include "cuda/cuda_engine.cuh"
#include "kmeans/errors.h"

namespace kms::cuda {

bool CudaEngine::loopsOnDevice() const {
  // Not where the host acts between iterations: a capture, the history's centroids, a test's
  // trap; nor for a shard (the all-reduce) or data copied in chunks (their copies).
  if (snapshot_requested_ || config_.keep_history || fault_at_iteration_ != 0) return false;
  return plan_.sorted || (plan_.compact && !shard_ && !chunked_.active());
}

int CudaEngine::stepsPerCall() const {
  if (!loopsOnDevice()) return 1;
  return plan_.sorted ? kSortedLoopMax : kCompactLoopSteps;
}

int CudaEngine::steps(int max_steps, std::vector<IterationStats>& out) {
  activate();
  requireInitialized();
  const int per_call = stepsPerCall();
  const int count = std::min({max_steps, config_.max_iterations - iteration_, per_call});
  const bool past = steps_past_convergence_;  // benchmarks: on past convergence, as step() goes
  const bool over = past ? iteration_ >= config_.max_iterations : finished();
  // The compact loop's graph runs kCompactLoopSteps iterations (fewer asked: step() by step()),
  // and writes the latest label half (not while a capture copies it).
  const bool compact_ready =
      !plan_.sorted && count == kCompactLoopSteps && (frozen_ < 0 || copy_done_.done());
  if (per_call < 2 || count < 2 || over || (!plan_.sorted && !compact_ready)) {
    // step() by step(): as many as asked where nothing loops; for a plan that loops, a launch's
    // worth at most (a capture's copy may be done by the next call).
    const int limit = per_call < 2 ? max_steps : std::max(count, 1);
    if (!past) return Engine::steps(limit, out);
    int ran = 0;
    for (; ran < limit && iteration_ < config_.max_iterations; ++ran)
      out.push_back(step());
    return ran;
  }
  if (loop_reports_.size() == 0) {
    loop_reports_.resize(std::max(kSortedLoopMax, kCompactLoopSteps), /*mapped=*/true);
    loop_done_.resize(1, /*mapped=*/true);
  }
  const double copy_ms = pollCopy();
  const bool stop_on_empty = config_.empty_clusters == EmptyClusterPolicy::ReseedFarthest;
  *loop_done_.get() = 0;
  if (plan_.sorted)
    launchSortedLoop(count, stop_on_empty, !past);
  else
    launchCompactLoop(stop_on_empty, !past);
  after_update_.synchronize();
  const double launch_ms = after_update_.msSince(iteration_start_);
  const int done = *loop_done_.get();
  if (done < 1 || done > count)
    throw DeviceError("internal error: a launch of " + std::to_string(count) +
                      " iterations reported " + std::to_string(done));
  for (int i = 0; i < done; ++i) {
    IterationReport report = checkedReport(loop_reports_.get()[i]);
    const PendingStep p = beginStep(false, i == 0 ? copy_ms : 0.0);
    double ms = launch_ms / done;                   // each iteration's share of the launch
    if (report.empty_count > 0 && stop_on_empty) {  // the launch's last iteration
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

}  // namespace kms::cuda
