// One whole Lloyd iteration of compact data (distinct values with counts, d ≤ 4) in a single
// kernel: assignment, exact sums, and — in the last block to finish — the reduction, the update,
// empty clusters, the shift, the convergence test and the report. An image's distinct colours
// (a few hundred thousand rows) sit in L2, so one launch per iteration is what it costs.
//
// Sums are kept across iterations: the cluster totals k·(d+1) live in global memory for the
// whole run, and an iteration only moves the rows whose label changed (m·q(x) subtracted from
// the old cluster, added to the new one). Integer arithmetic, so the totals are exactly what a
// full recount would give, in any order; after the first iterations few rows change and the
// iteration is the assignment alone. Each block gathers its moves in shared 64-bit accumulators
// (32-bit words, as in assign_common.cuh) and adds the non-zero ones to the totals with one
// global atomic each.
#pragma once

#include <cub/block/block_reduce.cuh>

#include <cstdint>

#include "cuda/kernels/assign_common.cuh"
#include "cuda/kernels/iteration_common.cuh"

namespace kms::cuda {

inline constexpr int kCompactThreads = 256;
/// The fused kernel stages every centroid in shared memory: k up to this, d up to kCompactMaxD.
inline constexpr int kCompactMaxK = 1024;
inline constexpr int kCompactMaxD = 4;

/// Everything one fused iteration reads and writes (device pointers).
template <typename LabelT>
struct CompactArgs {
  const float* points = nullptr;         ///< n × d, centred
  const std::uint32_t* counts = nullptr;  ///< n multiplicities ≥ 1
  std::size_t n = 0;
  int d = 0;
  int k = 0;
  const float* centroids_in = nullptr;  ///< this iteration's centroids (k × d, centred)
  float* centroids_out = nullptr;       ///< the update writes the next ones here
  const LabelT* labels_in = nullptr;    ///< previous labels; null on the first iteration
  LabelT* labels_out = nullptr;         ///< may equal labels_in
  const float* coord_scale = nullptr;   ///< d fixed-point scales (powers of two)
  long long* totals = nullptr;          ///< k·(d+1) exact sums, kept for the whole run
  double* block_inertia = nullptr;      ///< [gridDim.x]
  unsigned long long* block_changed = nullptr;
  unsigned* blocks_done = nullptr;  ///< zero between iterations (the last block resets it)
  unsigned char* empty_flags = nullptr;
  IterationScalars* scalars = nullptr;
  IterationReport* report = nullptr;
  UpdateParams update;
};

/// Adds a 64-bit value to a sum held as (lo: unsigned, hi: signed) 32-bit words in shared
/// memory (see atomicAddWide): the carry out of the low word goes to the high word.
__device__ __forceinline__ void atomicAddWide64(unsigned* lo, int* hi, long long v) {
  const unsigned u = static_cast<unsigned>(v);
  const int h = static_cast<int>(v >> 32);
  const unsigned old = atomicAdd(lo, u);
  const int delta = h + (old + u < old ? 1 : 0);
  if (delta != 0) atomicAdd(hi, delta);
}

/// Exact nearest of all k staged rows, ties to the lower index (the CPU backend's answer).
template <int D>
__device__ int exactNearestStaged(const float (&x)[D], const float* rows, int k, int d,
                                  float& distance) {
  int best = 0;
  float best_dist = INFINITY;
  for (int j = 0; j < k; ++j) {
    const float s = exactDistance<D>(x, rows + j * centroidRow(D), d);
    if (s < best_dist) {
      best_dist = s;
      best = j;
    }
  }
  distance = best_dist;
  return best;
}

/// The fast score ‖c‖² − 2x·c of one staged row, as the point-per-thread kernel forms it.
template <int D>
__device__ __forceinline__ float fastScore(const float (&x2)[D], const float* row) {
  constexpr int R = centroidRow(D);
  if constexpr (R == 2) {
    const float2 c = *reinterpret_cast<const float2*>(row);
    return fmaf(x2[0], c.x, c.y);
  } else {
    float s = row[D];
#pragma unroll
    for (int v = 0; v < R / 4; ++v) {
      const float4 c = reinterpret_cast<const float4*>(row)[v];
      if (4 * v < D) s = fmaf(x2[4 * v], c.x, s);
      if (4 * v + 1 < D) s = fmaf(x2[4 * v + 1], c.y, s);
      if (4 * v + 2 < D) s = fmaf(x2[4 * v + 2], c.z, s);
      if (4 * v + 3 < D) s = fmaf(x2[4 * v + 3], c.w, s);
    }
    return s;
  }
}

/// The last block: totals → new centroids, empty flags, shift, convergence and the report.
template <typename LabelT>
__device__ void finishCompactIteration(const CompactArgs<LabelT>& a) {
  double inertia = 0.0;
  unsigned long long changed = 0;
  for (unsigned b = threadIdx.x; b < gridDim.x; b += kCompactThreads) {  // fixed order per thread
    inertia += __ldcg(a.block_inertia + b);
    changed += __ldcg(a.block_changed + b);
  }
  const BlockScalars total = blockSumScalars<kCompactThreads>(inertia, changed);
  const int d = a.d;
  float shift = 0.0f;
  int empty = 0;
  for (int j = threadIdx.x; j < a.k; j += kCompactThreads) {
    const long long* row = a.totals + static_cast<std::size_t>(j) * (d + 1);
    const float* oc = a.centroids_in + static_cast<std::size_t>(j) * d;
    float* nc = a.centroids_out + static_cast<std::size_t>(j) * d;
    const long long weight = __ldcg(row + d);
    if (weight == 0) {
      ++empty;
      for (int c = 0; c < d; ++c)
        nc[c] = oc[c];
    } else {
      for (int c = 0; c < d; ++c)
        nc[c] = exact::meanFromSums(__ldcg(row + c), a.update.coord_exp[c], weight, 0);
      shift = fmaxf(shift, clusterShift(nc, oc, d));
    }
    a.empty_flags[j] = weight == 0 ? 1 : 0;
  }
  using ReduceF = cub::BlockReduce<float, kCompactThreads>;
  using ReduceI = cub::BlockReduce<int, kCompactThreads>;
  __shared__ union {
    typename ReduceF::TempStorage f;
    typename ReduceI::TempStorage i;
  } temp;
  __syncthreads();
  const float top = ReduceF(temp.f).Reduce(shift, MaxOf{});
  __syncthreads();
  const int empties = ReduceI(temp.i).Sum(empty);
  if (threadIdx.x == 0) {
    IterationScalars* s = a.scalars;
    s->inertia = total.inertia;
    s->changed = total.changed;
    s->max_shift_bits = __float_as_uint(top);
    s->empty_count = empties;
    finalizeIteration(s, a.report, a.update, ++a.update.counters->iteration);
    *a.blocks_done = 0;  // ready for the next iteration (kernels on the stream run in order)
  }
}

template <int D, typename LabelT>
__global__ void __launch_bounds__(kCompactThreads) compactIterationKernel(CompactArgs<LabelT> a) {
  constexpr int R = centroidRow(D);
  extern __shared__ __align__(16) unsigned char shared_raw[];
  const int d = a.d;
  const int k = a.k;
  const int kd1 = k * (d + 1);
  float* rows = reinterpret_cast<float*>(shared_raw);  // k × R
  unsigned* acc_lo = reinterpret_cast<unsigned*>(rows + static_cast<std::size_t>(k) * R);
  int* acc_hi = reinterpret_cast<int*>(acc_lo + kd1);
  __shared__ float scale[D];
  if (threadIdx.x < D) scale[threadIdx.x] = static_cast<int>(threadIdx.x) < d
                                                ? a.coord_scale[threadIdx.x]
                                                : 0.0f;
  for (int t = threadIdx.x; t < kd1; t += kCompactThreads) {
    acc_lo[t] = 0u;
    acc_hi[t] = 0;
  }
  stageCentroids<D>(rows, a.centroids_in, d, 0, k);  // ends with __syncthreads

  const bool first = a.labels_in == nullptr;
  double inertia = 0.0;
  unsigned long long changed = 0;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * kCompactThreads;
  for (std::size_t i = blockIdx.x * static_cast<std::size_t>(kCompactThreads) + threadIdx.x;
       i < a.n; i += stride) {
    float x[D], x2[D];
    const float* p = a.points + i * d;
#pragma unroll
    for (int c = 0; c < D; ++c) {
      x[c] = c < d ? __ldg(p + c) : 0.0f;
      x2[c] = -2.0f * x[c];
    }
    float best = INFINITY, second = INFINITY;
    int label = 0;
#pragma unroll 4
    for (int j = 0; j < k; ++j) {
      const float s = fastScore<D>(x2, rows + j * R);
      second = fminf(second, fmaxf(s, best));
      if (s < best) {  // strict: among equal scores the lower index stays
        best = s;
        label = j;
      }
    }
    float dist = exactDistance<D>(x, rows + label * R, d);
    if (second < INFINITY) {
      float x_norm = 0.0f;
#pragma unroll
      for (int c = 0; c < D; ++c)
        x_norm = fmaf(x[c], x[c], x_norm);
      // As in assignKernel: a gap below the rounding bound is settled with exact distances.
      const float reach = sqrtf(x_norm) + sqrtf(fmaxf(0.0f, second + x_norm));
      if (!(second - best > tieBound<D>(x_norm, rows[label * R + D], 1.01f * reach * reach)))
        label = exactNearestStaged<D>(x, rows, k, d, dist);
    }
    const std::uint32_t m = __ldg(a.counts + i);
    inertia += static_cast<double>(dist) * m;
    const LabelT new_label = static_cast<LabelT>(label);
    const LabelT old_label = first ? LabelT(0) : a.labels_in[i];
    if (first || old_label != new_label) {
      changed += m;
      const std::size_t to = static_cast<std::size_t>(new_label) * (d + 1);
      const std::size_t from = static_cast<std::size_t>(old_label) * (d + 1);
#pragma unroll
      for (int c = 0; c < D; ++c) {
        if (c < d) {
          const long long q = static_cast<long long>(m) * exact::quantize(x[c], scale[c]);
          atomicAddWide64(acc_lo + to + c, acc_hi + to + c, q);
          if (!first) atomicAddWide64(acc_lo + from + c, acc_hi + from + c, -q);
        }
      }
      atomicAddWide64(acc_lo + to + d, acc_hi + to + d, static_cast<long long>(m));
      if (!first) atomicAddWide64(acc_lo + from + d, acc_hi + from + d, -static_cast<long long>(m));
    }
    a.labels_out[i] = new_label;
  }

  const BlockScalars total = blockSumScalars<kCompactThreads>(inertia, changed);
  if (threadIdx.x == 0) {
    a.block_inertia[blockIdx.x] = total.inertia;
    a.block_changed[blockIdx.x] = total.changed;
  }
  __syncthreads();  // every shared accumulation is done
  for (int t = threadIdx.x; t < kd1; t += kCompactThreads) {
    const long long v = wideValue(acc_lo[t], acc_hi[t]);
    if (v != 0) atomicAddInt64(a.totals + t, v);
  }
  // Publish this block's totals and slots before it counts itself done; the last block to
  // finish sees every other block's writes.
  __threadfence();
  __syncthreads();
  __shared__ bool last;
  if (threadIdx.x == 0) last = atomicAdd(a.blocks_done, 1u) == gridDim.x - 1;
  __syncthreads();
  if (!last) return;
  __threadfence();
  finishCompactIteration(a);
}

}  // namespace kms::cuda
