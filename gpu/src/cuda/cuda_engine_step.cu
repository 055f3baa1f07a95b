// CudaEngine's step: the iteration's graph launched on the buffers' current arrangement, the
// report read from pinned memory, empty clusters re-seeded, and the stats, buffer swap, history
// and capture that follow (cuda_engine.cuh describes the ordering).
#include "cuda/cuda_engine.cuh"

#include "cuda/kernels/iteration_kernels.cuh"

namespace kms::cuda {
namespace {

/// Tests (EngineOptions::cuda_fault_at_iteration): a kernel that stops with a trap, the way an
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
  if (frozen_ < 0 || !copy_done_.done()) return 0.0;
  frozen_ = -1;
  return copy_done_.msSince(copy_start_);
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
  activate();
  after_update_.synchronize();  // the one wait per iteration: the report is in pinned memory
  return checkedReport(*report_.get());
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
  if (plan_.sorted) writeSortedLabels(cur_, p.out_half);  // the re-seed reads every row's label
  withLabelType([&](auto label_type) {
    using LabelT = decltype(label_type);
    const auto* labels_out = reinterpret_cast<const LabelT*>(labelHalf(p.out_half));
    launchReseed<LabelT>(points_.get(), n_, labels_out, centroids_[cur_].get(),
                         centroids_[1 - cur_].get(), empty_flags_.get(), empty_list_.get(),
                         picked_keys_.get(), picked_points_.get(), farthest_keys_.get(),
                         farthest_blocks_, scalars_.get(), report_device_, updateParams(),
                         empty_count, s);
  });
  if (keepsBounds()) describeCentroids(p);  // the update described them before the re-seed
  after_update_.record(s);
}

IterationStats CudaEngine::step() {
  activate();
  requireInitialized();
  const double copy_ms = pollCopy();
  const PendingStep p = beginStep(snapshot_requested_, copy_ms);
  if (fault_at_iteration_ == iteration_ + 1) launchTrap(compute_.get());  // tests: a broken kernel
  launchPart(p, Part::kWhole);
  IterationReport report = readReport();
  if (report.empty_count > 0 && config_.empty_clusters == EmptyClusterPolicy::ReseedFarthest) {
    reseedHere(p, report.empty_count);
    report = readReport();
  }
  return finishStep(p, report);
}

IterationStats CudaEngine::finishStep(const PendingStep& p, const IterationReport& report,
                                      double span_ms) {
  activate();  // history and captures copy from this GPU's buffers
  IterationStats stats;
  stats.iteration = iteration_ + 1;
  stats.inertia = report.inertia;
  stats.changed = report.changed;
  stats.max_shift = report.max_shift;
  stats.empty_clusters = report.empty_count;
  stats.converged = report.converged != 0;
  if (keepsBounds() || plan_.tensor) {
    stats.rows_searched = static_cast<std::int64_t>(report.searched);
    // The tensor kernel ranks all n·k pairs on tensor cores; only its re-ranked rows are told.
    if (keepsBounds()) stats.distances_computed = static_cast<std::int64_t>(report.evaluated);
  }
  if ((plan_.compact || plan_.sorted) && !shard_) {
    stats.ms.assign_ms = span_ms >= 0.0 ? span_ms : after_update_.msSince(iteration_start_);
  } else {
    // Compact shards and wide rows: the assignment with its reduction counts as assignment.
    if (keepsBounds()) {
      stats.ms.assign_ms = after_reduce_.msSince(iteration_start_);
    } else {
      stats.ms.assign_ms = after_assign_.msSince(iteration_start_);
      stats.ms.reduce_ms = after_reduce_.msSince(after_assign_);
    }
    if (shard_) {  // the all-reduce (and any wait for the other GPUs) sits between the parts
      stats.ms.communication_ms = update_start_.msSince(after_reduce_);
      stats.ms.update_ms = after_update_.msSince(update_start_);
    } else {
      stats.ms.update_ms = after_update_.msSince(after_reduce_);
    }
  }
  stats.ms.copy_ms = p.copy_ms;

  cur_ = 1 - cur_;  // swap centroid buffers: the update's output is now current
  latest_ = p.out_half;
  first_iteration_ = false;
  ++iteration_;
  converged_ = stats.converged;
  last_ = stats;
  keepHistory();
  if (p.capture) {
    frozen_ = p.out_half;
    issueCapture(iteration_, stats);
  }
  return stats;
}

}  // namespace kms::cuda
