// CudaEngine: one iteration's work on the compute stream, captured into a graph per buffer
// arrangement (launchPart) — the compact, wide and assignment kernels' iterations, streamed data
// assigned chunk by chunk (assignByChunks), the compact kernels' iterations back to back in one
// graph for steps() (launchCompactLoop), and the centroid geometry the bounds prune with.
#include "common/exact_math.h"
#include "cuda/cuda_engine.cuh"
#include "cuda/kernels/assign_launch.cuh"
#include "cuda/kernels/compact_args.cuh"
#include "cuda/kernels/compact_iteration.cuh"
#include "cuda/kernels/wide_iteration.cuh"

namespace kms::cuda {

template <typename LabelT>
CompactArgs<LabelT> CudaEngine::compactArgs(int cur, int in_half, int out_half) const {
  CompactArgs<LabelT> a;
  a.points = points_.get();
  a.counts = counts_.get();
  a.n = n_;
  a.d = d_;
  a.k = k_;
  a.centroids_in = centroids_[cur].get();
  a.centroids_out = centroids_[1 - cur].get();
  a.labels_in = in_half < 0 ? nullptr : reinterpret_cast<const LabelT*>(labelHalf(in_half));
  a.labels_out = reinterpret_cast<LabelT*>(labelHalf(out_half));
  a.coord_scale = coord_scale_.get();
  a.totals = totals_.get();
  a.update_totals = totals_.get();
  a.bounds = bounds_.get();
  a.block_inertia = block_inertia_.get();
  a.block_changed = block_changed_.get();
  a.block_work = block_work_.get();
  a.blocks = static_cast<int>(resultSlots());
  a.empty_flags = empty_flags_.get();
  a.scalars = scalars_.get();
  a.report = report_device_;
  a.update = updateParams();
  a.geometry = geometry_.get();
  a.order = order_.get();
  for (int c = 0; c < kCompactMaxD; ++c)
    a.axis[c] = axis_[c];
  if (plan_.point_tiles) {
    a.tiles = tiles_.tiles();
    a.tile_points = tiles_.points();
    a.tile_counts = tiles_.counts();
    a.tile_rows = tiles_.rows();
    a.tile_shapes = tiles_.shapes();
    a.tile_sums = tiles_.sums();
    a.tile_owners = tiles_.owners();
    a.tile_labels = tiles_.labels();
    a.tile_bounds = tiles_.bounds();
    a.tile_chunks = tiles_.chunks();
    a.tile_chunk_stride = tiles_.chunkStride();
    a.tile_iteration = tiles_.iteration();
    a.tile_schedule = tiles_.schedule();
    a.tile_sched_lists = tiles_.scheduleLists();
    a.inertia_exp = inertia_exp_;
  }
  if (plan_.repeat_groups) {  // the row kernel over one row a group, then the rows' labels
    auto* group_labels = reinterpret_cast<LabelT*>(group_labels_.get());
    a.points = groups_.values();
    a.counts = groups_.counts();
    a.n = groups_.groups();
    a.labels_in = in_half < 0 ? nullptr : group_labels;
    a.labels_out = group_labels;
    a.group_starts = groups_.starts();
    a.group_rows = tiles_.rows();
    a.group_segment_first = groups_.segmentFirst();
    a.segment_group = groups_.segmentGroup();
    a.group_segments = groups_.segments();
    a.row_labels = reinterpret_cast<LabelT*>(labelHalf(out_half));
    // group_changed_ (RepeatGroups::changeListWords): the segments, the large groups, the counts.
    a.group_changed = group_changed_.get();
    a.group_changed_large = group_changed_.get() + groups_.segments();
    a.group_changed_count = group_changed_.get() + groups_.changeCountsAt();
    a.groups_every = in_half != out_half;  // (in_half −1: the first iteration)
  }
  return a;
}

template <typename LabelT, typename Assign>
void CudaEngine::assignByChunks(const CompactArgs<LabelT>& a, Assign&& assign) {
  if (!chunked_.active()) return assign(a);
  const cudaStream_t s = compute_.get();
  chunked_.begin(s);
  for (std::size_t j = 0; j < chunked_.chunks(); ++j) {
    const ChunkedCopies::Chunk c = chunked_.stage(j, s);
    CompactArgs<LabelT> part = a;
    part.points = c.points;
    part.counts = c.counts;
    part.n = c.rows;
    if (a.labels_in) part.labels_in = a.labels_in + c.first;
    part.labels_out = a.labels_out + c.first;
    if (a.bounds) part.bounds = a.bounds + c.first;
    const std::size_t slot = j * static_cast<std::size_t>(plan_.blocks);
    part.block_inertia = a.block_inertia + slot;
    part.block_changed = a.block_changed + slot;
    part.block_work = a.block_work + 2 * slot;
    assign(part);
    chunked_.finish(j, s);
  }
}

template <typename LabelT>
void CudaEngine::enqueueCompactIteration(int cur, int in_half, int out_half, Part part) {
  CompactArgs<LabelT> a = compactArgs<LabelT>(cur, in_half, out_half);
  const cudaStream_t s = compute_.get();
  const auto assign = [&](const CompactArgs<LabelT>& rows) {
    launchCompactAssign<LabelT>(plan_, rows, s);
  };
  switch (part) {
    case Part::kWhole:
      iteration_start_.recordInGraph(s);
      assignByChunks(a, assign);
      // The update's launch overlaps the assignment's end (streamed chunks end on an event).
      launchCompactUpdate<LabelT>(a, s, dependentLaunches() && !chunked_.active());
      // Two kernels do every stage; it all counts as assignment (finishStep reads only these
      // two events for a whole compact iteration: each event recorded in a graph costs about a
      // microsecond).
      after_update_.recordInGraph(s);
      break;
    case Part::kSums:  // a shard: assignment, and its scalars for the all-reduce
      iteration_start_.recordInGraph(s);
      assignByChunks(a, assign);
      launchCompactShardScalars<LabelT>(a, s);
      after_reduce_.recordInGraph(s);
      break;
    case Part::kUpdate:  // a shard, after the all-reduce into global_totals_ and scalars_
      a.update_totals = global_totals_.get();
      a.scalars_reduced = true;
      update_start_.recordInGraph(s);
      launchCompactUpdate<LabelT>(a, s);
      after_update_.recordInGraph(s);
      break;
  }
}

template <typename LabelT>
void CudaEngine::enqueueCompactLoop(bool stop_on_empty, bool stop_on_converged) {
  const cudaStream_t s = compute_.get();
  iteration_start_.recordInGraph(s);
  for (int j = 0; j < kCompactLoopSteps; ++j) {
    // Iteration j assigns with centroids_[cur_ ^ (j & 1)] and updates the other, as step()
    // would; labels stay in the latest half (no capture runs in a loop), and the run's first
    // iteration has none to read.
    const int in_half = j == 0 && first_iteration_ ? -1 : latest_;
    CompactArgs<LabelT> a = compactArgs<LabelT>(cur_ ^ (j & 1), in_half, latest_);
    a.report = loop_reports_.device() + j;
    a.loop = LoopStep{loop_stop_.get(), loop_done_.device(), j, stop_on_empty, stop_on_converged};
    // Each kernel after the first launches as the programmatic dependent of the one before.
    launchCompactAssign<LabelT>(plan_, a, s, dependentLaunches() && j > 0);
    launchCompactUpdate<LabelT>(a, s, dependentLaunches());
  }
  after_update_.recordInGraph(s);
}

template <typename Enqueue>
void CudaEngine::launchGraph(int key, Enqueue&& enqueue) {
  const cudaStream_t s = compute_.get();
  auto graph = graphs_.find(key);
  if (graph == graphs_.end()) graph = graphs_.emplace(key, GraphExec::capture(s, enqueue)).first;
  graph->second.launch(s);
}

void CudaEngine::launchCompactLoop(bool stop_on_empty, bool stop_on_converged) {
  if (loop_stop_.size() == 0) loop_stop_.resize(1);
  // Keys past step()'s (launchPart's are below 36): one graph per arrangement, for the run's
  // first iteration or a later one, and stop rule.
  const int key =
      64 +
      (((cur_ * 2 + latest_) * 2 + (first_iteration_ ? 1 : 0)) * 2 + (stop_on_empty ? 1 : 0)) * 2 +
      (stop_on_converged ? 1 : 0);
  launchGraph(key, [&] {
    withLabelType([&](auto label_type) {
      enqueueCompactLoop<decltype(label_type)>(stop_on_empty, stop_on_converged);
    });
  });
}

template <typename LabelT>
void CudaEngine::enqueueWideIteration(int cur, int in_half, int out_half, Part part) {
  CompactArgs<LabelT> a = compactArgs<LabelT>(cur, in_half, out_half);
  const cudaStream_t s = compute_.get();
  if (part != Part::kUpdate) {
    iteration_start_.recordInGraph(s);
    assignByChunks(
        a, [&](const CompactArgs<LabelT>& rows) { launchWideAssign<LabelT>(plan_, rows, s); });
    launchWideReduce<LabelT>(a, s);
    after_reduce_.recordInGraph(s);
    if (part == Part::kSums) return;  // a shard: the all-reduce comes next
  } else {                            // a shard, after the all-reduce into global_totals_
    a.update_totals = global_totals_.get();
    update_start_.recordInGraph(s);
  }
  launchWideUpdate<LabelT>(a, s);
  after_update_.recordInGraph(s);
}

template <typename LabelT>
void CudaEngine::enqueueIteration(int cur, int in_half, int out_half, Part part) {
  if (plan_.sorted) return enqueueSortedIteration(cur, in_half);
  if (plan_.compact) return enqueueCompactIteration<LabelT>(cur, in_half, out_half, part);
  if (plan_.wide) return enqueueWideIteration<LabelT>(cur, in_half, out_half, part);
  const cudaStream_t s = compute_.get();
  if (part == Part::kUpdate) {  // a shard, after the all-reduce into global_totals_
    update_start_.recordInGraph(s);
    launchUpdate(global_totals_.get(), centroids_[cur].get(), centroids_[1 - cur].get(),
                 empty_flags_.get(), scalars_.get(), report_device_, updateParams(), s);
    after_update_.recordInGraph(s);
    return;
  }
  AssignArgs<LabelT> a;
  a.points = points_.get();
  a.weights = weights_.size() ? weights_.get() : nullptr;
  a.counts = counts_.size() ? counts_.get() : nullptr;
  a.n = n_;
  a.d = d_;
  a.k = k_;
  a.centroids = centroids_[cur].get();
  a.labels_in = in_half < 0 ? nullptr : reinterpret_cast<const LabelT*>(labelHalf(in_half));
  a.labels_out = reinterpret_cast<LabelT*>(labelHalf(out_half));
  a.coord_scale = coord_scale_.get();
  a.weight_scale = exact::pow2f(summary_.fixed.weight_exp);
  a.sums = plan_.per_block_sums ? block_sums_.get() : totals_.get();
  a.block_inertia = block_inertia_.get();
  a.block_changed = block_changed_.get();
  a.block_work = plan_.tensor ? block_work_.get() : nullptr;
  a.clear = reinterpret_cast<unsigned long long*>(scalars_.get());
  a.clear_words = scalars_.bytes() / sizeof(unsigned long long);
  a.clear_totals = reinterpret_cast<unsigned long long*>(totals_.get());
  // The separate summing pass keeps the totals across iterations (accumulate_kernel.cuh): they
  // are zeroed for the first iteration only.
  a.clear_totals_words = plan_.separate_sums && in_half >= 0 ? 0 : totals_.size();

  iteration_start_.recordInGraph(s);
  if (!plan_.per_block_sums) {  // the generic kernel accumulates into the totals directly
    KMS_CUDA_CHECK(cudaMemsetAsync(totals_.get(), 0, totals_.bytes(), s));
    KMS_CUDA_CHECK(cudaMemsetAsync(scalars_.get(), 0, scalars_.bytes(), s));
  }
  launchAssign<LabelT>(plan_, a, s);
  after_assign_.recordInGraph(s);

  if (plan_.separate_sums) {
    AccumulateArgs<LabelT> sums;
    sums.points = a.points;
    sums.weights = a.weights;
    sums.n = n_;
    sums.d = d_;
    sums.k = k_;
    sums.labels = a.labels_out;
    sums.summed_labels = reinterpret_cast<LabelT*>(labelHalf(kSummedLabels));
    sums.full = in_half < 0;
    sums.coord_scale = a.coord_scale;
    sums.weight_scale = a.weight_scale;
    sums.sums = block_sums_.get();
    launchAccumulate<LabelT>(plan_, sums, s);
  }
  const int columns = plan_.per_block_sums ? k_ * (d_ + 1) : 0;
  launchReduce(block_sums_.get(), plan_.separate_sums ? plan_.sum_blocks : plan_.blocks, columns,
               totals_.get(), block_inertia_.get(), block_changed_.get(), a.block_work,
               plan_.blocks, scalars_.get(), s);
  after_reduce_.recordInGraph(s);
  if (part == Part::kSums) return;

  launchUpdate(totals_.get(), centroids_[cur].get(), centroids_[1 - cur].get(), empty_flags_.get(),
               scalars_.get(), report_device_, updateParams(), s);
  after_update_.recordInGraph(s);
}

UpdateParams CudaEngine::updateParams() const {
  UpdateParams up;
  up.k = k_;
  up.d = d_;
  up.n = summary_.total_count;
  up.coord_exp = coord_exp_.get();
  up.weight_exp = summary_.fixed.weight_exp;
  up.scale = summary_.scale;
  up.tolerance = config_.tolerance;
  up.counters = counters_.get();
  up.tracks_drift = keepsBounds();
  up.reports_searched = plan_.tensor || plan_.wide;
  return up;
}

void CudaEngine::launchPart(const PendingStep& p, Part part) {
  activate();
  const int key = ((cur_ * 3 + (p.in_half + 1)) * 2 + p.out_half) * 3 + static_cast<int>(part);
  launchGraph(key, [&] {
    withLabelType([&](auto label_type) {
      enqueueIteration<decltype(label_type)>(cur_, p.in_half, p.out_half, part);
    });
  });
  // Sorted runs keep their labels by run: a capture needs them by row in its half.
  if (plan_.sorted && p.capture) writeSortedLabels(cur_, p.out_half);
}

void CudaEngine::describeCentroids(const PendingStep& p) {
  activate();
  describe(cur_, -1, p.out_half, centroids_[1 - cur_].get());
}

void CudaEngine::describe(int cur, int in_half, int out_half, const float* centroids) {
  const cudaStream_t s = compute_.get();
  withLabelType([&](auto label_type) {
    using LabelT = decltype(label_type);
    const CompactArgs<LabelT> a = compactArgs<LabelT>(cur, in_half, out_half);
    if (plan_.wide)
      launchWideGeometry<LabelT>(a, centroids, s);
    else
      launchCompactGeometry<LabelT>(a, centroids, s);
  });
}

}  // namespace kms::cuda
