// The geometry of one set of centroids that the compact assignment prunes with: sorted
// projections on the data's principal axis and each centroid's half gap to its nearest other.
// Computed by the update block for the next iteration, or by its own kernel after
// initialisation and re-seeding.
#pragma once

#include <cfloat>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_reduce.cuh>

#include "common/constants.h"
#include "cuda/kernels/assign_common.cuh"
#include "cuda/kernels/compact_args.cuh"
#include "cuda/kernels/iteration_common.cuh"

namespace kms::cuda {

/// The rows' stride of the staged centroids in the geometry's shared memory: odd for D ≤ 4, so
/// lanes reading different centroids hit different banks; D + 4 for D ≥ 8, which keeps that true
/// for float4 loads (8 lanes per wavefront, rows 48 or 80 bytes apart: eight different 16-byte
/// bank groups).
__host__ __device__ constexpr int geometryStride(int D) {
  return D <= 4 ? (D | 1) : D + 4;
}

/// A centroid's half gap from the squared distance to its nearest other (`nearest2`, a float
/// sum of squares), deflated by 4·kBoundSlack for that sum's rounding: ∞ when it has no other
/// (k = 1); 0 — no gap, every row tested otherwise — when the square is below 1e-36, where float's
/// subnormals make it imprecise; and when the square overflowed, half of √FLT_MAX, which the true
/// distance (past float's range) still exceeds twice.
__device__ __forceinline__ float halfGap(float nearest2, int k) {
  if (k == 1) return INFINITY;
  if (!(nearest2 >= 1e-36f)) return 0.0f;
  return 0.5f * sqrtf(fminf(nearest2, FLT_MAX)) * (1.0f - 4.0f * kBoundSlack);
}

/// What the assignment prunes with, for one set of centroids (one block of kCompactThreads):
///  - geometry[0, k): half the distance from each centroid to its nearest other centroid,
///    deflated by kBoundSlack (∞ for k = 1; see halfGap). A point nearer than that to its own
///    centroid keeps it: every other centroid is farther (triangle inequality; Hamerly's s(c)).
///  - geometry[k, 2k): the centroids' projections a·c on the unit axis a, ascending, and
///    order[0, k) the centroid at each position. |a·x − a·c| ≤ ‖x − c‖, so a search that walks
///    outwards from a·x can stop once the projection gap alone exceeds the runner-up's distance.
///  - geometry[2k]: the largest ‖c‖² (scales the rounding margin of that stop).
/// Reads the centroids from global memory (written earlier by this block or another kernel).
template <int D>
__device__ void computeGeometry(const float* centroids, int k, int d, const float (&axis)[D],
                                float* geometry, unsigned short* order) {
  constexpr int kMaxK = compactMaxK(D);
  constexpr int J = kMaxK / kCompactThreads;  // items per thread, blocked: t·J + s
  using Sort = cub::BlockRadixSort<float, kCompactThreads, J, int>;
  using ReduceF = cub::BlockReduce<float, kCompactThreads>;
  constexpr int S = geometryStride(D);
  __shared__ __align__(16) float all[kMaxK * S];
  __shared__ float projection[kMaxK];
  __shared__ unsigned short sorted[kMaxK];
  __shared__ union {
    typename Sort::TempStorage sort;
    typename ReduceF::TempStorage reduce;
  } temp;
  for (int t = threadIdx.x; t < k * D; t += kCompactThreads) {
    const int j = t / D, c = t - j * D;
    all[j * S + c] = c < d ? centroids[static_cast<std::size_t>(j) * d + c] : 0.0f;
  }
  __syncthreads();
  float keys[J];
  int index[J];
  float top_norm = 0.0f;
#pragma unroll
  for (int s = 0; s < J; ++s) {
    const int j = threadIdx.x * J + s;
    index[s] = j;
    keys[s] = INFINITY;  // padding sorts last
    if (j < k) {
      float p = 0.0f, norm = 0.0f;
#pragma unroll
      for (int c = 0; c < D; ++c) {
        p = fmaf(axis[c], all[j * S + c], p);
        norm = fmaf(all[j * S + c], all[j * S + c], norm);
      }
      keys[s] = p;
      top_norm = fmaxf(top_norm, norm);
    }
  }
  if (k <= kCompactThreads) {
    // Few keys: each one's rank by counting (ties by index) costs k comparisons, far less than
    // the radix sort's eight passes, which would lengthen every iteration of small k.
    // Thread t ranks centroid t (not item t·J of the blocked layout the radix sort takes).
    float key = INFINITY;
    if (threadIdx.x < k) {
      key = 0.0f;
#pragma unroll
      for (int c = 0; c < D; ++c)
        key = fmaf(axis[c], all[threadIdx.x * S + c], key);
      projection[threadIdx.x] = key;
    }
    __syncthreads();
    int rank = 0;
    if (threadIdx.x < k) {
      for (int i = 0; i < k; ++i) {
        const float other = projection[i];
        rank += (other < key || (other == key && i < static_cast<int>(threadIdx.x))) ? 1 : 0;
      }
    }
    __syncthreads();  // every rank is counted before the projections are overwritten
    if (threadIdx.x < k) {
      projection[rank] = key;
      sorted[rank] = static_cast<unsigned short>(threadIdx.x);
    }
  } else {
    Sort(temp.sort).Sort(keys, index);
#pragma unroll
    for (int s = 0; s < J; ++s) {
      const int r = threadIdx.x * J + s;
      if (r < k) {
        projection[r] = keys[s];
        sorted[r] = static_cast<unsigned short>(index[s]);
      }
    }
  }
  __syncthreads();
  for (int r = threadIdx.x; r < k; r += kCompactThreads) {
    geometry[k + r] = projection[r];
    order[r] = sorted[r];
  }
  __shared__ float top_shared;  // the reduction's result is valid in thread 0 only
  const float reduced = ReduceF(temp.reduce).Reduce(top_norm, MaxOf{});
  if (threadIdx.x == 0) {
    geometry[2 * k] = reduced;
    top_shared = reduced;
  }
  __syncthreads();
  const float top = top_shared;
  if (k <= kCompactThreads) {
    // Nearest other centroid of each, by brute force: thread j against every other, all lanes
    // reading the same row at a time (a shared-memory broadcast). Only k < 64 comes here with
    // k ≤ 256 (spreadsGeometry: compactSpreadUpdateKernel and spreadGeometryKernel take the
    // rest), which keeps this short.
    if (static_cast<int>(threadIdx.x) < k) {
      const int j = threadIdx.x;
      float cj[D];
#pragma unroll
      for (int c = 0; c < D; ++c)
        cj[c] = all[j * S + c];
      float nearest = INFINITY;  // squared
      for (int other = 0; other < k; ++other) {
        float d2 = 0.0f;
#pragma unroll
        for (int c = 0; c < D; ++c) {
          const float diff = cj[c] - all[other * S + c];
          d2 = fmaf(diff, diff, d2);
        }
        if (other != j) nearest = fminf(nearest, d2);
      }
      geometry[j] = halfGap(nearest, k);
    }
    return;
  }
  // Many centroids (d ≤ 4): walk outwards in projection order from each; stop when the gap of
  // the projections alone exceeds the nearest found (with a margin for their rounding).
  for (int r = threadIdx.x; r < k; r += kCompactThreads) {
    const int j = sorted[r];
    const float pj = projection[r];
    float cj[D];
#pragma unroll
    for (int c = 0; c < D; ++c)
      cj[c] = all[j * S + c];
    float nearest = INFINITY;  // squared
    int left = r - 1, right = r + 1;
    while (left >= 0 || right < k) {
      const float gl = left >= 0 ? pj - projection[left] : INFINITY;
      const float gr = right < k ? projection[right] - pj : INFINITY;
      const bool take_left = left >= 0 && (right >= k || gl <= gr);
      const float g = take_left ? gl : gr;
      if (g * g > nearest * 1.0001f + 4e-5f * top) break;
      const int other = sorted[take_left ? left-- : right++];
      float d2 = 0.0f;
#pragma unroll
      for (int c = 0; c < D; ++c) {
        const float diff = cj[c] - all[other * S + c];
        d2 = fmaf(diff, diff, d2);
      }
      nearest = fminf(nearest, d2);
    }
    geometry[j] = halfGap(nearest, k);
  }
}

/// What describeSpread's blocks share (spreadGeometryKernel, compactSpreadUpdateKernel).
template <int D>
struct SpreadGeometryShared {
  __align__(16) float all[kCompactThreads * geometryStride(D)];  ///< k staged rows
  float keys[kCompactThreads];
  typename cub::BlockReduce<float, kCompactThreads>::TempStorage reduce;
};

/// The geometry for 64 ≤ k ≤ kCompactThreads (spreadsGeometry) from centroids staged in
/// `sh.all` (rows of geometryStride(D), zero past d), spread over ⌈k/8⌉ blocks, a warp per
/// centroid: its rank among the projections by counting, its nearest other centroid by brute
/// force, k/32 of each per lane; block 0 also writes the largest ‖c‖². The same keys, distances
/// and minima as computeGeometry's (see there), so the same geometry — in about a tenth of the
/// time of one block (k = 256, D = 16: one multiprocessor issuing k²/2 pair distances had been
/// most of the update's time). Every thread of the block calls it, after the staging's barrier.
template <int D, typename LabelT>
__device__ void describeSpread(const CompactArgs<LabelT>& a, SpreadGeometryShared<D>& sh) {
  constexpr int S = geometryStride(D);
  using ReduceF = cub::BlockReduce<float, kCompactThreads>;
  const int k = a.k;
  float top_norm = 0.0f;
  if (static_cast<int>(threadIdx.x) < k) {
    const float* cj = sh.all + threadIdx.x * S;
    float key = 0.0f, norm = 0.0f;
#pragma unroll
    for (int c = 0; c < D; ++c) {
      key = fmaf(a.axis[c], cj[c], key);
      norm = fmaf(cj[c], cj[c], norm);
    }
    sh.keys[threadIdx.x] = key;
    top_norm = norm;
  }
  if (blockIdx.x == 0) {
    const float top = ReduceF(sh.reduce).Reduce(top_norm, MaxOf{});
    if (threadIdx.x == 0) a.geometry[2 * k] = top;
  }
  __syncthreads();
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int i = static_cast<int>(blockIdx.x) * (kCompactThreads / 32) + (threadIdx.x >> 5);
  if (i >= k) return;
  float ci[D];
#pragma unroll
  for (int c = 0; c < D; ++c)
    ci[c] = sh.all[i * S + c];
  const float key = sh.keys[i];
  int rank = 0;
  float nearest = INFINITY;  // squared
  for (int j = lane; j < k; j += 32) {
    const float other = sh.keys[j];
    rank += (other < key || (other == key && j < i)) ? 1 : 0;
    const float* cj = sh.all + j * S;
    float d2 = 0.0f;
    if constexpr (S % 4 == 0) {
#pragma unroll
      for (int v = 0; v < D / 4; ++v) {
        const float4 q = reinterpret_cast<const float4*>(cj)[v];
        d2 = fmaf(ci[4 * v] - q.x, ci[4 * v] - q.x, d2);
        d2 = fmaf(ci[4 * v + 1] - q.y, ci[4 * v + 1] - q.y, d2);
        d2 = fmaf(ci[4 * v + 2] - q.z, ci[4 * v + 2] - q.z, d2);
        d2 = fmaf(ci[4 * v + 3] - q.w, ci[4 * v + 3] - q.w, d2);
      }
    } else {
#pragma unroll
      for (int c = 0; c < D; ++c) {
        const float diff = ci[c] - cj[c];
        d2 = fmaf(diff, diff, d2);
      }
    }
    if (j != i) nearest = fminf(nearest, d2);
  }
  for (int offset = 16; offset > 0; offset >>= 1) {
    rank += __shfl_xor_sync(kFullWarp, rank, offset);
    nearest = fminf(nearest, __shfl_xor_sync(kFullWarp, nearest, offset));
  }
  if (lane == 0) {
    a.geometry[i] = halfGap(nearest, k);
    a.geometry[k + rank] = key;
    a.order[rank] = static_cast<unsigned short>(i);
  }
}

/// The geometry of `centroids` (global memory) for 64 ≤ k ≤ kCompactThreads: ⌈k/8⌉ blocks, each
/// staging all k (describeSpread). After initialisation and re-seeding; an iteration's update
/// describes its new centroids itself (compactSpreadUpdateKernel).
template <int D, typename LabelT>
__global__ void __launch_bounds__(kCompactThreads)
    spreadGeometryKernel(CompactArgs<LabelT> a, const float* centroids) {
  constexpr int S = geometryStride(D);
  __shared__ SpreadGeometryShared<D> sh;
  const int k = a.k, d = a.d;
  for (int t = threadIdx.x; t < k * S; t += kCompactThreads) {
    const int j = t / S, c = t - j * S;
    sh.all[t] = c < d && c < D ? centroids[static_cast<std::size_t>(j) * d + c] : 0.0f;
  }
  __syncthreads();
  describeSpread<D>(a, sh);
}

/// The geometry of the centroids of `a.centroids_in` on its own (after initialisation, and after
/// a re-seed moved centroids the update had already described).
template <int D, typename LabelT>
__global__ void __launch_bounds__(kCompactThreads)
    compactGeometryKernel(CompactArgs<LabelT> a, const float* centroids) {
  float axis[D];
#pragma unroll
  for (int c = 0; c < D; ++c)
    axis[c] = a.axis[c];
  computeGeometry<D>(centroids, a.k, a.d, axis, a.geometry, a.order);
}

}  // namespace kms::cuda
