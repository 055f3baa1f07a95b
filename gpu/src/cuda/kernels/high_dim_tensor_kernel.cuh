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
// is stored: each thread keeps what its pass needs of its rows' values v = ‖c‖² − 2x·c across
// all tiles (high_dim_candidates.cuh); the four lanes and the four warps that share a row merge
// them at the end.
//
// Three passes, one kernel (HdPass):
//   rank     one term: the FP32 words as TF32 operands (mma.sync reads their top 19 bits), or
//            copies rounded to TF32: v within E₁ = ε₁(d)·2‖x‖·C + small terms of its real value.
//            The two smallest values a row. A row whose runner-up is more than 2E₁ above its
//            best has a certain label (one exact distance, for the inertia and the bound);
//            otherwise the row is listed with its threshold v₁ + 2E₁.
//   collect  the listed rows again with the same operands, so the same E₁: every centroid
//            whose value is at most the threshold is appended to the row's list in shared
//            memory (the nearest is always among them: its value is within E₁ of the CPU's
//            distance less ‖x‖², which is at most the best candidate's, within E₁ of v₁). A row
//            with at most kHdCollectCandidates of them is decided by their exact distances; the
//            others are forwarded. A value costs one compare here, not a three-term product.
//   split    three terms, for the forwarded rows: x = hi + lo and c = hi + lo with hi the top
//            19 bits (exact) and hi·hi + hi·lo + lo·hi summed per slice of 32 coordinates, the
//            slices added in FP32: ε₃(d) about 80 times smaller (highDimErrorFactor). The eight
//            smallest values with their indices: if fewer than eight centroids lie within 2E₃ of
//            the best, their exact distances decide; a row with more is searched exactly over all
//            k by its warp.
// C = max‖c‖ over all k. The rows a pass takes: the ones the bounds did not settle
// (high_dim_row_kernels.cuh), those the rank pass listed, or those the collect pass forwarded.
#pragma once

#include <cfloat>
#include <cstddef>
#include <type_traits>

#include "cuda/kernels/assign_common.cuh"
#include "cuda/kernels/assign_tiled_kernel.cuh"
#include "cuda/kernels/async_copy.cuh"
#include "cuda/kernels/high_dim_bounds.cuh"
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
/// Centroids a listed row may have within its threshold for the collect pass to decide it.
inline constexpr int kHdCollectCandidates = 8;

/// The passes of highDimTensorKernel (the file's head comment).
enum class HdPass { kRank, kCollect, kSplit };

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
  /// n, by listed position: the rank pass's threshold v₁ + 2E₁ for the listed row (NaN: none,
  /// the collect pass forwards the row).
  float* listed_threshold = nullptr;
  /// n: rows the collect pass left to the three-term pass and how many (zeroed before the
  /// iteration); the three-term pass reads them as its `listed`.
  unsigned* forwarded = nullptr;
  unsigned* forwarded_count = nullptr;
  /// [slot][2], zeroed before the iteration: rows ranked over all k, distances computed.
  unsigned long long* block_work = nullptr;
  /// The one-term passes' FP16 copies (toScaledHalfKernel) of the rows (once a run) and of the
  /// iteration's centroids, `half_pitch` halves a row, and the rows' largest magnitude (float
  /// bits) their scale comes from; null where the device had no room for them (the passes then
  /// read the FP32 values as TF32: a bound twice as wide).
  const __half* half_points = nullptr;
  const __half* half_centroids = nullptr;
  int half_pitch = 0;
  const unsigned* rows_largest_bits = nullptr;
};

/// Adds a block's counts to its work slot (IterationStats::rows_searched, distances_computed).
__device__ __forceinline__ void addBlockWork(unsigned long long* block_work, int slot,
                                             unsigned long long ranked,
                                             unsigned long long distances) {
  if (ranked != 0) atomicAdd(block_work + 2 * slot, ranked);
  if (distances != 0) atomicAdd(block_work + 2 * slot + 1, distances);
}

