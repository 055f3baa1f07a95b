// CudaEngine::steps: several iterations in one launch, the loop kept on the device by the run's
// family (KernelFamily::enqueueLoop) — the sorted runs' one kernel that loops, or the compact
// kernels' iterations captured back to back into one graph. Either way the host waits once a
// launch instead of once an iteration, and reads a report per iteration from pinned memory; the
// results are those of as many step() calls, bit for bit.
#include <algorithm>
#include <string>

#include "cuda/cuda_engine.cuh"
#include "kmeans/errors.h"

namespace kms::cuda {

bool CudaEngine::loopsOnDevice() const {
  // Not where the host acts between iterations: a capture, the history's centroids, a test's
  // trap; nor for a shard (the all-reduce) or data copied in chunks (their copies).
  if (snapshot_requested_ || config_.keep_history || options_.hooks.fault_at_iteration != 0)
    return false;
  return family_ && family_->loopSteps(data_) > 1;
}

int CudaEngine::stepsPerCall() const {
  return loopsOnDevice() ? family_->loopSteps(data_) : 1;
}

int CudaEngine::steps(int max_steps, std::vector<IterationStats>& out) {
  activate();
  requireInitialized();
  const int per_call = stepsPerCall();
  const int count = std::min({max_steps, config_.max_iterations - iteration_, per_call});
  const bool past =
      options_.hooks.steps_past_convergence;  // benchmarks: on past convergence, as step() goes
  const bool over = past ? iteration_ >= config_.max_iterations : finished();
  // A loop that is a graph runs exactly its iterations (fewer asked: step() by step()), and
  // writes the latest label half (not while a capture copies it).
  const bool graph = family_->loopIsGraph();
  const bool graph_ready = count == per_call && (frozen_ < 0 || capture_.copy_done.done());
  if (per_call < 2 || count < 2 || over || (graph && !graph_ready)) {
    // step() by step(): as many as asked where nothing loops; for a plan that loops, a launch's
    // worth at most (a capture's copy may be done by the next call).
    const int limit = per_call < 2 ? max_steps : std::max(count, 1);
    if (!past) return Engine::steps(limit, out);
    int ran = 0;
    for (; ran < limit && iteration_ < config_.max_iterations; ++ran)
      out.push_back(step());
    return ran;
  }
  if (run_.loop_reports.size() == 0) {  // any family's loop fits (graphs keep the pointers)
    run_.loop_reports.resize(kMaxLoopSteps, /*mapped=*/true);
    run_.loop_done.resize(1, /*mapped=*/true);
  }
  const double copy_ms = pollCopy();
  const bool stop_on_empty = config_.empty_clusters == EmptyClusterPolicy::ReseedFarthest;
  *run_.loop_done.get() = 0;
  launchLoop(count, stop_on_empty, !past);
  events_.after_update.synchronize();
  const double launch_ms = events_.after_update.msSince(events_.start);
  const int done = *run_.loop_done.get();
  if (done < 1 || done > count)
    throw DeviceError("internal error: a launch of " + std::to_string(count) +
                      " iterations reported " + std::to_string(done));
  for (int i = 0; i < done; ++i) {
    IterationReport report = checkedReport(run_.loop_reports.get()[i]);
    const PendingStep p = beginStep(false, i == 0 ? copy_ms : 0.0);
    double ms = launch_ms / done;                   // each iteration's share of the launch
    if (report.empty_count > 0 && stop_on_empty) {  // the launch's last iteration
      // The re-seed re-reports in step()'s slot from the scalars; what only the iteration
      // writes there must be as step() leaves it.
      *run_.report.get() = report;
      reseedHere(p, report.empty_count);
      report = readReport();
      ms += events_.after_update.msSince(events_.start) - launch_ms;  // the re-seed in full
    }
    out.push_back(completeStep(p, report, ms));
  }
  return done;
}

}  // namespace kms::cuda
