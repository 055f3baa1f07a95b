#include "cuda/families/compact_rows.cuh"

#include "cuda/families/bounds_family_args.cuh"
#include "cuda/families/planner.cuh"
#include "cuda/kernels/compact_iteration.cuh"

namespace kms::cuda {

static_assert(kCompactLoopSteps <= kMaxLoopSteps);

bool CompactRowsFamily::fits(const FamilyPlanInput& in) {
  return fitsCompactKernel(in.data.d, in.k) && !in.data.weights.size();
}

CompactRowsFamily::CompactRowsFamily(const FamilyPlanInput& in) {
  withLabelBytes(in.label_bytes, [&](auto label_type) {
    plan_ = planCompact<decltype(label_type)>(in.data.n, in.data.d, in.k, 0, in.limits);
  });
}

std::size_t CompactRowsFamily::runBytes(const PlacedData& data, int k) const {
  return BoundsFamily::runBytes(data, k) + sizeof(int);
}

void CompactRowsFamily::allocate(const PlacedData& data, int k) {
  BoundsFamily::allocate(data, k);
  loop_stop_.resize(1);
}

std::size_t CompactRowsFamily::deviceBytes() const {
  return BoundsFamily::deviceBytes() + loop_stop_.bytes();
}

void CompactRowsFamily::release() {
  BoundsFamily::release();
  loop_stop_.release();
}

void CompactRowsFamily::enqueue(PlacedData& data, const RunBuffers& run, Part part,
                                const Launch& launch) {
  withLabelBytes(label_bytes_, [&](auto label_type) {
    enqueueAs<decltype(label_type)>(data, run, part, launch);
  });
}

template <typename LabelT>
void CompactRowsFamily::enqueueAs(PlacedData& data, const RunBuffers& run, Part part,
                                  const Launch& launch) {
  CompactArgs<LabelT> a = args<LabelT>(data, run);
  const cudaStream_t s = launch.stream;
  IterationEvents& events = *launch.events;
  const auto assign = [&](const CompactArgs<LabelT>& rows) {
    launchCompactAssign<LabelT>(plan_, rows, s);
  };
  switch (part) {
    case Part::kWhole:
      events.start.recordInGraph(s);
      assignByChunks(data, a, s, assign);
      // The update's launch overlaps the assignment's end (streamed chunks end on an event).
      launchCompactUpdate<LabelT>(a, s, launch.dependent_launches && !data.chunked.active());
      // Two kernels do every stage; it all counts as assignment (only these two events are
      // recorded: each event recorded in a graph costs about a microsecond).
      events.after_update.recordInGraph(s);
      break;
    case Part::kSums:  // a shard: assignment, and its scalars for the all-reduce
      events.start.recordInGraph(s);
      assignByChunks(data, a, s, assign);
      launchCompactShardScalars<LabelT>(a, s);
      events.after_reduce.recordInGraph(s);
      break;
    case Part::kUpdate:  // a shard, after the all-reduce into global_totals and scalars
      a.update_totals = run.global_totals;
      a.scalars_reduced = true;
      events.update_start.recordInGraph(s);
      launchCompactUpdate<LabelT>(a, s);
      events.after_update.recordInGraph(s);
      break;
  }
}

int CompactRowsFamily::loopSteps(const PlacedData& data) const {
  // Not for a shard (the all-reduce sits between the parts) or data copied in chunks (their
  // copies).
  return data.shard || data.chunked.active() ? 0 : kCompactLoopSteps;
}

void CompactRowsFamily::enqueueLoop(PlacedData& data, const RunBuffers& run, const DeviceLoop& loop,
                                    const Launch& launch) {
  withLabelBytes(label_bytes_, [&](auto label_type) {
    enqueueLoopAs<decltype(label_type)>(data, run, loop, launch);
  });
}

template <typename LabelT>
void CompactRowsFamily::enqueueLoopAs(PlacedData& data, const RunBuffers& run,
                                      const DeviceLoop& loop, const Launch& launch) {
  const cudaStream_t s = launch.stream;
  launch.events->start.recordInGraph(s);
  for (int j = 0; j < loop.count; ++j) {
    // Iteration j assigns with centroids[cur ^ (j & 1)] and updates the other, as step() would;
    // labels stay in the latest half (no capture runs in a loop), and the run's first iteration
    // has none to read.
    RunBuffers r = run;
    r.cur = run.cur ^ (j & 1);
    r.in_half = j == 0 ? run.in_half : run.out_half;
    CompactArgs<LabelT> a = args<LabelT>(data, r);
    a.report = loop.reports + j;
    a.loop = LoopStep{loop_stop_.get(), loop.done, j, loop.stop_on_empty, loop.stop_on_converged};
    // Each kernel after the first launches as the programmatic dependent of the one before.
    launchCompactAssign<LabelT>(plan_, a, s, launch.dependent_launches && j > 0);
    launchCompactUpdate<LabelT>(a, s, launch.dependent_launches);
  }
  launch.events->after_update.recordInGraph(s);
}

}  // namespace kms::cuda