/// One pass over rows (HdPass, above): the active ones (rank; all n on the run's first
/// iteration), the listed ones (collect) or the forwarded ones (split). Each row it decides keeps
/// a new lower bound. MT m-tiles of 16 rows a warp (2 in every pass here; the three-term pass's
/// split operands and per-slice sums take twice the registers, so one block a multiprocessor).
/// kHalves (one-term passes only): the operands are the FP16 copies, 64 coordinates a stage and
/// mma.sync m16n8k16 — the same bytes through the same shared memory and ldmatrix loads as 32
/// TF32 coordinates, so half the instructions and copies a coordinate.
template <int MT, HdPass kPass, typename LabelT, bool kHalves = false>
__global__ void __launch_bounds__(kHdThreads, hdMinBlocks(MT, kPass == HdPass::kSplit))
    highDimTensorKernel(AssignArgs<LabelT> a, HighDimTensorExtra x) {
  constexpr bool kSplit = kPass == HdPass::kSplit;
  constexpr bool kCollect = kPass == HdPass::kCollect;
  constexpr int BM = hdBlockRows(MT);
  constexpr int kStage = (BM + kHdCentroids) * kHdPitch;  // floats a stage
  constexpr int kLists = kCollect ? BM : 1;
  constexpr int CM = kHdCollectCandidates;
  extern __shared__ __align__(16) float smem[];
  __shared__ unsigned tile_rows[BM];  // the block's rows (index), ~0u past the end
  // Collect: each row's centroids within its threshold (the first CM) and how many there were.
  __shared__ unsigned list_count[kLists];
  __shared__ int list_index[kLists][CM];
  // Split: the tile's rows its warps search over all k (their slots), and what they found.
  constexpr int kSearches = kSplit ? BM : 1;
  __shared__ int search_slot[kSearches];
  __shared__ int search_label[kSearches];
  __shared__ float search_dist[kSearches];
  __shared__ unsigned search_count;
  __shared__ unsigned long long block_changed, block_ranked, block_distances;

  const int d = a.d, k = a.k;
  const int tid = static_cast<int>(threadIdx.x);
  const int warp = tid >> 5, lane = tid & 31;
  const int g = lane >> 2, t = lane & 3;
  const int wm = warp >> 2;  // rows [wm·BM/2, (wm + 1)·BM/2) of the block's
  const int wn = warp & 3;   // centroids [32·wn, 32·wn + 32) of each tile
  const bool weighted = a.weights != nullptr;
  static_assert(!(kHalves && kSplit), "the three-term pass splits the FP32 values itself");
  const bool aligned = (d & 3) == 0;  // FP32 rows start on 16 bytes: float4 reads
  // What the tensor cores multiply, as bytes: the FP16 copies, or the FP32 values (read as TF32
  // in the one-term passes, split in the three-term pass). A stage holds 128 bytes of a row.
  const char* const mma_points = kHalves ? reinterpret_cast<const char*>(x.half_points)
                                         : reinterpret_cast<const char*>(a.points);
  const char* const mma_centroids = kHalves ? reinterpret_cast<const char*>(x.half_centroids)
                                            : reinterpret_cast<const char*>(a.centroids);
  const int row_bytes = kHalves ? 2 * x.half_pitch : 4 * d;
  const bool whole_copies = kHalves || aligned;  // rows start on 16 bytes: 16-byte copies
  const int slices = (row_bytes + 4 * kHdSlice - 1) / (4 * kHdSlice);
  const int centroid_tiles = (k + kHdCentroids - 1) / kHdCentroids;
  const int steps = slices * centroid_tiles;
  const float largest = __uint_as_float(*x.largest_norm_bits);
  // FP16 copies: the scales' exponents (the values were multiplied by 2^e_x and 2^e_c), undone
  // exactly in each value's one FMA; data whose scales are not finite go to the exact search.
  int e_x = 0, e_c = 0;
  bool scales_usable = true;
  if constexpr (kHalves) {
    const float rows_largest = __uint_as_float(*x.rows_largest_bits);
    e_x = halfScaleExponent(rows_largest);
    e_c = halfScaleExponent(sqrtf(largest));
    scales_usable = highDimHalfScalesUsable(rows_largest, largest);
  }
  const float minus_two_scale = kHalves ? ldexpf(-2.0f, -(e_x + e_c)) : -2.0f;
  // E for a row of squared norm x_norm: this pass's bound.
  auto errorBound = [&](float x_norm) {
    return kHalves ? highDimHalfErrorBound(d, x_norm, largest, e_x, e_c)
                   : highDimErrorBound(d, kSplit, x_norm, largest);
  };
  // The 16-byte copies a thread issues each step: quad tid % 8 of rows tid / 8 + 32u.
  const int copy_row = tid >> 3, copy_col = 4 * (tid & 7);
  // ldmatrix row addresses (floats from a stage's start): lane l gives row l % 8 of tile l / 8.
  const int mat = lane >> 3, mat_row = lane & 7;
  const int a_offset = (wm * (BM / 2) + mat_row + 8 * (mat & 1)) * kHdPitch + 4 * (mat >> 1);
  const int b_offset = (BM + 32 * wn + mat_row + 8 * (mat >> 1)) * kHdPitch + 4 * (mat & 1);

  if (kPass == HdPass::kRank && blockIdx.x == 0) clearForNextStages(a);
  if (tid == 0) block_changed = block_ranked = block_distances = 0ull;
  const unsigned* source = kPass == HdPass::kRank ? x.active : x.listed;  // null: every row
  const unsigned* source_count = kPass == HdPass::kRank ? x.active_count : x.listed_count;
  const std::size_t rows = source_count ? static_cast<std::size_t>(*source_count) : a.n;
  // Bounds are written with the drift the iteration's centroids have: D rounded down.
  const float drift_down = highDimDrift(*x.drift, d, false);

  unsigned long long changed = 0, ranked = 0;  // rows this thread decided or listed
  // Rows a block takes at a time: BM, or fewer so that every block has some when there are few
  // (the later passes often have a few hundred rows, some of them searched over all k).
  const std::size_t spread = (rows + gridDim.x - 1) / gridDim.x;
  const std::size_t per_block = spread < BM ? spread : BM;
  for (std::size_t base = static_cast<std::size_t>(blockIdx.x) * per_block; base < rows;
       base += static_cast<std::size_t>(gridDim.x) * per_block) {
    __syncthreads();  // the previous tile's rows and merge area are no longer read
    for (int r = tid; r < BM; r += kHdThreads) {
      const std::size_t i = base + r;
      const bool inside = r < static_cast<int>(per_block) && i < rows;
      tile_rows[r] = inside ? (source ? source[i] : static_cast<unsigned>(i)) : ~0u;
      if constexpr (kCollect) list_count[r] = 0u;
      if (kSplit && r == 0) search_count = 0u;
    }
    __syncthreads();
    // Collect: this thread's rows' thresholds (−∞ past the end: nothing is appended).
    float threshold[kCollect ? MT : 1][2];
    if constexpr (kCollect) {
#pragma unroll
      for (int mt = 0; mt < MT; ++mt)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int r = wm * (BM / 2) + 16 * mt + 8 * h + g;
          const std::size_t i = base + r;
          threshold[mt][h] = r < static_cast<int>(per_block) && i < rows
                                 ? __ldg(x.listed_threshold + i)
                                 : -INFINITY;
        }
    }
    const char* row_source[BM / 32];  // whole copies: this thread's rows, null past the end
#pragma unroll
    for (int u = 0; u < BM / 32; ++u) {
      const unsigned r = tile_rows[copy_row + 32 * u];
      row_source[u] = r != ~0u ? mma_points + static_cast<std::size_t>(r) * row_bytes : nullptr;
    }

    // Issues the copies of step q (centroid tile q / slices, slice q % slices) into stage q % 3;
    // past the last step an empty group, so that every thread counts the same groups.
    auto issue = [&](int q) {
      if (q < steps) {
        float* as = smem + (q % 3) * kStage;
        const int c0 = (q % slices) * kHdSlice;
        const int first_centroid = (q / slices) * kHdCentroids;
        if (whole_copies) {
          const int c = 4 * (c0 + copy_col);  // bytes into the row
          const bool column_inside = c < row_bytes;
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
            copyAsync<16>(as + (BM + copy_row + 32 * u) * kHdPitch + copy_col,
                          inside ? mma_centroids + static_cast<std::size_t>(j) * row_bytes + c
                                 : mma_centroids,
                          inside ? 16 : 0);
          }
        } else {  // FP32 rows of d % 4 ≠ 0: a float at a time
          const float* const points = a.points;
          const float* const centroids = a.centroids;
          for (int i = tid; i < (BM + kHdCentroids) * kHdSlice; i += kHdThreads) {
            const int r = i >> 5, c = c0 + (i & 31);
            const float* src = points;
            bool inside = c < d;
            if (r < BM) {
              inside = inside && tile_rows[r] != ~0u;
              if (inside) src = points + static_cast<std::size_t>(tile_rows[r]) * d + c;
            } else {
              const int j = first_centroid + r - BM;
              inside = inside && j < k;
              if (inside) src = centroids + static_cast<std::size_t>(j) * d + c;
            }
            copyAsync<4>(as + r * kHdPitch + (i & 31), src, inside ? 4 : 0);
          }
        }
      }
      copyAsyncCommit();
    };

    // The rank pass keeps two values a row (all it decides from); the three-term pass the
    // kHdSplitCandidates smallest; the collect pass none (it appends to the row's list).
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
            for (int nt = 0; nt < 4; ++nt) {
              if constexpr (kHalves)
                mmaF16(acc[mt][nt], af[mt], bf[nt]);
              else
                mmaTf32(acc[mt][nt], af[mt], bf[nt]);
            }
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
        // The tile's values into the rows' smallest or lists (columns past k: norm ∞, never
        // kept or appended).
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
                const float v = fmaf(minus_two_scale, acc[mt][nt][2 * h + e], norm);
                if constexpr (kCollect) {
                  // A few centroids a row pass: one compare a value.
                  if (v <= threshold[mt][h]) {
                    const int r = wm * (BM / 2) + 16 * mt + 8 * h + g;
                    const unsigned slot = atomicAdd(&list_count[r], 1u);
                    if (slot < CM) list_index[r][slot] = j;
                  }
                } else {
                  // Three terms: rarely kept late in a row; one term: branch-free.
                  near[mt][h].add(v, j);
                }
              }
          }
        }
      }
    }
    __syncthreads();  // every warp is done with the stages: the merge area below reuses them

    // Lanes 4g … 4g + 3 hold the same rows over different centroids; then the four warps along
    // the centroids, through shared memory.
    using Slot = typename SlotOf<Best>::type;
    Slot* merge = reinterpret_cast<Slot*>(smem);  // [4 warps along k][BM rows]
    if constexpr (!kCollect) {
#pragma unroll
      for (int mt = 0; mt < MT; ++mt)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          near[mt][h].merge(1);
          near[mt][h].merge(2);
        }
      if (t == 0) {
#pragma unroll
        for (int mt = 0; mt < MT; ++mt)
#pragma unroll
          for (int h = 0; h < 2; ++h)
            merge[wn * BM + wm * (BM / 2) + 16 * mt + 8 * h + g] = slotOf(near[mt][h]);
      }
      __syncthreads();
    }

    // One thread a row: the row's smallest values over all k, then its exact label.
    bool search = false;  // the three-term pass could not settle it: the warp searches all k
    int label = 0;
    float dist = INFINITY;
    float lower = 0.0f;  // the row's new bound (0: none)
    const unsigned row = tid < BM ? tile_rows[tid] : ~0u;
    if (kCollect && row != ~0u) {
      ++ranked;
      // The row's threshold and the centroids at or below it: the nearest is among them.
      const float limit = __ldg(x.listed_threshold + base + tid);
      const unsigned count = list_count[tid];
      label = -1;
      if (count <= static_cast<unsigned>(CM) && !isnan(limit)) {
        const float* xr = a.points + static_cast<std::size_t>(row) * d;
        float x_norm = 0.0f;
        float second = INFINITY;  // the other listed centroids' smallest exact distance
        for (unsigned m = 0; m < count; ++m) {  // ties to the lower index, in any order
          const int j = list_index[tid][m];
          const float dm = exactRowDistance(xr, a.centroids + static_cast<std::size_t>(j) * d, d,
                                            aligned, m == 0 ? &x_norm : nullptr);
          if (dm < dist || (dm == dist && j < label)) {
            second = dist;
            dist = dm;
            label = j;
          } else {
            second = fminf(second, dm);
          }
        }
        if (label >= 0 && dist < INFINITY) {
          // Every centroid not listed has a value above the threshold; the other listed ones are
          // at their exact distances.
          const float err = errorBound(x_norm);
          lower =
              fminf(highDimLowerBound(limit, err, x_norm, d), highDimExactLowerBound(second, d));
        } else {
          label = -1;
        }
      }
      if (label < 0) {  // too many within the threshold, or out of float's range: three terms
        x.forwarded[atomicAdd(x.forwarded_count, 1u)] = row;
        dist = -1.0f;
        label = 0;
      }
    }
    if (!kCollect && row != ~0u) {
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
      const float err = errorBound(x_norm);
      const float margin = 2.0f * err;
      // Data near float's range (or NaN anywhere) fall through to the exact search.
      const bool tame = scales_usable && x_norm + largest < 1e37f;
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
      if (search && kPass == HdPass::kRank) {
        const unsigned slot = atomicAdd(x.listed_count, 1u);
        x.listed[slot] = row;
        // The collect pass takes every centroid up to v₁ + 2E (rounded up), or forwards the row.
        x.listed_threshold[slot] =
            tame && dist < INFINITY ? __fadd_ru(best.bestValue(), margin) : NAN;
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
      // The rows left unsettled are searched over all k, a warp a row, by all eight warps (a
      // search at d = 768, k = 1,024 takes the warp about 0.1 ms).
      if (search) search_slot[atomicAdd(&search_count, 1u)] = tid;
      __syncthreads();
      const unsigned pending = search_count;
      for (unsigned p = static_cast<unsigned>(warp); p < pending; p += kHdThreads / 32) {
        const int slot = search_slot[p];
        const float* xr = a.points + static_cast<std::size_t>(tile_rows[slot]) * d;
        float best = INFINITY;
        const int best_j = warpExactNearest(
            k,
            [&](int j) {
              return exactRowDistance(xr, a.centroids + static_cast<std::size_t>(j) * d, d,
                                      aligned);
            },
            best);
        if (lane == 0) {
          search_label[slot] = best_j;
          search_dist[slot] = best;
        }
      }
      __syncthreads();
      if (search) {
        label = search_label[tid];
        dist = search_dist[tid];
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
  // Integer counts: the later passes add theirs to the rank pass's, order-free.
  if (changed != 0) atomicAdd(&block_changed, changed);
  // Work: k values and an exact distance a row (a listed row counts again in each later pass).
  if (ranked != 0) {
    if (kPass == HdPass::kRank) atomicAdd(&block_ranked, ranked);
    atomicAdd(&block_distances, ranked * (static_cast<unsigned long long>(k) + 1));
  }
  __syncthreads();
  if (tid == 0) {
    if (kPass != HdPass::kRank)
      atomicAdd(a.block_changed + blockIdx.x, block_changed);
    else
      a.block_changed[blockIdx.x] = block_changed;
    addBlockWork(x.block_work, blockIdx.x, block_ranked, block_distances);
  }
}

}  // namespace kms::cuda
