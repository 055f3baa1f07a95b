// Assignment for large d (32, 64): a register-tiled kernel in the style of an SGEMM.
//
// For large d the arithmetic is the n × k × d dot products, so the kernel is organised like a
// matrix product: a block takes 64 points (staged transposed in shared memory) against the
// staged centroids, 64 at a time; each thread computes a 4 × 4 tile of dot products with two
// 16-byte shared loads per 16 FMAs, tracks its points' best and runner-up over its centroid
// columns, and the 16 threads sharing four points merge their results with shuffles. The
// epilogue (exact distance, near-tie re-ranking, labels) is the same as the small-d kernel's;
// the cluster sums come from the separate accumulateKernel pass.
#pragma once

#include "cuda/kernels/assign_common.cuh"

namespace kms::cuda {

inline constexpr int kTiledThreads = 256;
inline constexpr int kTiledPoints = 64;     // points per block tile
inline constexpr int kTiledCentroids = 64;  // centroids per inner tile

/// Dynamic shared memory of the tiled kernel for a centroid chunk of `chunk` (multiple of 64).
__host__ __device__ constexpr std::size_t tiledSharedBytes(int D, int chunk) {
  return static_cast<std::size_t>(kTiledPoints) * D * 4 +
         static_cast<std::size_t>(chunk) * (D + 1) * 4;
}

/// The three smallest values of ‖c‖² − 2x·c seen for a point, with the indices of the first two.
/// With large d a near tie is resolved from the two indices alone (two exact distances) unless
/// the third is close too; a full exact search over all k would dominate the run time.
struct Nearest3 {
  float v1 = INFINITY, v2 = INFINITY, v3 = INFINITY;
  int i1 = 0, i2 = 0;

  __device__ __forceinline__ void add(float v, int i) {
    v3 = fminf(v3, fmaxf(v, v2));
    if (v < v2) {
      if (v < v1) {
        v2 = v1;
        i2 = i1;
        v1 = v;
        i1 = i;
      } else {
        v2 = v;
        i2 = i;
      }
    }
  }
  /// Merges the partner lane's three (ties to the lower index).
  __device__ __forceinline__ void merge(int lane_mask) {
    const float o1 = __shfl_xor_sync(kFullWarp, v1, lane_mask);
    const float o2 = __shfl_xor_sync(kFullWarp, v2, lane_mask);
    const float o3 = __shfl_xor_sync(kFullWarp, v3, lane_mask);
    const int j1 = __shfl_xor_sync(kFullWarp, i1, lane_mask);
    const int j2 = __shfl_xor_sync(kFullWarp, i2, lane_mask);
    // Both lists are sorted; take the three smallest of the six, first by (value, index).
    auto before = [](float a, int ia, float b, int ib) { return a < b || (a == b && ia < ib); };
    float a1 = v1, a2 = v2, b1 = o1, b2 = o2;
    int ia1 = i1, ia2 = i2, ib1 = j1, ib2 = j2;
    if (before(b1, ib1, a1, ia1)) {  // make list a the one with the smaller head
      float t = a1;
      a1 = b1;
      b1 = t;
      t = a2;
      a2 = b2;
      b2 = t;
      int u = ia1;
      ia1 = ib1;
      ib1 = u;
      u = ia2;
      ia2 = ib2;
      ib2 = u;
    }
    v1 = a1;
    i1 = ia1;
    if (before(b1, ib1, a2, ia2)) {
      v2 = b1;
      i2 = ib1;
      v3 = fminf(a2, b2);
    } else {
      v2 = a2;
      i2 = ia2;
      v3 = fminf(b1, fminf(v3, o3));
    }
  }
};

template <int D, typename LabelT>
__global__ void __launch_bounds__(kTiledThreads, 2)
    assignTiledKernel(AssignArgs<LabelT> a, int chunk) {
  static_assert(D % 4 == 0, "tiled kernel needs d padded to a multiple of 4");
  extern __shared__ __align__(16) unsigned char shared_raw[];
  float* xs = reinterpret_cast<float*>(shared_raw);      // [D][64] points, transposed
  float* cs = xs + kTiledPoints * D;                     // [D][chunk] centroids, transposed
  float* cn = cs + static_cast<std::size_t>(D) * chunk;  // [chunk] ‖c‖² (∞ past the end)
  const int d = a.d;
  const int k = a.k;
  const int tid = threadIdx.x;
  const int ty = tid >> 4;  // owns points 4·ty .. 4·ty + 3 of the tile
  const int tx = tid & 15;  // owns centroid columns 4·tx .. 4·tx + 3 of each inner tile
  const int lane = tid & 31;
  const bool single_chunk = chunk >= k;
  const bool weighted = a.weights != nullptr;

  if (blockIdx.x == 0) clearForNextStages(a);
  auto stage = [&](int first, int count) {
    for (int idx = tid; idx < chunk * D; idx += kTiledThreads) {
      const int j = idx / D, c = idx - j * D;
      cs[c * chunk + j] =
          (j < count && c < d) ? a.centroids[static_cast<std::size_t>(first + j) * d + c] : 0.0f;
    }
    __syncthreads();
    for (int j = tid; j < chunk; j += kTiledThreads) {
      float norm = 0.0f;
      for (int c = 0; c < D; ++c)
        norm = fmaf(cs[c * chunk + j], cs[c * chunk + j], norm);
      cn[j] = j < count ? norm : INFINITY;
    }
    __syncthreads();
  };
  if (single_chunk) stage(0, k);

  double inertia = 0.0;
  unsigned long long changed = 0;
  for (std::size_t base = static_cast<std::size_t>(blockIdx.x) * kTiledPoints; base < a.n;
       base += static_cast<std::size_t>(gridDim.x) * kTiledPoints) {
    __syncthreads();  // the previous tile's points are no longer read
    {
      const int point = tid & (kTiledPoints - 1);
      const bool valid = base + point < a.n;
      const float* row = a.points + (base + point) * d;
      for (int c4 = tid / kTiledPoints; c4 < D / 4; c4 += kTiledThreads / kTiledPoints) {
        float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (valid) {
          if (d == D) {
            v = __ldg(reinterpret_cast<const float4*>(row) + c4);
          } else {
            const int c = 4 * c4;
            v.x = c < d ? __ldg(row + c) : 0.0f;
            v.y = c + 1 < d ? __ldg(row + c + 1) : 0.0f;
            v.z = c + 2 < d ? __ldg(row + c + 2) : 0.0f;
            v.w = c + 3 < d ? __ldg(row + c + 3) : 0.0f;
          }
        }
        xs[(4 * c4) * kTiledPoints + point] = v.x;
        xs[(4 * c4 + 1) * kTiledPoints + point] = v.y;
        xs[(4 * c4 + 2) * kTiledPoints + point] = v.z;
        xs[(4 * c4 + 3) * kTiledPoints + point] = v.w;
      }
    }
    __syncthreads();

    Nearest3 near[4];
    for (int first = 0; first < k; first += chunk) {
      const int count = min(chunk, k - first);
      if (!single_chunk) {
        __syncthreads();
        stage(first, count);
      }
      for (int tile = 0; tile < count; tile += kTiledCentroids) {
        float acc[4][4];
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
          for (int j = 0; j < 4; ++j)
            acc[i][j] = 0.0f;
#pragma unroll 8
        for (int c = 0; c < D; ++c) {
          const float4 xv = *reinterpret_cast<const float4*>(xs + c * kTiledPoints + 4 * ty);
          const float4 cv = *reinterpret_cast<const float4*>(cs + c * chunk + tile + 4 * tx);
          const float xr[4] = {xv.x, xv.y, xv.z, xv.w};
          const float cr[4] = {cv.x, cv.y, cv.z, cv.w};
#pragma unroll
          for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int j = 0; j < 4; ++j)
              acc[i][j] = fmaf(xr[i], cr[j], acc[i][j]);
        }
        const float4 nv = *reinterpret_cast<const float4*>(cn + tile + 4 * tx);
        const float nr[4] = {nv.x, nv.y, nv.z, nv.w};
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          const int global_index = first + tile + 4 * tx + j;
#pragma unroll
          for (int i = 0; i < 4; ++i)
            near[i].add(fmaf(-2.0f, acc[i][j], nr[j]), global_index);  // ‖c‖² − 2x·c
        }
      }
    }
    // The 16 threads of a point group hold disjoint centroid columns: merge them.
#pragma unroll
    for (int mask = 1; mask < 16; mask <<= 1)
#pragma unroll
      for (int i = 0; i < 4; ++i)
        near[i].merge(mask);

