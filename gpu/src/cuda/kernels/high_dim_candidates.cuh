// A row's candidates in the high-dimensional tensor family's ranking passes
// (high_dim_tensor_kernel.cuh): the smallest values v = ‖c‖² − 2x·c seen for the row, with
// their centroids' indices, as each thread keeps them across the centroid tiles and as the
// lanes and warps that share a row merge them.
#pragma once

#include <cmath>

#include "cuda/kernels/assign_common.cuh"

namespace kms::cuda {

/// The two smallest values seen for a row and the index of the first: all the one-term pass
/// needs (a row whose runner-up is not clearly above its best goes to the three-term pass), in
/// five branch-free instructions a value. Equal values leave v₂ = v₁: never certain.
struct Nearest2 {
  float v1 = INFINITY, v2 = INFINITY;
  int i1 = 0;

  __device__ __forceinline__ void add(float v, int i) {
    v2 = fminf(v2, fmaxf(v, v1));
    i1 = v < v1 ? i : i1;
    v1 = fminf(v1, v);
  }
  __device__ __forceinline__ void merge(int lane_mask) {
    const float o1 = __shfl_xor_sync(kFullWarp, v1, lane_mask);
    const float o2 = __shfl_xor_sync(kFullWarp, v2, lane_mask);
    const int j1 = __shfl_xor_sync(kFullWarp, i1, lane_mask);
    add(o1, j1);
    v2 = fminf(v2, o2);
  }
  __device__ __forceinline__ int bestIndex() const { return i1; }
  __device__ __forceinline__ float bestValue() const { return v1; }
  /// The value every centroid but bestIndex() is at least.
  __device__ __forceinline__ float runnerUp() const { return v2; }
};

/// The M smallest values seen for a row, ascending, with their indices: the three-term pass
/// keeps them so that a row with several centroids inside its bound (centroids that share a
/// group of the data, as a random start leaves them) is decided by the exact distances of
/// those few rather than of all k. Every value not kept is at least v[M − 1].
template <int M>
struct NearestM {
  float v[M];
  int i[M];

  __device__ __forceinline__ NearestM() {
#pragma unroll
    for (int s = 0; s < M; ++s) {
      v[s] = INFINITY;
      i[s] = 0;
    }
  }
  /// Inserts (value, j) in order; a value not below the largest kept changes nothing. Equal
  /// values keep their arrival order.
  __device__ __forceinline__ void add(float value, int j) {
    if (!(value < v[M - 1])) return;
#pragma unroll
    for (int s = M - 1; s > 0; --s) {  // v[s − 1] is still the old one when s is placed
      if (value < v[s - 1]) {
        v[s] = v[s - 1];
        i[s] = i[s - 1];
      } else if (value < v[s]) {
        v[s] = value;
        i[s] = j;
      }
    }
    if (value < v[0]) {
      v[0] = value;
      i[0] = j;
    }
  }
  /// Merges the partner lane's M (both lanes end with the same M smallest).
  __device__ __forceinline__ void merge(int lane_mask) {
    float ov[M];
    int oi[M];
#pragma unroll
    for (int s = 0; s < M; ++s) {
      ov[s] = __shfl_xor_sync(kFullWarp, v[s], lane_mask);
      oi[s] = __shfl_xor_sync(kFullWarp, i[s], lane_mask);
    }
#pragma unroll
    for (int s = 0; s < M; ++s)
      add(ov[s], oi[s]);
  }
  __device__ __forceinline__ int bestIndex() const {
    return i[0];
  }
  __device__ __forceinline__ float bestValue() const {
    return v[0];
  }
  __device__ __forceinline__ float runnerUp() const {
    return v[1];
  }
};

/// A row's candidates as the warps along the centroids leave them for the final merge.
template <int M>
struct MergeSlot {
  float v[M];
  int i[M];
};
__device__ __forceinline__ MergeSlot<2> slotOf(const Nearest2& n) {
  return {{n.v1, n.v2}, {n.i1, n.i1}};
}
template <int M>
__device__ __forceinline__ MergeSlot<M> slotOf(const NearestM<M>& n) {
  MergeSlot<M> m;
#pragma unroll
  for (int s = 0; s < M; ++s) {
    m.v[s] = n.v[s];
    m.i[s] = n.i[s];
  }
  return m;
}
__device__ __forceinline__ void mergeSlot(Nearest2& n, const MergeSlot<2>& m) {
  n.add(m.v[0], m.i[0]);
  n.v2 = fminf(n.v2, m.v[1]);
}
template <int M>
__device__ __forceinline__ void mergeSlot(NearestM<M>& n, const MergeSlot<M>& m) {
#pragma unroll
  for (int s = 0; s < M; ++s)
    n.add(m.v[s], m.i[s]);
}

/// The slots of the merge area a candidate type takes.
template <typename Best>
struct SlotOf;
template <>
struct SlotOf<Nearest2> {
  using type = MergeSlot<2>;
};
template <int M>
struct SlotOf<NearestM<M>> {
  using type = MergeSlot<M>;
};

}  // namespace kms::cuda
