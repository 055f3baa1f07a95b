// Assignment for d > 64 on tensor cores, exact: TF32 candidate ranking tiled like a GEMM, a
// proven error bound, and exact FP32 re-ranking (in the CPU backend's order) of every candidate
// the bound cannot rule out.
//
// A block takes BM rows (points) against every centroid, 128 at a time, the products summed over
// d in slices of 32 coordinates that cp.async brings into shared memory (three stages: the next
// two slices, or the next centroid tile's first, are in flight while the tensor cores work on
// this one; one barrier a step). Fragments load with ldmatrix. Eight warps, 2 × 4: a warp
// owns BM/2 rows × 32 centroids of the tile, mma.sync m16n8k8 with the rows as A (row-major: a
// point's coordinates are contiguous) and the centroids as B (column-major: the same). Rows are
// padded to 36 floats, so every fragment load of a warp falls in 32 distinct banks. No n × k matrix
// is stored: each thread keeps the smallest values v = ‖c‖² − 2x·c of its rows across all tiles
// (high_dim_candidates.cuh: two in the one-term pass, eight with their indices in the
// three-term pass); the four lanes and the four warps that share a row merge them at the end.
//
// Two precisions, one kernel:
//   one term  (kSplit = false): the FP32 words as TF32 operands (mma.sync reads their top 19
//             bits): v within E₁ = ε₁(d)·2‖x‖·C + small terms of its real value;
//   three terms (kSplit = true): x = hi + lo and c = hi + lo with hi the top 19 bits (exact) and
//             hi·hi + hi·lo + lo·hi summed per slice of 32 coordinates, the slices added in FP32:
//             ε₃(d) about 80 times smaller (highDimErrorFactor).
// A row whose runner-up is more than 2E above its best has a certain label (one exact distance,
// for the inertia and the bound); otherwise the one-term pass lists the row and the three-term
// pass ranks the listed rows again. There, if fewer than eight centroids lie within 2E of the
// best, their exact distances decide (a random start often leaves three or four centroids in
// one group of the data); a row with more is searched exactly over all k by its warp.
// C = max‖c‖ over all k. The rows a pass takes: the ones the bounds did not settle
// (high_dim_row_kernels.cuh), or those the one-term pass listed.
#pragma once

#include <cfloat>
#include <cstddef>
#include <type_traits>

#include "cuda/kernels/assign_common.cuh"
#include "cuda/kernels/assign_tiled_kernel.cuh"
#include "cuda/kernels/async_copy.cuh"
#include "cuda/kernels/high_dim_candidates.cuh"
#include "cuda/kernels/tf32_mma.cuh"