    // Epilogue: thread tx < 4 finishes point 4·ty + tx (exact distance, near ties, label).
    if (tx < 4) {
      Nearest3 mine = near[0];
#pragma unroll
      for (int i = 1; i < 4; ++i)
        if (tx == i) mine = near[i];
      int label = mine.i1;
      const int point = 4 * ty + tx;
      const std::size_t gi = base + point;
      if (gi < a.n) {
        float x[D];
#pragma unroll
        for (int c = 0; c < D; ++c)
          x[c] = xs[c * kTiledPoints + point];
        float dist = exactDistance<D>(x, a.centroids + static_cast<std::size_t>(label) * d, d);
        if (mine.v2 < INFINITY) {
          float x_norm = 0.0f;
#pragma unroll
          for (int c = 0; c < D; ++c)
            x_norm = fmaf(x[c], x[c], x_norm);
          // Norm bounds from the triangle inequality, ‖c‖ ≤ ‖x‖ + ‖x − c‖ with
          // ‖x − c‖² ≈ value + ‖x‖², for the best and the third.
          const float r1 = sqrtf(x_norm) + sqrtf(fmaxf(0.0f, mine.v1 + x_norm));
          const float r3 = sqrtf(x_norm) + sqrtf(fmaxf(0.0f, mine.v3 + x_norm));
          const float bound = tieBound<D>(x_norm, 1.01f * r1 * r1, 1.01f * r3 * r3);
          if (!(mine.v2 - mine.v1 > bound)) {
            if (mine.v3 - mine.v1 > bound) {
              // Only the best two can be nearest: compare their exact distances.
              const float d2 =
                  exactDistance<D>(x, a.centroids + static_cast<std::size_t>(mine.i2) * d, d);
              if (d2 < dist || (d2 == dist && mine.i2 < label)) {
                dist = d2;
                label = mine.i2;
              }
            } else {
              label = exactNearest<D>(x, a.centroids, d, k, dist);
            }
          }
        }
        // The bound is finite while the distances overflow (data near float's range): the CPU's
        // answer is then its first centroid at ∞ or below — search exactly.
        if (!(dist < INFINITY)) label = exactNearest<D>(x, a.centroids, d, k, dist);
        const float w = weighted ? __ldg(a.weights + gi) : 1.0f;
        inertia += weighted ? static_cast<double>(exact::mul(dist, w)) : static_cast<double>(dist);
        const LabelT new_label = static_cast<LabelT>(label);
        if (a.labels_in == nullptr || a.labels_in[gi] != new_label) ++changed;
        a.labels_out[gi] = new_label;
      }
    }
  }
  (void)lane;
  writeBlockScalars<kTiledThreads>(inertia, changed, a.block_inertia, a.block_changed);
}

}  // namespace kms::cuda
