// Assignment for d from 17 to 64 on tensor cores: TF32 candidate ranking with a proven error
// bound, then exact FP32 re-ranking of every centroid the bound cannot rule out.
//
// The n × k × d dot products are a matrix product, so they run as TF32 mma.sync m16n8k8
// instructions (documented fragment layouts, no shared-memory round trip for the results). The
// centroids are the A operand: the block stages them once in fragment order (StagedCentroids),
// so a lane loads its four values of a 16-centroid × 8-coordinate tile as one 16-byte word
// straight into the register quad the instruction takes. The points are the B operand: each warp
// fetches its own 16 points (cp.async, no block barrier: a warp busy with an exact re-rank holds
// up nobody), keeps their fragments in registers for all d, and walks the centroids 32 at a time
// — four independent accumulations, so the tensor pipe has work while each result is pending —
// every lane keeping the three smallest values of v = ‖c‖² − 2x·c for four of the points, with
// the centroid index packed into their low bits (Nearest3Keys); lanes sharing points merge with
// shuffles. A warp fetches its next points as soon as its epilogue has read these.
// Within each k-step of 8 coordinates, fragment column t holds coordinate 2t and column t + 4
// coordinate 2t + 1 (the same for points and centroids, so every product appears once): a lane's
// two point values are adjacent and load as one 8-byte word.
//
// TF32 keeps 10 mantissa bits, so v is far less precise than FP32: the kernel bounds its error
// (tensorErrorFactor plus the key packing, derivation in docs/engine.md) by
// E = ε·(‖x‖² + max‖c‖²) per point and decides from the three smallest values:
//   v₂ − v₁ > 2E  → the best centroid is certain: one FP32 distance (for the inertia only);
//   v₃ − v₁ > 2E  → only the best two can be nearest: their exact distances decide;
//   otherwise     → the warp computes the exact distance to every centroid (32 lanes at once).
// "Exact distance" is the CPU backend's own computation (exactDistance's operations, in order),
// so the label is the CPU's, ties to the lower index included. The sums come from the separate
// accumulateKernel pass.
#pragma once

#include <cfloat>

#include "cuda/kernels/assign_common.cuh"
#include "cuda/kernels/async_copy.cuh"
#include "cuda/kernels/tf32_mma.cuh"

namespace kms::cuda {

inline constexpr int kTensorThreads = 256;  // 8 warps
inline constexpr int kTensorPoints = 128;   // points per block step: 16 per warp
inline constexpr int kTensorColumns = 32;   // centroids per step: two A tiles of 16

/// Floats per staged point row: D plus 8, so the 4 rows × 4 lanes of a half-warp's 8-byte
/// fragment loads cover the 32 banks once (row stride ≡ 8 mod 32).
__host__ __device__ constexpr int tensorRow(int D) {
  return D + 8;
}

/// Dynamic shared memory for a chunk of `chunk` centroids (a multiple of 32): the centroids'
/// TF32 fragments and norms, and 16 point rows per warp.
__host__ __device__ constexpr std::size_t tensorSharedBytes(int D, int chunk) {
  return static_cast<std::size_t>(chunk) * (D + 1) * 4 +
         static_cast<std::size_t>(kTensorPoints) * tensorRow(D) * 4;
}

/// ε of the bound |v − v*| + |exact − ‖x − c‖²| ≤ ε·(‖x‖² + ‖c‖²), where v is the kernel's
/// TF32 value, v* its real counterpart ‖c‖² − 2x·c and `exact` the CPU backend's FP32 distance
/// (u = 2^−24; docs/engine.md has the derivation):
///   TF32 operands of x and c, each within 2^−10 of the FP32 value
///   (half an ulp added, then truncated by mma.sync — or, should the
///   hardware round instead, one ulp):                               2^−9 + 2^−20
///   accumulation of D exact products, ≤ 2 ulps per addition
///   (tensor cores may truncate instead of rounding):                D·2^−22
///   ‖c‖² in FP32 (D·u), the final fma (2u), the CPU's distance
///   (2(D + 4)u, relative to ‖x − c‖² ≤ 2(‖x‖² + ‖c‖²)):            (3D + 10)·u
/// times 1.25, which also covers the FP32 rounding of ‖x‖², max‖c‖², E and v₂ − v₁ (each a
/// relative error below 10^−5).
template <int D>
__host__ __device__ constexpr float tensorErrorFactor() {
  return 1.25f * (1.953125e-3f + 9.5367432e-7f + D * 2.3841858e-7f + (3 * D + 10) * 5.9604645e-8f);
}

/// An absolute floor for E: TF32 keeps FP32's exponent range, but points and centroids in the
/// subnormal range lose relative precision; any data that small are re-ranked exactly.
inline constexpr float kTensorErrorFloor = 1e-30f;

/// The three smallest keys seen for a point. A key is a value v = ‖c‖² − 2x·c whose lowest
/// mantissa bits are replaced by the centroid's index (packKey), so min and max alone keep the
/// indices: three pairs of FMNMX per value, no compares and selects. Keys of different centroids
/// differ, so "the three smallest" is one set whatever the order of insertion.
struct Nearest3Keys {
  float k1 = FLT_MAX, k2 = FLT_MAX, k3 = FLT_MAX;