namespace kms::cuda {

inline constexpr int kHdThreads = 256;    // 8 warps: 2 along the rows × 4 along the centroids
inline constexpr int kHdCentroids = 128;  // centroids of a tile
inline constexpr int kHdSlice = 32;       // coordinates a stage holds
inline constexpr int kHdPitch = 36;       // floats per staged row: 4g + t distinct banks
inline constexpr int kHdScalarThreads = 256;
/// Candidates a row keeps in the three-term pass (NearestM): a row with fewer than this many
/// centroids inside its bound is decided by their exact distances, not by a search of all k.
inline constexpr int kHdSplitCandidates = 8;

/// Rows of a block: 32 per m-tile pair (MT m-tiles of 16 rows a warp, two warps along the rows).
__host__ __device__ constexpr int hdBlockRows(int MT) {
  return 32 * MT;
}

/// Blocks a multiprocessor the kernel is compiled for: two where the one-term pass takes 64 rows
/// a block (its registers then fit 128 a thread).
__host__ __device__ constexpr int hdMinBlocks(int MT, bool split) {
  return !split && MT <= 2 ? 2 : 1;
}

/// Shared memory of the kernel: three stages of BM row slices and 128 centroid slices.
__host__ __device__ constexpr std::size_t hdSharedBytes(int MT) {
  return 3u * static_cast<std::size_t>(hdBlockRows(MT) + kHdCentroids) * kHdPitch * sizeof(float);
}

/// ε of the bound |v − v*| ≤ ε·2‖x‖·‖c‖ on the dot-product part of v = ‖c‖² − 2x·c, where v* is
/// the real value (docs/engine.md, "High-dimensional rows on tensor cores"; u = 2^−24):
///   one term: each TF32 operand within 2^−10 of its FP32 value (truncated, or rounded if the
///     hardware rounds): 2^−9 + 2^−20 of Σ|xᵢcᵢ| ≤ ‖x‖‖c‖; d additions in the tensor cores,
///     ≤ 2 ulps (2^−22) of the running Σ|xᵢcᵢ| each: d·2^−22.
///   three terms: hi exact, lo within 2^−10 of itself (|lo| ≤ 2^−10|x|), lo·lo left out:
///     3·2^−20 (×1.01); 96 additions a slice in the tensor cores: 96·2^−22; d/32 FP32 additions
///     of the slices: (d/32)·u.
/// The other terms — ‖c‖² in FP32 (d·u of C²), the final fma (2u of ‖x‖² + C²) and the CPU's
/// own rounding of ‖x − c‖² (2(d + 4)u of ‖x‖² + C²) — are highDimSmallFactor's.
///   one term on operands rounded to TF32 beforehand (to nearest: within 2^−11 of themselves,
///     which the tensor cores then read exactly): 2^−10 + 2^−22 of Σ|xᵢcᵢ|, plus d·2^−22.
__host__ __device__ constexpr float highDimDotFactor(int d, bool split, bool rounded = false) {
  return split ? 1.01f * 3.0f * 9.5367432e-7f + 96.0f * 2.3841858e-7f + (d / 32 + 1) * 5.9604645e-8f
         : rounded ? 9.765625e-4f + 2.3841858e-7f + d * 2.3841858e-7f
                   : 1.953125e-3f + 9.5367432e-7f + d * 2.3841858e-7f;
}
__host__ __device__ constexpr float highDimSmallFactor(int d) {
  return (3 * d + 10) * 5.9604645e-8f;
}

/// E for a row of squared norm x_norm against centroids of largest squared norm c_norm: the
/// most any one v (and the CPU's distance less ‖x‖²) can be off; ×1.25 covers the FP32
/// rounding of the bound itself and of ‖x‖ (relative errors below 10^−5). The floor covers
/// subnormal squares.
__device__ __forceinline__ float highDimErrorBound(int d, bool split, float x_norm, float c_norm,
                                                   bool rounded = false) {
  const float dot = 2.0f * sqrtf(x_norm) * sqrtf(c_norm);
  return 1.25f * (highDimDotFactor(d, split, rounded) * dot +
                  highDimSmallFactor(d) * (x_norm + c_norm)) +
         1e-30f;
}

/// v rounded to the nearest TF32 value (the 13 low mantissa bits dropped, half away from zero):
/// within 2^−11 of v relatively; ∞ and NaN unchanged.
__device__ __forceinline__ float roundToTf32(float v) {
  unsigned bits = __float_as_uint(v);
  if ((bits & 0x7f800000u) != 0x7f800000u) bits = (bits + 0x1000u) & 0xffffe000u;
  return __uint_as_float(bits);
}

/// out[i] = roundToTf32(in[i]): the one-term pass's operands (rows once a run, centroids every
/// iteration), so that its products are off by half what truncation leaves.
__global__ void roundToTf32Kernel(const float* __restrict__ in, float* __restrict__ out,
                                  std::size_t count) {
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < count;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    out[i] = roundToTf32(in[i]);
}

/// The lower bound a ranked row keeps on its real distance to every centroid but its own
/// (Hamerly's): from v_other, the smallest value of the others, within `err` (E) of its real
/// value, and x_norm, ‖x‖² by sequential FMAs (within (d + 1)·u of itself, relatively). The
/// 8u of the terms covers this sum's own rounding (the terms may nearly cancel), the factor the
/// square root's. Stored with the run's drift added (high_dim_row_kernels.cuh).
__device__ __forceinline__ float highDimLowerBound(float v_other, float err, float x_norm, int d) {
  const float u = 5.9604645e-8f;
  const float real_x_norm = x_norm * (1.0f - 1.02f * static_cast<float>(d + 1) * u);
  const float sum = v_other - err + real_x_norm;
  const float rounding = 8.0f * u * (fabsf(v_other) + err + x_norm);
  return sqrtf(fmaxf(0.0f, sum - rounding)) * (1.0f - kBoundSlack);
}

/// The run's drift D as the high-dimensional bounds use it. Each update grows D by its largest
/// shift as float computes it (√ of the FP32 squared distance, within (d + 4)·u/2 of the real
/// shift) times 1 + kBoundSlack, which covers that rounding only up to d ≈ 330; so a bound is
/// written with D rounded down and tested with D inflated by (d + 4)·u and rounded up: the
/// difference of the two is at least the centroids' real movement in between, for any d here.
__device__ __forceinline__ float highDimDrift(double drift, int d, bool testing) {
  if (!testing) return __double2float_rd(drift);
  return __double2float_ru(
      __dmul_ru(drift, 1.0 + static_cast<double>(d + 4) * 5.9604644775390625e-8));
}

/// What the passes read and write beyond AssignArgs.
struct HighDimTensorExtra {
  const float* norms = nullptr;  ///< k: ‖c‖² of the iteration's centroids (sequential FMAs)
  /// max ‖c‖² over all k as float bits (non-negative: integer order; NaN above ∞).
  const unsigned* largest_norm_bits = nullptr;
  /// The rows the one-term pass ranks (those their bounds did not settle) and how many; null on
  /// the run's first iteration: every row.
  const unsigned* active = nullptr;
  const unsigned* active_count = nullptr;
  unsigned* listed = nullptr;        ///< n: rows the one-term pass left to the three-term pass
  unsigned* listed_count = nullptr;  ///< how many (zeroed before the iteration)
  float* row_inertia = nullptr;      ///< n: each row's exact distance (× its weight)
  /// n: each row's lower bound on its real distance to every other centroid, plus the run's
  /// drift when it was written (0: no bound).
  float* bounds = nullptr;
  const double* drift = nullptr;  ///< the run's drift D (RunCounters::drift)
  /// [slot][2], zeroed before the iteration: rows ranked over all k, distances computed.
  unsigned long long* block_work = nullptr;
  /// The rows and the iteration's centroids rounded to TF32 (roundToTf32Kernel), which the
  /// one-term pass multiplies instead of the FP32 values (a bound half as wide); null where the
  /// device had no room for the copy: the FP32 values, truncated by the tensor cores.
  const float* rounded_points = nullptr;
  const float* rounded_centroids = nullptr;
};

/// Adds a block's counts to its work slot (IterationStats::rows_searched, distances_computed).
__device__ __forceinline__ void addBlockWork(unsigned long long* block_work, int slot,
                                             unsigned long long ranked,
                                             unsigned long long distances) {
  if (ranked != 0) atomicAdd(block_work + 2 * slot, ranked);
  if (distances != 0) atomicAdd(block_work + 2 * slot + 1, distances);
}

/// ‖x − c‖² exactly as the CPU backend computes it (exactDistanceAt's operations in its order),
/// the rows read four floats at a time when d % 4 == 0; with ‖x‖² beside it (sequential FMAs:
/// only the bound reads it) when `x_norm` is given.
__device__ __forceinline__ float exactRowDistance(const float* __restrict__ x,
                                                  const float* __restrict__ c, int d, bool aligned,
                                                  float* x_norm = nullptr) {
  float s = 0.0f, xx = 0.0f;
  if (aligned) {
#pragma unroll 4
    for (int t = 0; t < d; t += 4) {
      const float4 xv = __ldg(reinterpret_cast<const float4*>(x + t));
      const float4 cv = __ldg(reinterpret_cast<const float4*>(c + t));
      const float e[4] = {exact::sub(xv.x, cv.x), exact::sub(xv.y, cv.y), exact::sub(xv.z, cv.z),
                          exact::sub(xv.w, cv.w)};
      s = exact::add(s, exact::mul(e[0], e[0]));
      s = exact::add(s, exact::mul(e[1], e[1]));
      s = exact::add(s, exact::mul(e[2], e[2]));
      s = exact::add(s, exact::mul(e[3], e[3]));
      if (x_norm) {
        xx = fmaf(xv.x, xv.x, xx);
        xx = fmaf(xv.y, xv.y, xx);
        xx = fmaf(xv.z, xv.z, xx);
        xx = fmaf(xv.w, xv.w, xx);
      }
    }
  } else {
    for (int t = 0; t < d; ++t) {
      const float xv = __ldg(x + t);
      const float e = exact::sub(xv, __ldg(c + t));
      s = exact::add(s, exact::mul(e, e));
      if (x_norm) xx = fmaf(xv, xv, xx);
    }
  }
  if (x_norm) *x_norm = xx;
  return s;
}

/// One pass over rows: the active ones (one term; all n on the run's first iteration) or the
/// listed ones (three terms). Each row it decides keeps a new lower bound. MT m-tiles of 16 rows
/// a warp (4 for the one-term pass, 2 for the three-term pass, whose split operands and per-slice
/// sums take twice the registers).
template <int MT, bool kSplit, typename LabelT>
__global__ void __launch_bounds__(kHdThreads, hdMinBlocks(MT, kSplit))
    highDimTensorKernel(AssignArgs<LabelT> a, HighDimTensorExtra x) {
  constexpr int BM = hdBlockRows(MT);
  constexpr int kStage = (BM + kHdCentroids) * kHdPitch;  // floats a stage
  extern __shared__ __align__(16) float smem[];
  __shared__ unsigned tile_rows[BM];  // the block's rows (index), ~0u past the end
  __shared__ unsigned long long block_changed, block_ranked, block_distances;

  const int d = a.d, k = a.k;
  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid >> 5, lane = tid & 31;
  const int g = lane >> 2, t = lane & 3;
  const int wm = warp >> 2;  // rows [wm·BM/2, (wm + 1)·BM/2) of the block's
  const int wn = warp & 3;   // centroids [32·wn, 32·wn + 32) of each tile
  const bool weighted = a.weights != nullptr;
  const bool aligned = (d & 3) == 0;  // rows start on 16 bytes: whole float4 copies
  // What the tensor cores multiply: the TF32-rounded copies in the one-term pass where there are
  // some; the FP32 values in the three-term pass (it splits them itself).
  const bool rounded = !kSplit && x.rounded_points != nullptr;
  const float* const mma_points = rounded ? x.rounded_points : a.points;
  const float* const mma_centroids = rounded ? x.rounded_centroids : a.centroids;
  const int slices = (d + kHdSlice - 1) / kHdSlice;
  const int centroid_tiles = (k + kHdCentroids - 1) / kHdCentroids;
  const int steps = slices * centroid_tiles;
  const float largest = __uint_as_float(*x.largest_norm_bits);
  // The 16-byte copies a thread issues each step: quad tid % 8 of rows tid / 8 + 32u.
  const int copy_row = tid >> 3, copy_col = 4 * (tid & 7);
  // ldmatrix row addresses (floats from a stage's start): lane l gives row l % 8 of tile l / 8.
  const int mat = lane >> 3, mat_row = lane & 7;
  const int a_offset = (wm * (BM / 2) + mat_row + 8 * (mat & 1)) * kHdPitch + 4 * (mat >> 1);
  const int b_offset = (BM + 32 * wn + mat_row + 8 * (mat >> 1)) * kHdPitch + 4 * (mat & 1);

  if (!kSplit && blockIdx.x == 0) clearForNextStages(a);
  if (tid == 0) block_changed = block_ranked = block_distances = 0ull;
  const unsigned* source = kSplit ? x.listed : x.active;  // null: every row
  const unsigned* source_count = kSplit ? x.listed_count : x.active_count;
  const std::size_t rows = source_count ? static_cast<std::size_t>(*source_count) : a.n;
  // Bounds are written with the drift the iteration's centroids have: D rounded down.
  const float drift_down = highDimDrift(*x.drift, d, false);

  unsigned long long changed = 0, ranked = 0;  // rows this thread decided or listed
  for (std::size_t base = static_cast<std::size_t>(blockIdx.x) * BM; base < rows;
       base += static_cast<std::size_t>(gridDim.x) * BM) {
    __syncthreads();  // the previous tile's rows and merge area are no longer read
    for (int r = tid; r < BM; r += kHdThreads) {
      const std::size_t i = base + r;
      tile_rows[r] = i < rows ? (source ? source[i] : static_cast<unsigned>(i)) : ~0u;
    }
    __syncthreads();
    const float* row_source[BM / 32];  // aligned copies: this thread's rows, null past the end
#pragma unroll
    for (int u = 0; u < BM / 32; ++u) {
      const unsigned r = tile_rows[copy_row + 32 * u];
      row_source[u] = r != ~0u ? mma_points + static_cast<std::size_t>(r) * d : nullptr;
    }

    // Issues the copies of step q (centroid tile q / slices, slice q % slices) into stage q % 3;
    // past the last step an empty group, so that every thread counts the same groups.
    auto issue = [&](int q) {
      if (q < steps) {
        float* as = smem + (q % 3) * kStage;
        const int c0 = (q % slices) * kHdSlice;
        const int first_centroid = (q / slices) * kHdCentroids;
        if (aligned) {
          const int c = c0 + copy_col;
          const bool column_inside = c < d;
#pragma unroll
          for (int u = 0; u < BM / 32; ++u) {
            const bool inside = column_inside && row_source[u] != nullptr;
            copyAsync<16>(as + (copy_row + 32 * u) * kHdPitch + copy_col,
                          inside ? row_source[u] + c : mma_points, inside ? 16 : 0);
          }
#pragma unroll
          for (int u = 0; u < kHdCentroids / 32; ++u) {
            const int j = first_centroid + copy_row + 32 * u;
            const bool inside = column_inside && j < k;
            copyAsync<16>(
                as + (BM + copy_row + 32 * u) * kHdPitch + copy_col,
                inside ? mma_centroids + static_cast<std::size_t>(j) * d + c : mma_centroids,
                inside ? 16 : 0);
          }
        } else {
          for (int i = tid; i < (BM + kHdCentroids) * kHdSlice; i += kHdThreads) {
            const int r = i >> 5, c = c0 + (i & 31);
            const float* src = mma_points;
            bool inside = c < d;
            if (r < BM) {
              inside = inside && tile_rows[r] != ~0u;
              if (inside) src = mma_points + static_cast<std::size_t>(tile_rows[r]) * d + c;
            } else {
              const int j = first_centroid + r - BM;
              inside = inside && j < k;
              if (inside) src = mma_centroids + static_cast<std::size_t>(j) * d + c;
            }
            copyAsync<4>(as + r * kHdPitch + (i & 31), src, inside ? 4 : 0);
          }
        }
      }
      copyAsyncCommit();
    };

    // The one-term pass keeps two values a row (all it decides from); the three-term pass the
    // kHdSplitCandidates smallest.
    using Best = std::conditional_t<kSplit, NearestM<kHdSplitCandidates>, Nearest2>;
    Best near[MT][2];     // rows wm·BM/2 + 16·mt + 8·h + g
    float acc[MT][4][4];  // [m-tile][n-tile][fragment]
    issue(0);
    issue(1);
    for (int q = 0; q < steps; ++q) {
      copyAsyncWaitGroup<1>();  // step q's copies have landed (q + 1's may be in flight)
      __syncthreads();          // … for every thread; and step q − 1's stage is read by all
      issue(q + 2);             // into step q − 1's stage
      if (q % slices == 0) {
#pragma unroll
        for (int mt = 0; mt < MT; ++mt)
#pragma unroll
          for (int nt = 0; nt < 4; ++nt)
#pragma unroll
            for (int e = 0; e < 4; ++e)
              acc[mt][nt][e] = 0.0f;
      }
      const float* stage = smem + (q % 3) * kStage;
      float part[kSplit ? MT : 1][4][4];
      if constexpr (kSplit) {
#pragma unroll
        for (int mt = 0; mt < MT; ++mt)
#pragma unroll
          for (int nt = 0; nt < 4; ++nt)
#pragma unroll
            for (int e = 0; e < 4; ++e)
              part[mt][nt][e] = 0.0f;
      }
      // Fragments of k-step ks + 1 are loaded before the mma of k-step ks are issued (both are
      // volatile asm, so program order is issue order).
      uint4 afs[2][MT];
      uint2 bfs[2][4];
      auto loadFragments = [&](int ks, uint4(&af)[MT], uint2(&bf)[4]) {
#pragma unroll
        for (int mt = 0; mt < MT; ++mt)
          af[mt] = loadMatrixX4(stage + a_offset + 16 * mt * kHdPitch + 8 * ks);
#pragma unroll
        for (int np = 0; np < 2; ++np) {
          const uint4 b = loadMatrixX4(stage + b_offset + 16 * np * kHdPitch + 8 * ks);
          bf[2 * np] = make_uint2(b.x, b.y);
          bf[2 * np + 1] = make_uint2(b.z, b.w);
        }
      };
      loadFragments(0, afs[0], bfs[0]);
#pragma unroll
      for (int ks = 0; ks < kHdSlice / 8; ++ks) {
        if (ks + 1 < kHdSlice / 8) loadFragments(ks + 1, afs[(ks + 1) & 1], bfs[(ks + 1) & 1]);
        uint4(&af)[MT] = afs[ks & 1];
        uint2(&bf)[4] = bfs[ks & 1];
        if constexpr (kSplit) {
          // x = hi + lo exactly, hi the top 19 bits (what mma.sync reads of it).
          uint4 ah[MT], al[MT];
          uint2 bh[4], bl[4];
          auto hi = [](unsigned v) { return v & 0xffffe000u; };
          auto lo = [](unsigned v) {
            return __float_as_uint(__uint_as_float(v) - __uint_as_float(v & 0xffffe000u));
          };
#pragma unroll
          for (int mt = 0; mt < MT; ++mt) {
            al[mt] = make_uint4(lo(af[mt].x), lo(af[mt].y), lo(af[mt].z), lo(af[mt].w));
            ah[mt] = make_uint4(hi(af[mt].x), hi(af[mt].y), hi(af[mt].z), hi(af[mt].w));
          }
#pragma unroll
          for (int nt = 0; nt < 4; ++nt) {
            bl[nt] = make_uint2(lo(bf[nt].x), lo(bf[nt].y));
            bh[nt] = make_uint2(hi(bf[nt].x), hi(bf[nt].y));
          }
#pragma unroll
          for (int mt = 0; mt < MT; ++mt)
#pragma unroll
            for (int nt = 0; nt < 4; ++nt) {
              mmaTf32(part[mt][nt], al[mt], bh[nt]);
              mmaTf32(part[mt][nt], ah[mt], bl[nt]);
              mmaTf32(part[mt][nt], ah[mt], bh[nt]);
            }
        } else {
#pragma unroll
          for (int mt = 0; mt < MT; ++mt)
#pragma unroll
            for (int nt = 0; nt < 4; ++nt)
              mmaTf32(acc[mt][nt], af[mt], bf[nt]);
        }
      }
      if constexpr (kSplit) {
#pragma unroll
        for (int mt = 0; mt < MT; ++mt)
#pragma unroll
          for (int nt = 0; nt < 4; ++nt)
#pragma unroll
            for (int e = 0; e < 4; ++e)
              acc[mt][nt][e] += part[mt][nt][e];
      }
      if (q % slices == slices - 1) {
        // The tile's values into the rows' three smallest (columns past k: norm ∞, never kept).
        const int first_centroid = (q / slices) * kHdCentroids + 32 * wn + 2 * t;
#pragma unroll
        for (int nt = 0; nt < 4; ++nt) {
#pragma unroll
          for (int e = 0; e < 2; ++e) {
            const int j = first_centroid + 8 * nt + e;
            const float norm = j < k ? __ldg(x.norms + j) : INFINITY;
#pragma unroll
            for (int mt = 0; mt < MT; ++mt)
#pragma unroll
              for (int h = 0; h < 2; ++h) {
                // Three terms: rarely kept late in a row; one term: branch-free.
                near[mt][h].add(fmaf(-2.0f, acc[mt][nt][2 * h + e], norm), j);
              }
          }
        }
      }
    }
    __syncthreads();  // every warp is done with the stages: the merge area below reuses them

    // Lanes 4g … 4g + 3 hold the same rows over different centroids; then the four warps along
    // the centroids, through shared memory.
#pragma unroll
    for (int mt = 0; mt < MT; ++mt)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        near[mt][h].merge(1);
        near[mt][h].merge(2);
      }
    using Slot = typename SlotOf<Best>::type;
    Slot* merge = reinterpret_cast<Slot*>(smem);  // [4 warps along k][BM rows]
    if (t == 0) {
#pragma unroll
      for (int mt = 0; mt < MT; ++mt)
#pragma unroll
        for (int h = 0; h < 2; ++h)
          merge[wn * BM + wm * (BM / 2) + 16 * mt + 8 * h + g] = slotOf(near[mt][h]);
    }
    __syncthreads();

    // One thread a row: the row's smallest values over all k, then its exact label.
    bool search = false;  // the three-term pass could not settle it: the warp searches all k
    int label = 0;
    float dist = INFINITY;
    float lower = 0.0f;  // the row's new bound (0: none)
    const unsigned row = tid < BM ? tile_rows[tid] : ~0u;
    if (row != ~0u) {
      ++ranked;
      Best best;
      for (int w = 0; w < 4; ++w)
        mergeSlot(best, merge[w * BM + tid]);
      const float* xr = a.points + static_cast<std::size_t>(row) * d;
      // The best candidate's exact distance, and ‖x‖² for the bound, in one pass over the row.
      float x_norm = 0.0f;
      label = best.bestIndex();
      dist = exactRowDistance(xr, a.centroids + static_cast<std::size_t>(label) * d, d, aligned,
                              &x_norm);
      const float err = highDimErrorBound(d, kSplit, x_norm, largest, rounded);
      const float margin = 2.0f * err;
      // Data near float's range (or NaN anywhere) fall through to the exact search.
      const bool tame = x_norm + largest < 1e37f;
      const bool certain = tame && best.runnerUp() - best.bestValue() > margin;
      bool few = false;  // the candidates within the margin are all kept: their exact distances
      if constexpr (kSplit) {
        constexpr int M = kHdSplitCandidates;
        few = tame && !certain && best.v[M - 1] - best.v[0] > margin;
        if (few) {
#pragma unroll
          for (int m = 1; m < M - 1; ++m) {
            if (best.v[m] - best.v[0] > margin) continue;  // ascending: the rest are out too
            const float dm = exactRowDistance(
                xr, a.centroids + static_cast<std::size_t>(best.i[m]) * d, d, aligned);
            if (dm < dist || (dm == dist && best.i[m] < label)) {
              dist = dm;
              label = best.i[m];
            }
          }
        }
      }
      // Not settled, or a distance that overflows float (the CPU's answer is then its first
      // centroid at ∞ or below): searched.
      search = !(certain || few) || !(dist < INFINITY);
      if (search && !kSplit) {
        x.listed[atomicAdd(x.listed_count, 1u)] = row;
        search = false;
        dist = -1.0f;  // decided by the next pass
      }
      // Every centroid but the label's has a value of at least the runner-up's (the label is
      // the best candidate) or the best's (another candidate won): a bound, unless searched.
      if (!search && dist >= 0.0f) {
        const float other = label == best.bestIndex() ? best.runnerUp() : best.bestValue();
        lower = highDimLowerBound(other, err, x_norm, d);
      }
    }
    if constexpr (kSplit) {
      // The warps holding rows (tid < BM) search their unsettled rows over all k together.
      if (warp < BM / 32) {
        unsigned pending = __ballot_sync(kFullWarp, search);
        while (pending != 0u) {
          const int src = __ffs(pending) - 1;
          pending &= pending - 1;
          const unsigned r = __shfl_sync(kFullWarp, row, src);
          const float* xr = a.points + static_cast<std::size_t>(r) * d;
          float best = INFINITY;
          const int best_j = warpExactNearest(
              k,
              [&](int j) {
                return exactRowDistance(xr, a.centroids + static_cast<std::size_t>(j) * d, d,
                                        aligned);
              },
              best);
          if (lane == src) {
            label = best_j;
            dist = best;
          }
        }
      }
    }
    if (row != ~0u && dist >= 0.0f) {
      const float w = weighted ? __ldg(a.weights + row) : 1.0f;
      x.row_inertia[row] = weighted ? exact::mul(dist, w) : dist;
      x.bounds[row] = lower > 0.0f ? __fadd_rd(lower, drift_down) : 0.0f;
      const LabelT new_label = static_cast<LabelT>(label);
      if (a.labels_in == nullptr || a.labels_in[row] != new_label) ++changed;
      a.labels_out[row] = new_label;
    }
  }
  // Integer counts: the three-term pass adds its own to the one-term pass's, order-free.
  if (changed != 0) atomicAdd(&block_changed, changed);
  // Work: k values and an exact distance a row (the three-term pass's rows count twice).
  if (ranked != 0) {
    if (!kSplit) atomicAdd(&block_ranked, ranked);
    atomicAdd(&block_distances, ranked * (static_cast<unsigned long long>(k) + 1));
  }
  __syncthreads();
  if (tid == 0) {
    if (kSplit)
      atomicAdd(a.block_changed + blockIdx.x, block_changed);
    else
      a.block_changed[blockIdx.x] = block_changed;
    addBlockWork(x.block_work, blockIdx.x, block_ranked, block_distances);
  }
}

}  // namespace kms::cuda
