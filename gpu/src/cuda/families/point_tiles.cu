#include "cuda/families/point_tiles.cuh"

#include "cuda/cuda_check.cuh"
#include "cuda/families/bounds_family_args.cuh"
#include "cuda/families/planner.cuh"
#include "cuda/kernels/compact_iteration.cuh"

namespace kms::cuda {

bool PointTilesFamily::fits(const FamilyPlanInput& in) {
  return CompactRowsFamily::fits(in) && in.data.tiles.tiles() > 0 && in.data.d <= 4;
}

PointTilesFamily::PointTilesFamily(const FamilyPlanInput& in) : inertia_exp_(in.inertia_exp) {
  withLabelBytes(in.label_bytes, [&](auto label_type) {
    plan_ = planCompact<decltype(label_type)>(in.data.n, in.data.d, in.k, in.data.tiles.tiles(),
                                              in.limits);
  });
}

void PointTilesFamily::startRun(PlacedData& data, const RunBuffers& run, cudaStream_t stream) {
  KMS_CUDA_CHECK(cudaMemsetAsync(data.tiles.iteration(), 0, sizeof(TileIteration), stream));
  CompactRowsFamily::startRun(data, run, stream);
}

void PointTilesFamily::addArgs(const PlacedData& data, const RunBuffers&,
                               CompactArgs<std::uint8_t>& a) const {
  addTileArgs(data, a);
}

void PointTilesFamily::addArgs(const PlacedData& data, const RunBuffers&,
                               CompactArgs<std::uint16_t>& a) const {
  addTileArgs(data, a);
}

template <typename LabelT>
void PointTilesFamily::addTileArgs(const PlacedData& data, CompactArgs<LabelT>& a) const {
  const TileIndex& t = data.tiles;
  a.tiles = t.tiles();
  a.tile_points = t.points();
  a.tile_counts = t.counts();
  a.tile_rows = t.rows();
  a.tile_shapes = t.shapes();
  a.tile_sums = t.sums();
  a.tile_owners = t.owners();
  a.tile_labels = t.labels();
  a.tile_bounds = t.bounds();
  a.tile_chunks = t.chunks();
  a.tile_chunk_stride = t.chunkStride();
  a.tile_iteration = t.iteration();
  a.tile_schedule = t.schedule();
  a.tile_sched_lists = t.scheduleLists();
  a.inertia_exp = inertia_exp_;
}

}  // namespace kms::cuda
