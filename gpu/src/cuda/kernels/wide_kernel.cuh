// Rows of 17 ≤ d ≤ 64 (compiled for D = 32 and 64, zero-padded), k ≤ 256, unweighted or with
// counts: the compact kernels' idea (compact_kernel.cuh) for wide rows — the cluster sums kept
// across iterations, one float of Hamerly bound per row against the run's drift — so that a row
// whose bound proves its label costs one distance and is not ranked again. After the first
// iterations nearly every row is settled (1 M rows in d = 64, k = 256: 98 % from iteration 10),
// and the iteration reads each row once instead of ranking it against every centroid.
//
// The settle test takes a thread per row: it streams the row (16-byte loads, all in flight at
// once) against its centroid's staged row and forms the CPU's exact distance on the way, which
// is the row's inertia. A row the bound does not settle is searched by the whole warp (lane l
// scores centroids l, l + 32, …, as warpSearchRow does for d ≤ 16, streaming the row from L1
// instead of holding it in registers), near ties re-ranked with the CPU's exact distances; its
// label, bound and exact distance are then the compact kernels'. Changed rows move their sums with
// 64-bit integer atomics straight into the kept totals (k·(d + 1) of them would not fit in shared
// memory next to the centroids).
//
// The iteration: this kernel, the scalars' reduction (reduceKernel), the update (updateKernel,
// growing the drift) and wideGeometryKernel (the new centroids' half gaps).
#pragma once

#include <cstdint>

#include "cuda/kernels/compact_kernel.cuh"

