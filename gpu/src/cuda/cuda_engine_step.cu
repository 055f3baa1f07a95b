// CudaEngine's step: the iteration's graph launched on the buffers' current arrangement, the
// report read from pinned memory, empty clusters re-seeded, and the stats, buffer swap, history
// and capture that follow (cuda_engine.cuh describes the ordering).
#include "cuda/cuda_engine.cuh"

#include "cuda/kernels/iteration_kernels.cuh"
#include "cuda/nvtx.cuh"

namespace kms::cuda {
namespace {

/// Tests (TestHooks::fault_at_iteration): a kernel that stops with a trap, the way an
/// out-of-bounds access or an assertion in a real kernel ends — the context is lost for good.
__global__ void trapKernel() {
  __trap();
}

void launchTrap(cudaStream_t stream) {
  trapKernel<<<1, 1, 0, stream>>>();
  KMS_CHECK_LAUNCH();
}

}  // namespace

double CudaEngine::pollCopy() {
  if (frozen_ < 0 || !capture_.copy_done.done()) return 0.0;
  frozen_ = -1;
  return capture_.copy_done.msSince(capture_.copy_start);
}

CudaEngine::PendingStep CudaEngine::beginStep(bool capture, double copy_ms) {
  PendingStep p;
  p.copy_ms = copy_ms;
  p.in_half = first_iteration_ ? -1 : latest_;
  p.capture = capture && frozen_ < 0;
  p.out_half = (p.capture || frozen_ == latest_) ? 1 - latest_ : latest_;
  return p;
}

IterationReport CudaEngine::readReport() {
  const NvtxRange range("kms: wait for the iteration");
  activate();
  events_.after_update.synchronize();  // the one wait per iteration: the report is in pinned memory
  return checkedReport(*run_.report.get());
}

IterationReport CudaEngine::checkedReport(const IterationReport& report) const {
  if (report.iteration != iteration_ + 1)
    throw DeviceError("internal error: the device reported iteration " +
                      std::to_string(report.iteration) + " while iteration " +
                      std::to_string(iteration_ + 1) + " was expected");
  return report;
}

void CudaEngine::reseedHere(const PendingStep& p, int empty_count) {
  activate();
  const cudaStream_t s = compute_.get();
  writeRowLabels(cur_, p.out_half);  // the re-seed reads every row's label
  withLabelType([&](auto label_type) {
    using LabelT = decltype(label_type);
    const auto* labels_out = reinterpret_cast<const LabelT*>(labelHalf(p.out_half));
    launchReseed<LabelT>(data_.points.get(), data_.n, labels_out, run_.centroids[cur_].get(),
                         run_.centroids[1 - cur_].get(), reseed_.empty_flags.get(),
                         reseed_.empty_list.get(), reseed_.picked_keys.get(),
                         reseed_.picked_points.get(), reseed_.farthest_keys.get(),
                         reseed_.farthest_blocks, run_.scalars.get(), run_.report_device,
                         updateParams(), empty_count, s);
  });
  if (keepsBounds()) describeCentroids(p);  // the update described them before the re-seed
  events_.after_update.record(s);
}

IterationStats CudaEngine::step() {
  activate();
  requireInitialized();
  const double copy_ms = pollCopy();
  const PendingStep p = beginStep(snapshot_requested_, copy_ms);
  if (options_.hooks.fault_at_iteration == iteration_ + 1)
    launchTrap(compute_.get());  // tests: a broken kernel
  launchPart(p, Part::kWhole);
  IterationReport report = readReport();
  if (report.empty_count > 0 && config_.empty_clusters == EmptyClusterPolicy::ReseedFarthest) {
    reseedHere(p, report.empty_count);
    report = readReport();
  }
  return completeStep(p, report);
}

IterationStats CudaEngine::finishStep(const PendingStep& p, const IterationReport& report) {
  activate();  // history and captures copy from this GPU's buffers
  return completeStep(p, report);
}

IterationStats CudaEngine::completeStep(const PendingStep& p, const IterationReport& report,
                                        double span_ms) {
  IterationStats stats;
  stats.iteration = iteration_ + 1;
  stats.inertia = report.inertia;
  stats.changed = report.changed;
  stats.max_shift = report.max_shift;
  stats.empty_clusters = report.empty_count;
  stats.converged = report.converged != 0;
  if (keepsBounds() || family_->reportsSearched()) {
    stats.rows_searched = static_cast<std::int64_t>(report.searched);
    // The tensor kernel ranks all n·k pairs on tensor cores; only its re-ranked rows are told.
    if (keepsBounds()) stats.distances_computed = static_cast<std::int64_t>(report.evaluated);
  }
  if (family_->timesWholeIteration() && !data_.shard) {
    stats.ms.assign_ms = span_ms >= 0.0 ? span_ms : events_.after_update.msSince(events_.start);
  } else {
    // Compact shards and wide rows: the assignment with its reduction counts as assignment.
    if (keepsBounds()) {
      stats.ms.assign_ms = events_.after_reduce.msSince(events_.start);
    } else {
      stats.ms.assign_ms = events_.after_assign.msSince(events_.start);
      stats.ms.reduce_ms = events_.after_reduce.msSince(events_.after_assign);
    }
    if (data_.shard) {  // the all-reduce (and any wait for the other GPUs) sits between the parts
      stats.ms.communication_ms = events_.update_start.msSince(events_.after_reduce);
      stats.ms.update_ms = events_.after_update.msSince(events_.update_start);
    } else {
      stats.ms.update_ms = events_.after_update.msSince(events_.after_reduce);
    }
  }
  stats.ms.copy_ms = p.copy_ms;

  cur_ = 1 - cur_;  // swap centroid buffers: the update's output is now current
  latest_ = p.out_half;
  first_iteration_ = false;
  endIteration(stats);
  if (p.capture) {
    frozen_ = p.out_half;
    issueCapture(iteration_, stats);
  }
  return stats;
}

}  // namespace kms::cuda
