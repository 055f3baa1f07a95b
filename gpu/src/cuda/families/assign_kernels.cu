#include "cuda/families/assign_kernels.cuh"

#include "common/exact_math.h"
#include "cuda/cuda_check.cuh"
#include "cuda/families/planner.cuh"
#include "cuda/kernels/assign_launch.cuh"

namespace kms::cuda {

AssignKernelsFamily::AssignKernelsFamily(const FamilyPlanInput& in) {
  withLabelBytes(in.label_bytes, [&](auto label_type) {
    using LabelT = decltype(label_type);
    // Counts need 64-bit sums: the generic kernel's.
    plan_ = in.data.summary.fixed.counted
                ? planGeneric<LabelT>(in.data.n, in.limits)
                : planAssign<LabelT>(in.data.n, in.data.d, in.k, in.limits);
  });
}

const char* AssignKernelsFamily::name() const {
  if (plan_.template_dim == 0) return "assignment (generic)";
  if (plan_.tensor) return "assignment (tensor cores)";
  if (plan_.tiled) return "assignment (register tiles)";
  return "assignment";
}

std::size_t AssignKernelsFamily::blockSumCount(const PlacedData& data, int k) const {
  const std::size_t columns = static_cast<std::size_t>(k) * (data.d + 1);
  const std::size_t sum_rows = plan_.separate_sums ? plan_.sum_blocks : plan_.blocks;
  return plan_.per_block_sums ? sum_rows * columns : 0;
}

std::size_t AssignKernelsFamily::runBytes(const PlacedData& data, int k) const {
  return blockSumCount(data, k) * sizeof(long long);
}

void AssignKernelsFamily::allocate(const PlacedData& data, int k) {
  label_bytes_ = k <= 256 ? 1 : 2;
  block_sums_.resize(blockSumCount(data, k));
}

void AssignKernelsFamily::enqueue(PlacedData& data, const RunBuffers& run, Part part,
                                  const Launch& launch) {
  withLabelBytes(label_bytes_, [&](auto label_type) {
    enqueueAs<decltype(label_type)>(data, run, part, launch);
  });
}

template <typename LabelT>
void AssignKernelsFamily::enqueueAs(PlacedData& data, const RunBuffers& run, Part part,
                                    const Launch& launch) {
  const cudaStream_t s = launch.stream;
  IterationEvents& events = *launch.events;
  const int k = run.k, d = data.d;
  const std::size_t totals_words = static_cast<std::size_t>(k) * (d + 1);
  if (part == Part::kUpdate) return enqueueUpdateFrom(run.global_totals, run, part, launch);
  AssignArgs<LabelT> a = assignArgsFor<LabelT>(data, run);
  a.sums = plan_.per_block_sums ? block_sums_.get() : run.totals;
  a.block_work = plan_.tensor ? run.block_work : nullptr;
  a.clear = reinterpret_cast<unsigned long long*>(run.scalars);
  a.clear_words = sizeof(IterationScalars) / sizeof(unsigned long long);
  a.clear_totals = reinterpret_cast<unsigned long long*>(run.totals);
  // The separate summing pass keeps the totals across iterations (accumulate_kernel.cuh): they
  // are zeroed for the first iteration only.
  a.clear_totals_words = plan_.separate_sums && run.in_half >= 0 ? 0 : totals_words;

  events.start.recordInGraph(s);
  if (!plan_.per_block_sums) {  // the generic kernel accumulates into the totals directly
    KMS_CUDA_CHECK(cudaMemsetAsync(run.totals, 0, totals_words * sizeof(long long), s));
    KMS_CUDA_CHECK(cudaMemsetAsync(run.scalars, 0, sizeof(IterationScalars), s));
  }
  launchAssign<LabelT>(plan_, a, s);
  events.after_assign.recordInGraph(s);

  if (plan_.separate_sums) {
    AccumulateArgs<LabelT> sums;
    sums.points = a.points;
    sums.weights = a.weights;
    sums.n = data.n;
    sums.d = d;
    sums.k = k;
    sums.labels = a.labels_out;
    sums.summed_labels = reinterpret_cast<LabelT*>(run.half(kSummedLabels, data.n));
    sums.full = run.in_half < 0;
    sums.coord_scale = a.coord_scale;
    sums.weight_scale = a.weight_scale;
    sums.sums = block_sums_.get();
    launchAccumulate<LabelT>(plan_, sums, s);
  }
  const int columns = plan_.per_block_sums ? k * (d + 1) : 0;
  launchReduce(block_sums_.get(), plan_.separate_sums ? plan_.sum_blocks : plan_.blocks, columns,
               run.totals, run.block_inertia, run.block_changed, a.block_work, plan_.blocks,
               run.scalars, s);
  events.after_reduce.recordInGraph(s);
  if (part == Part::kSums) return;
  enqueueUpdateFrom(run.totals, run, part, launch);
}

void enqueueUpdateFrom(const long long* totals, const RunBuffers& run, Part part,
                       const Launch& launch) {
  const cudaStream_t s = launch.stream;
  if (part == Part::kUpdate) launch.events->update_start.recordInGraph(s);
  launchUpdate(totals, run.centroids[run.cur], run.centroids[1 - run.cur], run.empty_flags,
               run.scalars, run.report, run.update, s);
  launch.events->after_update.recordInGraph(s);
}

}  // namespace kms::cuda