namespace kms::cuda {

inline constexpr int kWideMaxK = 256;

namespace wide {

/// exactDistance (the CPU's ‖x − c‖², every operation rounded on its own, in coordinate order)
/// with the row x read from global memory 16 bytes at a time when it is aligned (d = D).
template <int D>
__device__ __forceinline__ float streamedDistance(const float* __restrict__ x, int d,
                                                  const float* c) {
  if (d != D) return exactDistance<D>(x, c, d);
  float4 p[D / 4];
#pragma unroll
  for (int v = 0; v < D / 4; ++v)  // every load in flight before the first use
    p[v] = __ldg(reinterpret_cast<const float4*>(x) + v);
  float s = 0.0f;
#pragma unroll
  for (int v = 0; v < D / 4; ++v) {
    const float4 q = reinterpret_cast<const float4*>(c)[v];
    const float e0 = exact::sub(p[v].x, q.x), e1 = exact::sub(p[v].y, q.y);
    const float e2 = exact::sub(p[v].z, q.z), e3 = exact::sub(p[v].w, q.w);
    s = exact::add(s, exact::mul(e0, e0));
    s = exact::add(s, exact::mul(e1, e1));
    s = exact::add(s, exact::mul(e2, e2));
    s = exact::add(s, exact::mul(e3, e3));
  }
  return s;
}

/// The squared distances of 32 consecutive rows (D floats each, 16-byte aligned, at `x`) to
/// their centroids (lane r's row to staged row `own` of lane r), read as one coalesced block:
/// lane l's t-th 16-byte load is float4 number l + 32t of the block, so each load instruction
/// takes whole 128-byte lines (thread-per-row loads, 256 bytes apart, kept the L1 cache busy
/// with a line per lane). The F = D/4 lanes holding a row's quarters sum their parts in a
/// butterfly, and the first of them hands the row's distance (the same order every run) to the
/// row's lane. Within a few units of rounding of the CPU's exact distance: what the bound test
/// needs (its slack is far wider) and the inertia of a settled row. Warp-uniform.
template <int D>
__device__ __forceinline__ float blockDistances(const float* __restrict__ x, const float* rows,
                                                int own) {
  constexpr int R = centroidRow(D);
  constexpr int F = D / 4;  // float4 per row
  constexpr int kRowsPerLoad = 32 / F;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const float4* block = reinterpret_cast<const float4*>(x);
  float4 p[F];
#pragma unroll
  for (int t = 0; t < F; ++t)  // every load in flight before the first use
    p[t] = __ldg(block + lane + 32 * t);
  float mine = 0.0f;
#pragma unroll
  for (int t = 0; t < F; ++t) {
    const int row = t * kRowsPerLoad + lane / F;  // the row this lane's t-th load belongs to
    const int o = __shfl_sync(kFullWarp, own, row);
    const float4 c = reinterpret_cast<const float4*>(rows + o * R)[lane % F];
    float part = 0.0f;
    part = fmaf(p[t].x - c.x, p[t].x - c.x, part);
    part = fmaf(p[t].y - c.y, p[t].y - c.y, part);
    part = fmaf(p[t].z - c.z, p[t].z - c.z, part);
    part = fmaf(p[t].w - c.w, p[t].w - c.w, part);
#pragma unroll
    for (int offset = F / 2; offset > 0; offset >>= 1)
      part += __shfl_xor_sync(kFullWarp, part, offset);
#pragma unroll
    for (int g = 0; g < kRowsPerLoad; ++g) {  // group g's first lane has row t·(32/F) + g
      const float row_dist = __shfl_sync(kFullWarp, part, g * F);
      if (lane == t * kRowsPerLoad + g) mine = row_dist;
    }
  }
  return mine;
}

/// ‖c‖² − 2x·c for a staged row (D coordinates, ‖c‖² at index D) against the row x in global
/// memory (d ≤ D coordinates; the staged row is zero beyond d).
template <int D>
__device__ __forceinline__ float score(const float* __restrict__ x, int d, const float* row) {
  float s = row[D];
  if (d == D) {  // rows 16-byte aligned: vector loads
#pragma unroll
    for (int v = 0; v < D / 4; ++v) {
      const float4 p = __ldg(reinterpret_cast<const float4*>(x) + v);
      const float4 c = reinterpret_cast<const float4*>(row)[v];
      s = fmaf(-2.0f * p.x, c.x, s);
      s = fmaf(-2.0f * p.y, c.y, s);
      s = fmaf(-2.0f * p.z, c.z, s);
      s = fmaf(-2.0f * p.w, c.w, s);
    }
  } else {
    for (int c = 0; c < d; ++c)
      s = fmaf(-2.0f * __ldg(x + c), row[c], s);
  }
  return s;
}

/// The exact search of row i by the whole warp (see the top of this file); lane 0 records the
/// label, bound, inertia and sums. Warp-uniform.
template <int D, typename LabelT>
__device__ void searchWideRow(const CompactArgs<LabelT>& a, const float* rows, const float* scale,
                              float drift_down, std::size_t i, bool first, double& inertia,
                              unsigned long long& changed, unsigned long long& evaluated) {
  constexpr int R = centroidRow(D);
  const int d = a.d, k = a.k;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const float* x = a.points + i * d;
  float x_norm = 0.0f;
  for (int c = lane; c < d; c += 32)
    x_norm = fmaf(__ldg(x + c), __ldg(x + c), x_norm);
  for (int offset = 16; offset > 0; offset >>= 1)
    x_norm += __shfl_xor_sync(kFullWarp, x_norm, offset);
  x_norm = __shfl_sync(kFullWarp, x_norm, 0);  // one value for every lane
  float best = INFINITY, second = INFINITY, top = 0.0f;
  int label = 0;
  for (int j = lane; j < k; j += 32) {  // ascending: equal scores keep the lower index
    const float s = score<D>(x, d, rows + j * R);
    top = fmaxf(top, rows[j * R + D]);
    second = fminf(second, fmaxf(s, best));
    if (s < best) {
      best = s;
      label = j;
    }
  }
  warpCombineBest(best, label, second);
  top = warpMax(top);
  // Near float's range the scores overflow: exact distances alone, and no bound.
  const bool huge = !(x_norm + top < 1e36f);
  float lower = k == 1 ? INFINITY : 0.0f;  // k = 1: no other centroid
  if (k > 1) {
    const float reach = sqrtf(x_norm) + sqrtf(fmaxf(0.0f, second + x_norm));
    const float err = tieBound<D>(x_norm, rows[label * R + D], 1.01f * reach * reach);
    if (huge || !(second - best > err)) {  // too close to call: the CPU's exact distances
      float exact_dist;
      label = warpExactNearest<D>(x, rows, k, d, exact_dist);
      if (lane == 0) evaluated += k;
    }
    // Every other centroid is at least this far: the runner-up's score less its error.
    if (!huge) lower = sqrtf(fmaxf(0.0f, second + x_norm - err)) * (1.0f - kBoundSlack);
  }
  const std::uint32_t count = a.counts ? __ldg(a.counts + i) : 1u;
  // Read by lane 0 alone, which writes the label below (labels_in may be labels_out).
  const int old_label =
      first ? -1 : __shfl_sync(kFullWarp, lane == 0 ? static_cast<int>(a.labels_in[i]) : 0, 0);
  if (first || old_label != label) {  // the row's sums move, a coordinate per lane
    const std::size_t to = static_cast<std::size_t>(label) * (d + 1);
    const std::size_t from = static_cast<std::size_t>(old_label < 0 ? 0 : old_label) * (d + 1);
    const long long m = count;
    for (int c = lane; c <= d; c += 32) {
      const long long q = c < d ? m * exact::quantize(__ldg(x + c), scale[c]) : m;
      atomicAddInt64(a.totals + to + c, q);
      if (!first) atomicAddInt64(a.totals + from + c, -q);
    }
  }
  if (lane != 0) return;
  evaluated += k;
  const float dist = exactDistance<D>(x, rows + label * R, d);
  a.bounds[i] = __fadd_rd(lower, drift_down);
  inertia += static_cast<double>(dist) * count;
  if (first || old_label != label) {
    changed += count;
    a.labels_out[i] = static_cast<LabelT>(label);
  } else if (a.labels_out != a.labels_in) {
    a.labels_out[i] = static_cast<LabelT>(label);
  }
}

}  // namespace wide

/// The assignment of wide rows (see the top of this file). Block 0 also clears the scalars the
/// reduction and the update accumulate into (on streamed data every chunk's block 0 does: the
/// reduction comes after the last chunk).
template <int D, typename LabelT>
__global__ void __launch_bounds__(kCompactThreads) wideAssignKernel(CompactArgs<LabelT> a) {
  constexpr int R = centroidRow(D);
  extern __shared__ __align__(16) unsigned char shared_raw[];
  const int k = a.k, d = a.d;
  float* rows = reinterpret_cast<float*>(shared_raw);  // k × R
  float* half_gap = rows + static_cast<std::size_t>(k) * R;
  __shared__ float scale[D];
  const bool first = a.labels_in == nullptr;
  if (blockIdx.x == 0 && threadIdx.x == 0) *a.scalars = IterationScalars{};
  for (int t = threadIdx.x; t < D; t += kCompactThreads)
    scale[t] = t < d ? a.coord_scale[t] : 0.0f;
  for (int t = threadIdx.x; t < k; t += kCompactThreads)
    half_gap[t] = a.geometry[t];
  const double drift = a.update.counters->drift;
  const float drift_down = __double2float_rd(drift), drift_up = __double2float_ru(drift);
  stageCentroids<D>(rows, a.centroids_in, d, 0, k);  // ends with __syncthreads

  double inertia = 0.0;
  unsigned long long changed = 0, searched = 0, evaluated = 0;
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * kCompactThreads;
  for (std::size_t base =
           static_cast<std::size_t>(blockIdx.x) * kCompactThreads + (threadIdx.x & ~31u);
       base < a.n; base += stride) {  // warp-uniform: 32 rows, one per lane
    const std::size_t i = base + lane;
    const bool valid = i < a.n;
    bool settled = false;
    if (!first) {
      const int o = valid ? a.labels_in[i] : 0;
      const float lower = valid ? fmaxf(__fsub_rd(a.bounds[i], drift_up), half_gap[o]) : 0.0f;
      // d = D and a whole warp of rows: the warp reads its 32 rows as one coalesced block
      // (wide::blockDistances); otherwise each thread streams its own row.
      const float dist =
          d == D && base + 32 <= a.n
              ? wide::blockDistances<D>(a.points + base * D, rows, o)
              : (valid ? wide::streamedDistance<D>(a.points + i * d, d, rows + o * R) : 0.0f);
      if (valid) {
        settled = lower > 0.0f && dist * kSquaredSlack < lower * lower;
        ++evaluated;
        if (settled) {
          inertia += static_cast<double>(dist) * (a.counts ? __ldg(a.counts + i) : 1u);
          if (a.labels_out != a.labels_in) a.labels_out[i] = static_cast<LabelT>(o);
        }
      }
    }
    // The rows their bounds did not settle: searched by the whole warp, one after another.
    unsigned pending = __ballot_sync(kFullWarp, valid && !settled);
    while (pending != 0) {
      const int src = __ffs(pending) - 1;
      pending &= pending - 1;
      wide::searchWideRow<D>(a, rows, scale, drift_down, base + src, first, inertia, changed,
                             evaluated);
      if (lane == 0) ++searched;
    }
  }

  writeBlockResults(a, {inertia, changed, searched, evaluated});
}

/// Each centroid's half gap (halfGap, as computeGeometry's) into geometry[0, k): every block stages
/// all k rows, then a warp per centroid, its lanes taking the others (⌈k/8⌉ blocks).
template <int D, typename LabelT>
__global__ void __launch_bounds__(kCompactThreads)
    wideGeometryKernel(CompactArgs<LabelT> a, const float* centroids) {
  constexpr int R = centroidRow(D);
  extern __shared__ __align__(16) unsigned char shared_raw[];
  float* rows = reinterpret_cast<float*>(shared_raw);  // k × R
  const int k = a.k, d = a.d;
  stageCentroids<D>(rows, centroids, d, 0, k);  // ends with __syncthreads
  const int lane = static_cast<int>(threadIdx.x) & 31;
  const int i = static_cast<int>(blockIdx.x) * (kCompactThreads / 32) + (threadIdx.x >> 5);
  if (i >= k) return;
  const float4* ci = reinterpret_cast<const float4*>(rows + i * R);
  float nearest = INFINITY;  // squared
  for (int j = lane; j < k; j += 32) {
    if (j == i) continue;
    const float4* cj = reinterpret_cast<const float4*>(rows + j * R);
    float d2 = 0.0f;
#pragma unroll
    for (int v = 0; v < D / 4; ++v) {
      const float4 p = ci[v], q = cj[v];
      d2 = fmaf(p.x - q.x, p.x - q.x, d2);
      d2 = fmaf(p.y - q.y, p.y - q.y, d2);
      d2 = fmaf(p.z - q.z, p.z - q.z, d2);
      d2 = fmaf(p.w - q.w, p.w - q.w, d2);
    }
    nearest = fminf(nearest, d2);
  }
  nearest = warpMin(nearest);
  if (lane == 0) a.geometry[i] = halfGap(nearest, k);
}

}  // namespace kms::cuda
