// BoundsFamily's templates, for the .cu files of the families built on it: the compact
// kernels' arguments of an arrangement, and the assignment over streamed data's chunks.
#pragma once

#include "cuda/families/bounds_family.cuh"
#include "cuda/kernels/compact_args.cuh"

namespace kms::cuda {

template <typename LabelT>
CompactArgs<LabelT> BoundsFamily::args(const PlacedData& data, const RunBuffers& run) const {
  CompactArgs<LabelT> a;
  a.points = data.points.get();
  a.counts = data.counts.get();
  a.n = data.n;
  a.d = data.d;
  a.k = run.k;
  a.centroids_in = run.centroids[run.cur];
  a.centroids_out = run.centroids[1 - run.cur];
  a.labels_in =
      run.in_half < 0 ? nullptr : reinterpret_cast<const LabelT*>(run.half(run.in_half, data.n));
  a.labels_out = reinterpret_cast<LabelT*>(run.half(run.out_half, data.n));
  a.coord_scale = data.coord_scale.get();
  a.totals = run.totals;
  a.update_totals = run.totals;
  a.bounds = bounds_.get();
  a.block_inertia = run.block_inertia;
  a.block_changed = run.block_changed;
  a.block_work = run.block_work;
  a.blocks = static_cast<int>(run.result_slots);
  a.empty_flags = run.empty_flags;
  a.scalars = run.scalars;
  a.report = run.report;
  a.update = run.update;
  a.geometry = geometry_.get();
  a.order = order_.get();
  for (int c = 0; c < kCompactMaxD; ++c)
    a.axis[c] = data.axis[c];
  addArgs(data, run, a);
  return a;
}

template <typename LabelT, typename Assign>
void BoundsFamily::assignByChunks(PlacedData& data, const CompactArgs<LabelT>& a,
                                  cudaStream_t stream, Assign&& assign) const {
  ChunkedCopies& chunked = data.chunked;
  if (!chunked.active()) return assign(a);
  chunked.begin(stream);
  for (std::size_t j = 0; j < chunked.chunks(); ++j) {
    const ChunkedCopies::Chunk c = chunked.stage(j, stream);
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
    chunked.finish(j, stream);
  }
}

}  // namespace kms::cuda
