// CudaEngine: one iteration's work on the compute stream through the run's kernel family,
// captured into a graph per buffer arrangement and part (launchPart), the family's loop for
// steps() (launchLoop), and the buffers the family is given (runBuffers).
#include "cuda/cuda_engine.cuh"
#include "cuda/nvtx.cuh"

namespace kms::cuda {

RunBuffers CudaEngine::runBuffers(int cur, int in_half, int out_half) const {
  RunBuffers r;
  r.k = k_;
  r.cur = cur;
  r.in_half = in_half;
  r.out_half = out_half;
  r.centroids[0] = run_.centroids[0].get();
  r.centroids[1] = run_.centroids[1].get();
  r.labels = run_.labels.get();
  r.label_bytes = labelBytes();
  r.totals = run_.totals.get();
  r.global_totals = run_.global_totals.get();
  r.block_inertia = run_.block_inertia.get();
  r.block_changed = run_.block_changed.get();
  r.block_work = run_.block_work.get();
  r.result_slots = resultSlots();
  r.empty_flags = reseed_.empty_flags.get();
  r.scalars = run_.scalars.get();
  r.report = run_.report_device;
  r.update = updateParams();
  return r;
}

template <typename Enqueue>
void CudaEngine::launchGraph(int key, Enqueue&& enqueue) {
  const cudaStream_t s = compute_.get();
  auto graph = graphs_.find(key);
  if (graph == graphs_.end()) graph = graphs_.emplace(key, GraphExec::capture(s, enqueue)).first;
  graph->second.launch(s);
}

void CudaEngine::launchIteration(int cur, int in_half, int out_half, Part part) {
  const int key = ((cur * 3 + (in_half + 1)) * 2 + out_half) * 3 + static_cast<int>(part);
  launchGraph(
      key, [&] { family_->enqueue(data_, runBuffers(cur, in_half, out_half), part, launchOn()); });
}

void CudaEngine::launchLoop(int count, bool stop_on_empty, bool stop_on_converged) {
  const NvtxRange range("kms: iterations in one launch");
  const int in_half = first_iteration_ ? -1 : latest_;
  const DeviceLoop loop{count, stop_on_empty, stop_on_converged, run_.loop_reports.device(),
                        run_.loop_done.device()};
  const auto enqueue = [&] {
    family_->enqueueLoop(data_, runBuffers(cur_, in_half, latest_), loop, launchOn());
  };
  if (!family_->loopIsGraph()) return enqueue();
  // Keys past step()'s (launchIteration's are below 36): one graph per arrangement, for the
  // run's first iteration or a later one, and stop rule.
  const int key =
      64 +
      (((cur_ * 2 + latest_) * 2 + (first_iteration_ ? 1 : 0)) * 2 + (stop_on_empty ? 1 : 0)) * 2 +
      (stop_on_converged ? 1 : 0);
  launchGraph(key, enqueue);
}

void CudaEngine::writeRowLabels(int cur, int half) {
  family_->writeRowLabels(data_, runBuffers(cur, -1, half), half, compute_.get());
}

UpdateParams CudaEngine::updateParams() const {
  UpdateParams up;
  up.k = k_;
  up.d = data_.d;
  up.n = data_.summary.total_count;
  up.coord_exp = data_.coord_exp.get();
  up.weight_exp = data_.summary.fixed.weight_exp;
  up.scale = data_.summary.scale;
  up.tolerance = config_.tolerance;
  up.counters = run_.counters.get();
  up.tracks_drift = keepsBounds();
  up.reports_searched = family_->reportsSearched();
  return up;
}

void CudaEngine::launchPart(const PendingStep& p, Part part) {
  const NvtxRange range(family_->name());
  activate();
  launchIteration(cur_, p.in_half, p.out_half, part);
  // A family that keeps its labels otherwise (sorted runs: by run) writes them by row for a
  // capture.
  if (p.capture) writeRowLabels(cur_, p.out_half);
}

void CudaEngine::describeCentroids(const PendingStep& p) {
  activate();
  family_->describe(data_, runBuffers(cur_, -1, p.out_half), compute_.get());
}

}  // namespace kms::cuda