  __device__ __forceinline__ void add(float key) {
    k3 = fminf(k3, fmaxf(key, k2));
    k2 = fminf(k2, fmaxf(key, k1));
    k1 = fminf(k1, key);
  }
  /// Merges the partner lane's three (both lanes end with the same three).
  __device__ __forceinline__ void merge(int lane_mask) {
    const float o1 = __shfl_xor_sync(kFullWarp, k1, lane_mask);
    const float o2 = __shfl_xor_sync(kFullWarp, k2, lane_mask);
    const float o3 = __shfl_xor_sync(kFullWarp, k3, lane_mask);
    add(o1);
    add(o2);
    add(o3);
  }
};

/// v with its low bits (`mask`) replaced by centroid index j: moves v by less than
/// 2^bits ulps, i.e. 2^(bits − 23)·|v| (added to the error bound).
__device__ __forceinline__ float packKey(float v, unsigned j, unsigned mask) {
  return __uint_as_float((__float_as_uint(v) & ~mask) | j);
}

/// Half a TF32 ulp, added to the FP32 bits of a staged centroid coordinate: mma.sync reads the
/// top 19 bits of a .tf32 operand and ignores the rest, so the staged word *is* the coordinate
/// rounded to TF32 (to nearest, ties away from zero — what the compiler itself emits for
/// cvt.rna.tf32.f32), while subtracting it again gives back the FP32 coordinate exactly
/// (integer arithmetic, modulo 2^32) for the exact distances. ∞ and NaN may change in the mma
/// (their ‖c‖² makes the bound ∞ or NaN, so those points are searched exactly).
inline constexpr unsigned kTf32Half = 0x1000u;

/// Shared-memory layout of the staged centroids, in mma A-fragment order: for tile T of 16
/// centroids and k-step s, lane (g, t) = 4g + t finds its quad at [(T·steps + s)·32 + 4g + t]
/// — centroid 16T + g and 16T + g + 8 at coordinates 8s + 2t and 8s + 2t + 1, in the order
/// a0 = (g, 2t), a1 = (g + 8, 2t), a2 = (g, 2t + 1), a3 = (g + 8, 2t + 1); each word the FP32
/// bits plus kTf32Half.
template <int D>
struct StagedCentroids {
  static constexpr int kSteps = D / 8;
  const uint4* quads;

