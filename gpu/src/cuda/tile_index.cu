#include "cuda/tile_index.cuh"

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cmath>
#include <numeric>

#include "common/exact_math.h"
#include "cuda/cuda_check.cuh"

namespace kms::cuda {
namespace {

constexpr int kThreads = 256;

/// Bits per coordinate of the Morton code: 64 bits shared by d ≤ 4 coordinates (d = 1: 32).
constexpr int mortonBits(int d) {
  return d <= 2 ? 32 : 64 / d;
}

std::size_t tileCount(std::size_t n) {
  return (n + kTileRows - 1) / kTileRows;
}

unsigned blocksFor(std::size_t items) {
  return static_cast<unsigned>((items + kThreads - 1) / kThreads);
}

struct MortonBox {
  double lo[4];
  double step[4];  ///< quantisation steps per unit: (2^bits − 1) / extent, or 0
};

/// Each row's Morton code (coordinates quantised over the box, bits interleaved from the top)
/// and its index.
__global__ void mortonKeysKernel(const float* __restrict__ points, std::size_t n, int d,
                                 MortonBox box, unsigned long long* keys, std::uint32_t* index) {
  const std::size_t i = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (i >= n) return;
  const int bits = mortonBits(d);
  const double top = static_cast<double>((1ull << bits) - 1);
  unsigned long long q[4] = {0, 0, 0, 0};
  for (int c = 0; c < d; ++c) {
    const double u = floor((static_cast<double>(points[i * d + c]) - box.lo[c]) * box.step[c]);
    q[c] = static_cast<unsigned long long>(fmin(fmax(u, 0.0), top));
  }
  unsigned long long key = 0;
  for (int b = bits - 1; b >= 0; --b)
    for (int c = 0; c < d; ++c)
      key = (key << 1) | ((q[c] >> b) & 1ull);
  keys[i] = key;
  index[i] = static_cast<std::uint32_t>(i);
}

/// The rows (and counts) in sorted order.
__global__ void gatherRowsKernel(const float* __restrict__ points,
                                 const std::uint32_t* __restrict__ counts,
                                 const std::uint32_t* __restrict__ rows, std::size_t n, int d,
                                 float* sorted_points, std::uint32_t* sorted_counts) {
  const std::size_t p = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (p >= n) return;
  const std::size_t from = rows[p];
  for (int c = 0; c < d; ++c)
    sorted_points[p * d + c] = points[from * d + c];
  if (counts) sorted_counts[p] = counts[from];
}

/// One thread per tile: its ball, moments and exact sums (the sums exactly as the compact
/// kernels add a row: w·quantize(x, scale) in 64-bit integers).
__global__ void describeTilesKernel(const float* __restrict__ points,
                                    const std::uint32_t* __restrict__ counts, std::size_t n, int d,
                                    const float* __restrict__ coord_scale, std::size_t tiles,
                                    TileShape* shapes, long long* sums) {
  const std::size_t t = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (t >= tiles) return;
  const std::size_t first = t * kTileRows;
  const std::size_t last = first + kTileRows < n ? first + kTileRows : n;
  double weight = 0.0, mean[4] = {0, 0, 0, 0};
  long long count = 0, q[4] = {0, 0, 0, 0};
  for (std::size_t p = first; p < last; ++p) {
    const std::uint32_t w = counts ? counts[p] : 1u;
    weight += w;
    count += w;
    for (int c = 0; c < d; ++c) {
      const float x = points[p * d + c];
      mean[c] += static_cast<double>(w) * x;
      q[c] += static_cast<long long>(w) * exact::quantize(x, coord_scale[c]);
    }
  }
  TileShape s{};
  for (int c = 0; c < d; ++c)
    s.centre[c] = __double2float_rn(mean[c] / weight);
  double scatter = 0.0, offset[4] = {0, 0, 0, 0}, reach2 = 0.0;
  for (std::size_t p = first; p < last; ++p) {
    const double w = counts ? counts[p] : 1u;
    double r2 = 0.0;
    for (int c = 0; c < d; ++c) {
      // Exact: both are floats whose difference a double holds (or rounds far below any slack).
      const double diff = static_cast<double>(points[p * d + c]) - s.centre[c];
      r2 += diff * diff;
      offset[c] += w * diff;
    }
    scatter += w * r2;
    reach2 = fmax(reach2, r2);
  }
  for (int c = 0; c < d; ++c)
    s.offset[c] = __double2float_rn(offset[c]);
  // Rounded up, with room for the double arithmetic's own rounding (far below 1e-12).
  s.radius = __double2float_ru(sqrt(reach2) * (1.0 + 1e-12));
  s.weight = __double2float_rn(weight);
  s.scatter = scatter;
  shapes[t] = s;
  long long* out = sums + t * static_cast<std::size_t>(d + 1);
  for (int c = 0; c < d; ++c)
    out[c] = q[c];
  out[d] = count;
}

}  // namespace

std::size_t TileIndex::bytesFor(std::size_t n, int d, bool counted) {
  const std::size_t tiles = tileCount(n);
  return n * (d * sizeof(float) + sizeof(std::uint32_t) + sizeof(unsigned short) +
              (counted ? sizeof(std::uint32_t) : 0)) +
         tiles * (sizeof(TileShape) + (d + 1) * sizeof(long long) + sizeof(unsigned short) +
                  sizeof(float)) +
         (tiles + 31) / 32 * 2 * kTileCostClasses * sizeof(unsigned) + sizeof(TileSchedule);
}

std::size_t TileIndex::buildBytesFor(std::size_t n, int d, bool counted) {
  // Two key buffers and a second index buffer for the sort, plus its scratch (small).
  return bytesFor(n, d, counted) + n * (2 * sizeof(unsigned long long) + sizeof(std::uint32_t)) +
         (16u << 20);
}

std::size_t TileIndex::bytes() const {
  return points_.bytes() + counts_.bytes() + rows_.bytes() + shapes_.bytes() + sums_.bytes() +
         owners_.bytes() + labels_.bytes() + bounds_.bytes() + iteration_.bytes() +
         schedule_.bytes() + schedule_lists_.bytes();
}

void TileIndex::keepOrderOnly() noexcept {
  points_.release();
  counts_.release();
  shapes_.release();
  sums_.release();
  owners_.release();
  labels_.release();
  bounds_.release();
  iteration_.release();
  schedule_.release();
  schedule_lists_.release();
}

void TileIndex::release() noexcept {
  tiles_ = 0;
  rows_.release();
  keepOrderOnly();
}

void TileIndex::build(const float* points, const std::uint32_t* counts, std::size_t n, int d,
                      const float* coord_scale, const double* lo, const double* hi,
                      cudaStream_t stream) {
  release();
  if (n == 0 || d < 1 || d > 4) return;
  MortonBox box{};
  const int bits = mortonBits(d);
  for (int c = 0; c < d; ++c) {
    box.lo[c] = lo[c];
    const double extent = hi[c] - lo[c];
    box.step[c] = extent > 0.0 ? static_cast<double>((1ull << bits) - 1) / extent : 0.0;
  }
  {
    DeviceBuffer<unsigned long long> keys(n), keys_alt(n);
    DeviceBuffer<std::uint32_t> index_alt(n);
    rows_.resize(n);
    mortonKeysKernel<<<blocksFor(n), kThreads, 0, stream>>>(points, n, d, box, keys.get(),
                                                            rows_.get());
    KMS_CHECK_LAUNCH();
    cub::DoubleBuffer<unsigned long long> key_buffers(keys.get(), keys_alt.get());
    cub::DoubleBuffer<std::uint32_t> index_buffers(rows_.get(), index_alt.get());
    std::size_t scratch_bytes = 0;
    KMS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, scratch_bytes, key_buffers,
                                                   index_buffers, n, 0, bits * d, stream));
    DeviceBuffer<unsigned char> scratch(scratch_bytes);
    KMS_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(scratch.get(), scratch_bytes, key_buffers,
                                                   index_buffers, n, 0, bits * d, stream));
    if (index_buffers.Current() != rows_.get())
      KMS_CUDA_CHECK(cudaMemcpyAsync(rows_.get(), index_buffers.Current(),
                                     n * sizeof(std::uint32_t), cudaMemcpyDeviceToDevice, stream));
    KMS_CUDA_CHECK(cudaStreamSynchronize(stream));  // the sort's buffers go out of scope
  }
  points_.resize(n * d);
  if (counts) counts_.resize(n);
  gatherRowsKernel<<<blocksFor(n), kThreads, 0, stream>>>(points, counts, rows_.get(), n, d,
                                                          points_.get(), counts_.get());
  KMS_CHECK_LAUNCH();
  const std::size_t tiles = tileCount(n);
  shapes_.resize(tiles);
  sums_.resize(tiles * (d + 1));
  owners_.resize(tiles);
  describeTilesKernel<<<blocksFor(tiles), kThreads, 0, stream>>>(
      points_.get(), counts_.get(), n, d, coord_scale, tiles, shapes_.get(), sums_.get());
  KMS_CHECK_LAUNCH();
  KMS_CUDA_CHECK(cudaMemsetAsync(owners_.get(), 0xff, owners_.bytes(), stream));  // kMixedTile
  labels_.resize(n);      // written by every run's first iteration
  bounds_.resize(tiles);  // written with each tile's owner
  iteration_.resize(1);
  KMS_CUDA_CHECK(cudaMemsetAsync(iteration_.get(), 0, iteration_.bytes(), stream));
  // The first launch (epoch 1) finds empty lists and takes the chunks in the scattered order.
  schedule_.resize(1);
  schedule_lists_.resize(2 * kTileCostClasses * ((tiles + 31) / 32));
  const TileSchedule first{1u, {}};
  KMS_CUDA_CHECK(
      cudaMemcpyAsync(schedule_.get(), &first, sizeof(first), cudaMemcpyHostToDevice, stream));
  KMS_CUDA_CHECK(cudaStreamSynchronize(stream));
  tiles_ = tiles;
  // A stride near the golden section of the chunk count and coprime to it: a bijection that
  // sends neighbouring chunks far apart.
  const std::size_t chunks = this->chunks();
  chunk_stride_ = std::max<std::size_t>(1, static_cast<std::size_t>(0.618 * chunks)) | 1;
  while (std::gcd(chunk_stride_, chunks) != 1)
    chunk_stride_ += 2;
}

}  // namespace kms::cuda
