#include "cuda/families/wide_rows.cuh"

#include "cuda/families/bounds_family_args.cuh"
#include "cuda/families/planner.cuh"
#include "cuda/kernels/wide_iteration.cuh"

namespace kms::cuda {

bool WideRowsFamily::fits(const FamilyPlanInput& in) {
  return in.tuning.distance_bounds && fitsWideKernel(in.data.d, in.k) && !in.data.weights.size();
}

WideRowsFamily::WideRowsFamily(const FamilyPlanInput& in) {
  withLabelBytes(in.label_bytes, [&](auto label_type) {
    plan_ = planWide<decltype(label_type)>(in.data.n, in.data.d, in.k, in.limits);
  });
}

void WideRowsFamily::enqueue(PlacedData& data, const RunBuffers& run, Part part,
                             const Launch& launch) {
  withLabelBytes(label_bytes_, [&](auto label_type) {
    enqueueAs<decltype(label_type)>(data, run, part, launch);
  });
}

template <typename LabelT>
void WideRowsFamily::enqueueAs(PlacedData& data, const RunBuffers& run, Part part,
                               const Launch& launch) {
  CompactArgs<LabelT> a = args<LabelT>(data, run);
  const cudaStream_t s = launch.stream;
  IterationEvents& events = *launch.events;
  if (part != Part::kUpdate) {
    events.start.recordInGraph(s);
    assignByChunks(data, a, s, [&](const CompactArgs<LabelT>& rows) {
      launchWideAssign<LabelT>(plan_, rows, s);
    });
    launchWideReduce<LabelT>(a, s);
    events.after_reduce.recordInGraph(s);
    if (part == Part::kSums) return;  // a shard: the all-reduce comes next
  } else {                            // a shard, after the all-reduce into global_totals
    a.update_totals = run.global_totals;
    events.update_start.recordInGraph(s);
  }
  launchWideUpdate<LabelT>(a, s);
  events.after_update.recordInGraph(s);
}

}  // namespace kms::cuda