  /// Coordinates 8s + 2t and 8s + 2t + 1 of centroid j (j within the staged chunk), FP32.
  __device__ __forceinline__ float2 pair(int j, int s, int t) const {
    const int m = j & 15;
    const uint4 q = quads[((j >> 4) * kSteps + s) * 32 + 4 * (m & 7) + t];
    return m < 8 ? make_float2(__uint_as_float(q.x - kTf32Half), __uint_as_float(q.z - kTf32Half))
                 : make_float2(__uint_as_float(q.y - kTf32Half), __uint_as_float(q.w - kTf32Half));
  }
  /// Half h (k-steps [h·steps/2, (h + 1)·steps/2)) of ‖x − c_j‖², with four partial sums: not
  /// the CPU's bits, but within a few ulps of them — the inertia of a point whose label is
  /// certain. Labels are never decided with it.
  __device__ __forceinline__ float halfDistance(const float* x, int j, int h) const {
    float part[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll 1
    for (int s = h * kSteps / 2; s < (h + 1) * kSteps / 2; ++s)
#pragma unroll
      for (int t = 0; t < 4; ++t) {
        const float2 cv = pair(j, s, t);
        const float2 xv = *reinterpret_cast<const float2*>(x + 8 * s + 2 * t);
        part[(t & 1) * 2] = fmaf(xv.x - cv.x, xv.x - cv.x, part[(t & 1) * 2]);
        part[(t & 1) * 2 + 1] = fmaf(xv.y - cv.y, xv.y - cv.y, part[(t & 1) * 2 + 1]);
      }
    return (part[0] + part[1]) + (part[2] + part[3]);
  }
  /// ‖x − c_j‖² exactly as the CPU backend computes it (x: a staged point row, zero past d).
  __device__ float exactDistance(const float* x, int j, int d) const {
    float sum = 0.0f;
#pragma unroll 4
    for (int s = 0; s < kSteps; ++s)
#pragma unroll
      for (int t = 0; t < 4; ++t) {
        const int c = 8 * s + 2 * t;
        if (c < d) {
          const float2 cv = pair(j, s, t);
          const float2 xv = *reinterpret_cast<const float2*>(x + c);
          const float d0 = exact::sub(xv.x, cv.x);
          sum = exact::add(sum, exact::mul(d0, d0));
          if (c + 1 < d) {
            const float d1 = exact::sub(xv.y, cv.y);
            sum = exact::add(sum, exact::mul(d1, d1));
          }
        }
      }
    return sum;
  }
};

/// Half h of ‖x − c‖² (as StagedCentroids::halfDistance), c a centroid row in global memory.
template <int D>
__device__ float halfDistanceGlobal(const float* x, const float* __restrict__ c, int d, int h) {
  float part[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
  for (int i = h * D / 2; i < (h + 1) * D / 2; ++i)
    if (i < d) part[i & 3] = fmaf(x[i] - __ldg(c + i), x[i] - __ldg(c + i), part[i & 3]);
  return (part[0] + part[1]) + (part[2] + part[3]);
}

template <int D, typename LabelT>
__global__ void __launch_bounds__(kTensorThreads, 2)
    assignTensorKernel(AssignArgs<LabelT> a, int chunk) {
  static_assert(D % 8 == 0, "the tensor kernel needs d padded to a multiple of 8");
  constexpr int R = tensorRow(D);
  constexpr int kSteps = D / 8;
  extern __shared__ __align__(16) unsigned char shared_raw[];
  uint4* cs = reinterpret_cast<uint4*>(shared_raw);  // [chunk / 16][kSteps][32]: StagedCentroids
  float* cn = reinterpret_cast<float*>(cs + static_cast<std::size_t>(chunk / 16) * kSteps * 32);
  __shared__ unsigned largest_norm_bits;  // max ‖c‖² over all k (non-negative: int order)

  const int d = a.d;
  const int k = a.k;
  const int tid = threadIdx.x;
  const int warp = tid >> 5;
  const int lane = tid & 31;
  const int g = lane >> 2;  // fragment row group: centroids g, g + 8 of a tile; point g of 8
  const int t = lane & 3;   // fragment column pair
  float* xs = cn + chunk + warp * 16 * R;  // this warp's 16 point rows, FP32
  const bool single_chunk = chunk >= k;
  const bool weighted = a.weights != nullptr;
  const StagedCentroids<D> staged{cs};
  // Keys carry indices up to k rounded up to 32 (the padding included) in their low bits.
  const int key_bits = 32 - __clz(((k + kTensorColumns - 1) / kTensorColumns) * kTensorColumns - 1);
  const unsigned key_mask = (1u << key_bits) - 1u;
  // The packing moves a value v by < 2^(bits − 23)·|v| ≤ 2^(bits − 22)·(‖x‖² + ‖c‖²); ×1.25 as ε.
  const float key_error = 1.25f * __uint_as_float(static_cast<unsigned>(127 + key_bits - 22) << 23);

  if (blockIdx.x == 0) clearForNextStages(a);
  if (tid == 0) largest_norm_bits = 0u;
  // Stages centroids [first, first + count) in fragment order, TF32-ready (StagedCentroids).
  auto stage = [&](int first, int count) {
    const int quads = chunk / 16 * kSteps * 32;
    for (int q = tid; q < quads; q += kTensorThreads) {
      const int L = q & 31, s = (q >> 5) % kSteps, T = (q >> 5) / kSteps;
      float v[4];
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int j = 16 * T + (L >> 2) + 8 * (e & 1);
        const int c = 8 * s + 2 * (L & 3) + (e >> 1);
        v[e] =
            (j < count && c < d) ? a.centroids[static_cast<std::size_t>(first + j) * d + c] : 0.0f;
      }
      cs[q] = make_uint4(__float_as_uint(v[0]) + kTf32Half, __float_as_uint(v[1]) + kTf32Half,
                         __float_as_uint(v[2]) + kTf32Half, __float_as_uint(v[3]) + kTf32Half);
    }
    for (int j = tid; j < chunk; j += kTensorThreads) {
      float norm = FLT_MAX;  // padding: a finite key that no real one reaches
      if (j < count) {
        const float* c = a.centroids + static_cast<std::size_t>(first + j) * d;
        norm = 0.0f;
        for (int i = 0; i < d; ++i)
          norm = fmaf(c[i], c[i], norm);
        // NaN compares above ∞ as an int, so the bound becomes NaN and everything is exact.
        atomicMax(&largest_norm_bits, __float_as_uint(norm));
      }
      cn[j] = norm;
    }
    __syncthreads();
  };
  __syncthreads();  // largest_norm_bits is zeroed
  if (single_chunk) stage(0, k);

  // Fetches the 16 points from `group` into this warp's rows with asynchronous copies (whole
  // rows of float4 when d = D, single floats otherwise), zeros past n and past d.
  auto fetchPoints = [&](std::size_t group) {
    if (d == D) {
      for (int idx = lane; idx < 16 * (D / 4); idx += 32) {
        const int point = idx / (D / 4), c4 = idx - point * (D / 4);
        const std::size_t gi = group + point;
        const bool inside = gi < a.n;
        copyAsync<16>(xs + point * R + 4 * c4, a.points + (inside ? gi : 0) * D + 4 * c4,
                      inside ? 16 : 0);
      }
    } else {
      for (int idx = lane; idx < 16 * D; idx += 32) {
        const int point = idx / D, c = idx - point * D;
        const std::size_t gi = group + point;
        const bool inside = gi < a.n && c < d;
        copyAsync<4>(xs + point * R + c, a.points + (inside ? gi * d + c : 0), inside ? 4 : 0);
      }
    }
    copyAsyncCommit();
  };
  // The exact distance from staged point row x to centroid j (all k staged, or from global).
  auto exactTo = [&](const float* x, int j) {
    return single_chunk ? staged.exactDistance(x, j, d)
                        : exactDistance<D>(x, a.centroids + static_cast<std::size_t>(j) * d, d);
  };
  // The point (0…15) of lane (g, t)'s p-th Nearest3Keys: n-tile p / 2, column 2t + p % 2.
  auto pointOf = [](int p, int tt) { return 8 * (p >> 1) + 2 * tt + (p & 1); };

  double inertia = 0.0;
  unsigned changed = 0, reranked = 0;  // per thread: far below 2^32
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * kTensorPoints;
  // Every warp runs the same number of block steps (the chunked path's barriers need it); a
  // warp whose 16 points lie past n only takes part in those barriers.
  const std::size_t first_group = static_cast<std::size_t>(blockIdx.x) * kTensorPoints + 16 * warp;
  if (first_group < a.n) fetchPoints(first_group);
  for (std::size_t block_base = static_cast<std::size_t>(blockIdx.x) * kTensorPoints;
       block_base < a.n; block_base += stride) {
    const std::size_t group = block_base + 16 * warp;
    const bool active = group < a.n;  // uniform across the warp
    uint2 bf[2][kSteps];              // the 16 points as TF32 B fragments, n-tiles of 8
    if (active) {
      copyAsyncWaitAll();
      __syncwarp();  // every lane's copies are visible
#pragma unroll
      for (int nt = 0; nt < 2; ++nt)
#pragma unroll
        for (int s = 0; s < kSteps; ++s) {
          const float2 v = *reinterpret_cast<const float2*>(xs + (8 * nt + g) * R + 8 * s + 2 * t);
          bf[nt][s] = make_uint2(toTf32(v.x), toTf32(v.y));
        }
    }

    Nearest3Keys near[4];  // points pointOf(0…3, t)
    for (int first = 0; first < k; first += chunk) {
      const int count = min(chunk, k - first);
      if (!single_chunk) {
        __syncthreads();
        stage(first, count);
      }
      if (!active) continue;
#pragma unroll 1
      for (int tile = 0; tile < count; tile += kTensorColumns) {
        float acc[2][2][4] = {};  // [centroid tile][point n-tile][fragment]
        const uint4* a0 = cs + static_cast<std::size_t>(tile / 16) * kSteps * 32 + lane;
        const uint4* a1 = a0 + kSteps * 32;
        // One k-step's A quads loaded ahead of the step's four mma (ordered loads: left to
        // itself the compiler hoists them all and runs out of registers).
        uint4 q0 = loadShared16(a0), q1 = loadShared16(a1);
#pragma unroll
        for (int s = 0; s < kSteps; ++s) {
          uint4 n0 = q0, n1 = q1;
          if (s + 1 < kSteps) {
            n0 = loadShared16(a0 + 32 * (s + 1));
            n1 = loadShared16(a1 + 32 * (s + 1));
          }
          mmaTf32(acc[0][0], q0, bf[0][s]);
          mmaTf32(acc[0][1], q0, bf[1][s]);
          mmaTf32(acc[1][0], q1, bf[0][s]);
          mmaTf32(acc[1][1], q1, bf[1][s]);
          q0 = n0;
          q1 = n1;
        }
#pragma unroll
        for (int ct = 0; ct < 2; ++ct) {
          const int lo = tile + 16 * ct + g;  // centroids of fragment rows g and g + 8
          const float norm_lo = cn[lo], norm_hi = cn[lo + 8];
#pragma unroll
          for (int nt = 0; nt < 2; ++nt) {
            near[2 * nt].add(packKey(fmaf(-2.0f, acc[ct][nt][0], norm_lo), first + lo, key_mask));
            near[2 * nt + 1].add(
                packKey(fmaf(-2.0f, acc[ct][nt][1], norm_lo), first + lo, key_mask));
            near[2 * nt].add(
                packKey(fmaf(-2.0f, acc[ct][nt][2], norm_hi), first + lo + 8, key_mask));
            near[2 * nt + 1].add(
                packKey(fmaf(-2.0f, acc[ct][nt][3], norm_hi), first + lo + 8, key_mask));
          }
        }
      }
    }
    // The eight lanes sharing t hold the same points over disjoint centroids: merge.
    if (!active) continue;
#pragma unroll
    for (int mask = 4; mask < 32; mask <<= 1)
#pragma unroll
      for (int p = 0; p < 4; ++p)
        near[p].merge(mask);

    // Epilogue, from the staged rows. Lanes g and g + 4 share point pointOf(g % 4, t): each
    // computes half of its ‖x‖² (for the bound); the lower lane owns the point, the upper one
    // computes the runner-up's exact distance when the best two must be compared.
    const int p = g & 3;
    const bool owner = g < 4;
    Nearest3Keys mine = near[0];
#pragma unroll
    for (int i = 1; i < 4; ++i)
      if (p == i) mine = near[i];
    const int point = pointOf(p, t);
    const std::size_t gi = group + point;
    const bool valid = gi < a.n;
    const float* row = xs + point * R;
    float x_norm = 0.0f;
    {
      float part[4] = {0.0f, 0.0f, 0.0f, 0.0f};
#pragma unroll
      for (int c = (owner ? 0 : D / 2); c < (owner ? D / 2 : D); c += 4) {
        const float4 q = *reinterpret_cast<const float4*>(row + c);
        part[0] = fmaf(q.x, q.x, part[0]);
        part[1] = fmaf(q.y, q.y, part[1]);
        part[2] = fmaf(q.z, q.z, part[2]);
        part[3] = fmaf(q.w, q.w, part[3]);
      }
      x_norm = (part[0] + part[1]) + (part[2] + part[3]);
      x_norm += __shfl_xor_sync(kFullWarp, x_norm, 16);
    }
    const float largest = __uint_as_float(largest_norm_bits);
    const float margin =
        2.0f * ((tensorErrorFactor<D>() + key_error) * (x_norm + largest) + kTensorErrorFloor);
    // Every |v| < 2(‖x‖² + max‖c‖²) stays finite, far below the padding's FLT_MAX, unless the
    // data are near float's range: those points are searched exactly. Written so that NaN or ∞
    // anywhere fall through to the exact search too.
    const bool tame = x_norm + largest < 1e37f;
    const bool certain = tame && mine.k2 - mine.k1 > margin;
    const bool pair = tame && !certain && mine.k3 - mine.k1 > margin;
    const int i1 = static_cast<int>(__float_as_uint(mine.k1) & key_mask);
    const int i2 = static_cast<int>(__float_as_uint(mine.k2) & key_mask);
    // A certain label's distance feeds the inertia only: each of the two lanes computes half.
    // A pair is decided by the CPU's exact distances: the best's (owner), the runner-up's
    // (helper).
    float half_dist = 0.0f;
    if (valid && certain)
      half_dist = single_chunk
                      ? staged.halfDistance(row, i1, owner ? 0 : 1)
                      : halfDistanceGlobal<D>(row, a.centroids + static_cast<std::size_t>(i1) * d,
                                              d, owner ? 0 : 1);
    float candidate_dist = INFINITY;
    if (valid && pair) candidate_dist = exactTo(row, owner ? i1 : i2);
    const float other_half = __shfl_xor_sync(kFullWarp, half_dist, 16);
    const float second_dist = __shfl_xor_sync(kFullWarp, candidate_dist, 16);
    int label = i1;
    float dist = certain ? half_dist + other_half : candidate_dist;
    if (pair && (second_dist < dist || (second_dist == dist && i2 < label))) {
      dist = second_dist;
      label = i2;
    }
    unsigned searched = __ballot_sync(kFullWarp, valid && owner && !certain && !pair);
    while (searched != 0u) {
      const int src = __ffs(searched) - 1;
      searched &= searched - 1;
      const float* src_row = xs + pointOf((src >> 2) & 3, src & 3) * R;
      float best = INFINITY;
      const int best_j = warpExactNearest(
          k, [&](int j) { return exactTo(src_row, j); }, best);
      if (lane == src) {
        label = best_j;
        dist = best;
      }
    }
    __syncwarp();  // the rows are read: they take this warp's next 16 points
    if (group + stride < a.n) fetchPoints(group + stride);
    if (valid && owner) {
      reranked += certain ? 0 : 1;
      const float w = weighted ? __ldg(a.weights + gi) : 1.0f;
      inertia += weighted ? static_cast<double>(exact::mul(dist, w)) : static_cast<double>(dist);
      const LabelT new_label = static_cast<LabelT>(label);
      if (a.labels_in == nullptr || a.labels_in[gi] != new_label) ++changed;
      a.labels_out[gi] = new_label;
    }
  }
  writeBlockScalars<kTensorThreads>(inertia, changed, a.block_inertia, a.block_changed);
  if (a.block_work != nullptr) {
    __syncthreads();  // blockSumScalars' shared storage is reused
    const BlockScalars reranked_total = blockSumScalars<kTensorThreads>(0.0, reranked);
    if (tid == 0) a.block_work[blockIdx.x] = reranked_total.changed;
  }
}

}  // namespace kms::cuda
