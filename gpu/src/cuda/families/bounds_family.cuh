// The base of the families that prune with distance bounds (compact rows and their tiles and
// groups, wide rows): a lower bound per row, the centroids' geometry, and sums kept across
// iterations. It owns those buffers, fills the compact kernels' arguments (CompactArgs) both
// kinds of kernel read, and copies streamed data to the device chunk by chunk.
#pragma once

#include <cstdint>

#include "cuda/families/kernel_family.cuh"

namespace kms::cuda {

template <typename LabelT>
struct CompactArgs;

class BoundsFamily : public KernelFamily {
 public:
  bool keepsBounds() const override { return true; }
  bool readsRowsInChunks() const override { return true; }
  int workWordsPerSlot() const override { return 2; }  // rows searched, distances computed
  std::size_t runBytes(const PlacedData& data, int k) const override;
  void allocate(const PlacedData& data, int k) override;
  void startRun(PlacedData& data, const RunBuffers& run, cudaStream_t stream) override;
  void describe(PlacedData& data, const RunBuffers& run, cudaStream_t stream) override;
  std::size_t deviceBytes() const override;
  void release() override;

 protected:
  /// Rows that keep a bound: every row (compact rows, wide rows), one per group, or none (the
  /// tile kernel keeps one per tile in the tile index).
  virtual std::size_t boundRows(const PlacedData& data) const { return data.n; }
  /// The arguments of arrangement `run`, the family's own fields added (addArgs).
  template <typename LabelT>
  CompactArgs<LabelT> args(const PlacedData& data, const RunBuffers& run) const;
  /// The fields a derived family adds (tiles, groups), for each label type.
  virtual void addArgs(const PlacedData&, const RunBuffers&, CompactArgs<std::uint8_t>&) const {}
  virtual void addArgs(const PlacedData&, const RunBuffers&, CompactArgs<std::uint16_t>&) const {}
  /// The geometry of `centroids` into geometry_/order_ on `stream`.
  template <typename LabelT>
  void describeCentroids(const CompactArgs<LabelT>& a, const float* centroids,
                         cudaStream_t stream) const;
  /// Calls assign(args) for the whole data, or — streamed data copied in chunks — for each chunk
  /// in turn once its copy is in: the row arrays shifted to the chunk's rows and the blocks'
  /// results to the chunk's slots.
  template <typename LabelT, typename Assign>
  void assignByChunks(PlacedData& data, const CompactArgs<LabelT>& a, cudaStream_t stream,
                      Assign&& assign) const;
  /// Wide rows describe with half gaps (launchWideGeometry), compact rows with the full geometry.
  virtual bool wideGeometry() const { return false; }

  std::size_t label_bytes_ = 1;
  DeviceBuffer<float> bounds_;          ///< per-row (or per-group) lower distance bounds
  DeviceBuffer<float> geometry_;        ///< computeGeometry's 2k + 1 floats (wide: half gaps)
  DeviceBuffer<unsigned short> order_;  ///< and its k indices
};

}  // namespace kms::cuda
