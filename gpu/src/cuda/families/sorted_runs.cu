#include "cuda/families/sorted_runs.cuh"

#include "cuda/cuda_check.cuh"
#include "cuda/families/planner.cuh"

namespace kms::cuda {

static_assert(kSortedLoopMax <= kMaxLoopSteps);

bool SortedRunsFamily::fits(const FamilyPlanInput& in) {
  return !in.data.sorted.empty() && !in.data.shard && in.k <= kSortedMaxK &&
         !in.data.weights.size();
}

SortedRunsFamily::SortedRunsFamily(const FamilyPlanInput&) {
  plan_ = AssignPlan{};
  plan_.sorted = true;
}

void SortedRunsFamily::allocate(const PlacedData&, int k) {
  label_bytes_ = k <= 256 ? 1 : 2;
  runs_.resize(2);
}

void SortedRunsFamily::startRun(PlacedData&, const RunBuffers&, cudaStream_t stream) {
  // Each iteration reads the previous runs up to k (past their groups: zeros, never used).
  KMS_CUDA_CHECK(cudaMemsetAsync(runs_.get(), 0, runs_.bytes(), stream));
}

SortedArgs SortedRunsFamily::args(const PlacedData& data, const RunBuffers& run) const {
  const int cur = run.cur;
  SortedArgs a;
  a.values = data.sorted.values();
  a.prefix = data.sorted.prefix();
  a.samples = data.sorted.samples();
  a.sample_count = data.sorted.sampleCount();
  a.sample_step = data.sorted.sampleStep();
  a.n = data.n;
  a.k = run.k;
  a.inertia_exp = data.sorted.inertiaExp();
  a.inertia_bits = data.inertia_bits;
  a.centroids_in = run.centroids[cur];
  a.centroids_out = run.centroids[1 - cur];
  a.runs_in = run.in_half < 0 ? nullptr : runs_.get() + cur;
  a.runs_out = runs_.get() + (1 - cur);
  a.mixed_in = data.sorted.mixedLabels(cur);
  a.mixed_out = data.sorted.mixedLabels(1 - cur);
  a.empty_flags = run.empty_flags;
  a.scalars = run.scalars;
  a.report = run.report;
  a.update = run.update;
  return a;
}

void SortedRunsFamily::enqueue(PlacedData& data, const RunBuffers& run, Part,
                               const Launch& launch) {
  const cudaStream_t s = launch.stream;
  launch.events->start.recordInGraph(s);
  launchSortedIteration(args(data, run), s);
  launch.events->after_update.recordInGraph(s);
}

void SortedRunsFamily::enqueueLoop(PlacedData& data, const RunBuffers& run,
                                   const DeviceLoop& device_loop, const Launch& launch) {
  SortedLoop loop;
  loop.count = device_loop.count;
  for (int i = 0; i < 2; ++i) {  // iteration j reads arrangement cur ^ (j & 1), as step() would
    const int cur = run.cur ^ i;
    loop.centroids[i] = run.centroids[cur];
    loop.runs[i] = runs_.get() + cur;
    loop.mixed[i] = data.sorted.mixedLabels(cur);
  }
  loop.reports = device_loop.reports;
  loop.done = device_loop.done;
  loop.stop_on_empty = device_loop.stop_on_empty;
  loop.stop_on_converged = device_loop.stop_on_converged;
  const cudaStream_t s = launch.stream;
  launch.events->start.record(s);
  launchSortedIterations(args(data, run), loop, s);
  launch.events->after_update.record(s);
}

bool SortedRunsFamily::writeRowLabels(PlacedData& data, const RunBuffers& run, int half,
                                      cudaStream_t stream) {
  const int cur = run.cur;
  launchSortedLabels(runs_.get() + (1 - cur), data.sorted.mixedLabels(1 - cur),
                     data.sorted.origin(), data.n, run.half(half, data.n),
                     static_cast<int>(label_bytes_), stream);
  return true;
}

}  // namespace kms::cuda
