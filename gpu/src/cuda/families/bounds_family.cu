#include "cuda/families/bounds_family.cuh"
#include "cuda/families/bounds_family_args.cuh"

#include "cuda/cuda_check.cuh"
#include "cuda/kernels/compact_args.cuh"
#include "cuda/kernels/compact_iteration.cuh"
#include "cuda/kernels/wide_iteration.cuh"

namespace kms::cuda {

std::size_t BoundsFamily::runBytes(const PlacedData& data, int k) const {
  return boundRows(data) * sizeof(float) + (2 * static_cast<std::size_t>(k) + 1) * sizeof(float) +
         static_cast<std::size_t>(k) * sizeof(unsigned short);
}

void BoundsFamily::allocate(const PlacedData& data, int k) {
  label_bytes_ = k <= 256 ? 1 : 2;
  bounds_.resize(boundRows(data));
  geometry_.resize(2 * static_cast<std::size_t>(k) + 1);
  order_.resize(k);
}

void BoundsFamily::startRun(PlacedData& data, const RunBuffers& run, cudaStream_t stream) {
  // Sums and bounds are kept across iterations: the totals start at zero, the geometry of the
  // starting centroids before the first iteration.
  KMS_CUDA_CHECK(cudaMemsetAsync(
      run.totals, 0, static_cast<std::size_t>(run.k) * (data.d + 1) * sizeof(long long), stream));
  RunBuffers first = run;
  first.in_half = -1;
  withLabelBytes(label_bytes_, [&](auto label_type) {
    using LabelT = decltype(label_type);
    describeCentroids(args<LabelT>(data, first), run.centroids[0], stream);
  });
}

void BoundsFamily::describe(PlacedData& data, const RunBuffers& run, cudaStream_t stream) {
  RunBuffers next = run;
  next.in_half = -1;
  withLabelBytes(label_bytes_, [&](auto label_type) {
    using LabelT = decltype(label_type);
    describeCentroids(args<LabelT>(data, next), run.centroids[1 - run.cur], stream);
  });
}

template <typename LabelT>
void BoundsFamily::describeCentroids(const CompactArgs<LabelT>& a, const float* centroids,
                                     cudaStream_t stream) const {
  if (wideGeometry())
    launchWideGeometry<LabelT>(a, centroids, stream);
  else
    launchCompactGeometry<LabelT>(a, centroids, stream);
}

std::size_t BoundsFamily::deviceBytes() const {
  return bounds_.bytes() + geometry_.bytes() + order_.bytes();
}

void BoundsFamily::release() {
  bounds_.release();
  geometry_.release();
  order_.release();
}

}  // namespace kms::cuda
