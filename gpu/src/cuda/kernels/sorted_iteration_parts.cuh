// The sorted-runs iteration's parts (sorted_iteration.cu includes this once): its constants and
// shared memory, the exact searches for a row's winning centroid and each group boundary's row,
// the exact inertia from moments, and the centroids' sorting and grouping. The reasoning is in
// sorted_iteration.cuh.
#pragma once

#include "common/exact_math.h"
#include "cuda/kernels/assign_common.cuh"
#include "cuda/kernels/compact_update.cuh"
#include "cuda/kernels/sorted_iteration.cuh"

namespace kms::cuda {
namespace {

constexpr int kThreads = 512;
constexpr int kWarps = kThreads / 32;
constexpr int kMaxSamples = SortedIndex::kMaxSamples;
constexpr int kPerLane = 8;  ///< rows a lane loads at a time: 256, a million rows' samples apart

/// The centroids in sorted order and their groups (shared memory).
struct Candidates {
  float value[kSortedMaxK];  ///< ascending; distinct
  unsigned short index[kSortedMaxK];
  unsigned char group[kSortedMaxK];
  short group_first[kSortedMaxK + 1];  ///< first candidate of each group; [groups] = count
  int count;
  int groups;
};

/// The largest distance from a row to a centroid below which the runs hold (sorted_iteration.cuh)
/// and the gap that makes two candidates safe at that reach; `tame` false: none is.
struct SafeGap {
  double gap;
  bool tame;
};

__device__ __forceinline__ SafeGap safeGap(float lowest_row, float highest_row, float lowest_c,
                                           float highest_c) {
  const double reach = fmax(fabs(static_cast<double>(highest_row) - lowest_c),
                            fabs(static_cast<double>(highest_c) - lowest_row));
  return {fmax(reach * 0x1p-17, 0x1p-60), reach < 0x1p60};
}

/// The nearest of candidates [first, last) to x by the CPU's float distance, the lowest index
/// among equal distances (its position in `c`).
__device__ __forceinline__ int nearestAmong(const Candidates& c, float x, int first, int last) {
  int best = first;
  float best_dist = exact::mul(exact::sub(x, c.value[best]), exact::sub(x, c.value[best]));
  for (int j = best + 1; j < last; ++j) {
    const float t = exact::sub(x, c.value[j]);
    const float dist = exact::mul(t, t);
    if (dist < best_dist || (dist == best_dist && c.index[j] < c.index[best])) {
      best_dist = dist;
      best = j;
    }
  }
  return best;
}

/// The winning candidate (its position in `c`) for a row at x: the CPU's nearest centroid — the
/// lowest index among equal distances — found among the groups of the candidates just below and
/// just above x (sorted_iteration.cuh: every other candidate is strictly farther).
__device__ __forceinline__ int winnerOf(const Candidates& c, float x) {
  int lo = 0, hi = c.count;
  while (lo < hi) {  // candidates ≤ x
    const int mid = (lo + hi) >> 1;
    if (c.value[mid] <= x)
      lo = mid + 1;
    else
      hi = mid;
  }
  const int below = c.group[lo > 0 ? lo - 1 : 0];
  const int above = c.group[lo < c.count ? lo : c.count - 1];
  return nearestAmong(c, x, c.group_first[below], c.group_first[above + 1]);
}

__device__ __forceinline__ bool overflows(float x, float c) {
  const float t = exact::sub(x, c);
  return isinf(exact::mul(t, t));
}

/// The run of `start` (groups + 1 entries) holding sorted position p: the last group starting at
/// or before it.
__device__ __forceinline__ int runAt(const unsigned int* start, int groups, std::size_t p) {
  int lo = 0, hi = groups;  // first group starting after p
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (start[mid] <= p)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo - 1;
}

/// a += v modulo 2^128 in two 64-bit shared words, by atomics (order-independent, so exact).
__device__ __forceinline__ void atomicAdd128(unsigned long long* word, __int128 v) {
  const auto bits = static_cast<unsigned __int128>(v);
  const auto low = static_cast<unsigned long long>(bits);
  const auto high = static_cast<unsigned long long>(bits >> 64);
  const unsigned long long before = atomicAdd(word, low);
  atomicAdd(word + 1, high + (before + low < before ? 1ull : 0ull));
}

__device__ __forceinline__ void store128(unsigned long long* word, __int128 v) {
  const auto bits = static_cast<unsigned __int128>(v);
  word[0] = static_cast<unsigned long long>(bits);
  word[1] = static_cast<unsigned long long>(bits >> 64);
}

__device__ __forceinline__ __int128 load128(const unsigned long long* word) {
  return static_cast<__int128>((static_cast<unsigned __int128>(word[1]) << 64) | word[0]);
}

__device__ __forceinline__ double toDouble(__int128 v) {
  const bool negative = v < 0;
  const auto m = static_cast<unsigned __int128>(negative ? -v : v);
  const double high = __ull2double_rn(static_cast<unsigned long long>(m >> 64));
  const double r = __dadd_rn(__dmul_rn(high, 18446744073709551616.0),
                             __ull2double_rn(static_cast<unsigned long long>(m)));
  return negative ? -r : r;
}

/// Σ w·(x − c)² of a cluster from its moments on the inertia grid (A = Σ w·qᵢ², B = Σ w·qᵢ,
/// W = Σ w): with M the grid point nearest c·2^e (|M| ≤ 2^bits: a centroid beyond the grid —
/// a given start — takes the grid's end, so that every qᵢ − M has one sign) and f = c·2^e − M,
/// Σ w·(qᵢ − M)² is computed exactly in 128 bits, then corrected by f: Σ w·(qᵢ − M − f)². Either
/// the correction is small (|f| ≤ 1/2) or all three terms are ≥ 0: nothing cancels.
__device__ double clusterInertia(__int128 A, __int128 B, long long W, float c, int exp, int bits) {
  if (W == 0) return 0.0;
  const double m = __dmul_rn(static_cast<double>(c), scalbn(1.0, exp));  // exact
  const double edge = scalbn(1.0, bits);
  const long long M = fabs(m) < edge ? __double2ll_rn(m) : (m > 0 ? 1LL : -1LL) << bits;
  const double f = m - static_cast<double>(M);  // exact unless c lies far beyond the grid
  const __int128 mw = static_cast<__int128>(M) * W;
  const __int128 E = A - 2 * static_cast<__int128>(M) * B + static_cast<__int128>(M) * mw;
  const double sum = toDouble(E) - 2.0 * f * toDouble(B - mw) + f * f * static_cast<double>(W);
  return fmax(0.0, sum) * scalbn(1.0, -2 * exp);
}

/// The first sample whose value is ≥ v (`inclusive`) or > v (sample_count: none), for a whole
/// warp: a search among the samples (shared memory) 32 at a time.
__device__ int firstSamplePast(const SortedArgs& a, const float* samples, float v, bool inclusive,
                               int lane) {
  const auto past = [&](float x) { return inclusive ? x >= v : x > v; };
  int lo = 0, len = a.sample_count;  // the first sample past v is in [lo, lo + len]
  while (len > 32) {
    const int step = (len + 31) / 32;
    const int probe = lo + (lane + 1) * step - 1;
    const unsigned ballot = __ballot_sync(kFullWarp, probe >= lo + len || past(samples[probe]));
    if (!ballot) return lo + len;
    const int first = __ffs(ballot) - 1;
    const int end = min(lo + (first + 1) * step - 1, lo + len);
    lo += first * step;
    len = end - lo;
  }
  if (len > 0) {
    const unsigned ballot = __ballot_sync(kFullWarp, lane < len && past(samples[lo + lane]));
    lo += ballot ? __ffs(ballot) - 1 : len;
  }
  return lo;
}

/// The first sorted position whose value is ≥ v (`inclusive`) or > v, for a whole warp: the
/// samples, then the rows between two samples loaded at once, kPerLane a lane, and compared.
__device__ std::size_t firstPast(const SortedArgs& a, const float* samples, float v, bool inclusive,
                                 int lane) {
  const auto past = [&](float x) { return inclusive ? x >= v : x > v; };
  const int lo = firstSamplePast(a, samples, v, inclusive, lane);
  if (lo == 0) return 0;
  // Sample lo − 1 is not past v, sample lo (or the end) is: the answer is in between.
  const std::size_t from = (static_cast<std::size_t>(lo) - 1) * a.sample_step + 1;
  const std::size_t to = lo < a.sample_count ? static_cast<std::size_t>(lo) * a.sample_step : a.n;
  for (std::size_t p0 = from; p0 < to; p0 += 32 * kPerLane) {
    float x[kPerLane];
#pragma unroll
    for (int i = 0; i < kPerLane; ++i) {
      const std::size_t p = p0 + 32 * i + lane;
      x[i] = p < to ? a.values[p] : 0.0f;
    }
#pragma unroll
    for (int i = 0; i < kPerLane; ++i) {
      const std::size_t p = p0 + 32 * i + lane;
      const unsigned ballot = __ballot_sync(kFullWarp, p < to && past(x[i]));
      if (ballot) return p0 + 32 * i + (__ffs(ballot) - 1);
    }
  }
  return to;
}

/// The winning candidate for a row between the last candidate of group g − 1 and the first of
/// group g: one of the two groups' (winnerOf without its search).
__device__ __forceinline__ int winnerBetween(const Candidates& c, float x, int g) {
  return nearestAmong(c, x, c.group_first[g - 1], c.group_first[g + 1]);
}

/// Boundary g, its row and the values either side of it.
struct Boundary {
  std::size_t at;
  float first;  ///< the value at `at` (the first row of run g), if at < n
  float last;   ///< the value at at − 1 (the last row of run g − 1), if at > 0
};

/// x[i] for a warp-uniform i < kPerLane, by selects (an indexed register array would go to local
/// memory).
__device__ __forceinline__ float pick(const float (&x)[kPerLane], int i) {
  float v = x[0];
#pragma unroll
  for (int j = 1; j < kPerLane; ++j)
    v = i == j ? x[j] : v;
  return v;
}

/// Boundary g (a whole warp) given the window [low, high] outside which no row's side is in
/// doubt: rows below low are before it, rows above high after it, rows between take the exact
/// test. Usually all of it in one load of the kPerLane·32 rows from the sample before low, kept
/// in registers — lane l holds kPerLane consecutive rows from l·kPerLane on, so that the rows
/// below low (and up to high) are counted in each lane and summed across the warp, the sorted
/// order giving the positions; where the window runs past them (more than that many rows in it,
/// or samples further apart), searched and loaded again.
__device__ Boundary findBoundary(const SortedArgs& a, const float* samples, const Candidates& cand,
                                 int g, float low, float high, int lane) {
  const std::size_t n = a.n;
  const int s = firstSamplePast(a, samples, low, true, lane);
  const std::size_t from = s == 0 ? 0 : (static_cast<std::size_t>(s) - 1) * a.sample_step + 1;
  const std::size_t end = min(from + 32 * kPerLane, n);
  const std::size_t mine = from + static_cast<std::size_t>(lane) * kPerLane;  // this lane's first
  float x[kPerLane];
#pragma unroll
  for (int i = 0; i < kPerLane; ++i)
    x[i] = mine + i < end ? a.values[mine + i] : INFINITY;
  // The first rows ≥ low and > high in the chunk (or its end): the rows before them, counted.
  int below_low = 0, up_to_high = 0;
#pragma unroll
  for (int i = 0; i < kPerLane; ++i) {
    below_low += x[i] < low ? 1 : 0;
    up_to_high += x[i] <= high ? 1 : 0;
  }
  const std::size_t lo = from + warpSum(below_low);
  const std::size_t hi = from + warpSum(up_to_high);
  const bool complete = hi < end || end == n;  // else the window runs past the chunk
  Boundary b;
  if (complete) {
    b.at = hi;
    if (lo < hi) {  // the rows in the window: the first one won by group g, by the exact test
      int first = kPerLane;
#pragma unroll
      for (int i = kPerLane - 1; i >= 0; --i)
        if (mine + i >= lo && mine + i < hi && cand.group[winnerBetween(cand, x[i], g)] >= g)
          first = i;
      const unsigned found = __ballot_sync(kFullWarp, first < kPerLane);
      if (found) {
        const int owner = __ffs(found) - 1;
        b.at = from + static_cast<std::size_t>(owner) * kPerLane +
               __shfl_sync(kFullWarp, first, owner);
      }
    }
    // The values either side from the registers that hold them (else loaded: rare).
    const std::size_t last_at = b.at > 0 ? b.at - 1 : 0;
    const bool first_here = b.at >= from && b.at < end;
    const bool last_here = last_at >= from && last_at < end;
    const int first_off = first_here ? static_cast<int>(b.at - from) : 0;
    const int last_off = last_here ? static_cast<int>(last_at - from) : 0;
    const float first = __shfl_sync(kFullWarp, pick(x, first_off % kPerLane), first_off / kPerLane);
    const float last = __shfl_sync(kFullWarp, pick(x, last_off % kPerLane), last_off / kPerLane);
    b.first = first_here ? first : a.values[b.at < n ? b.at : n - 1];
    b.last = last_here ? last : a.values[last_at];
    return b;
  }
  // The window runs past the chunk: search both ends, then test the rows between them.
  const std::size_t window_lo = firstPast(a, samples, low, true, lane);
  const std::size_t window_hi = firstPast(a, samples, high, false, lane);
  b.at = window_hi;
  for (std::size_t p0 = window_lo; p0 < window_hi; p0 += 32) {
    const std::size_t p = p0 + lane;
    const bool past = p < window_hi && cand.group[winnerBetween(cand, a.values[p], g)] >= g;
    const unsigned ballot = __ballot_sync(kFullWarp, past);
    if (ballot) {
      b.at = p0 + (__ffs(ballot) - 1);
      break;
    }
  }
  b.first = a.values[b.at < n ? b.at : n - 1];
  b.last = a.values[b.at > 0 ? b.at - 1 : 0];
  return b;
}

struct IterationShared {
  float samples[kMaxSamples];
  float centroid[kSortedMaxK];
  Candidates cand;
  // The sort's scratch: all k in (value, index) order.
  float sorted_value[kSortedMaxK];
  unsigned short sorted_index[kSortedMaxK];
  unsigned char sorted_candidate[kSortedMaxK];
  // Boundaries: B_g, the prefix sums there, the first and last value of each run.
  unsigned int bound[kSortedMaxK + 1];
  SortedPrefix prefix[kSortedMaxK + 1];
  float first_value[kSortedMaxK], last_value[kSortedMaxK];
  // Per cluster.
  long long sum_q[kSortedMaxK], sum_w[kSortedMaxK];
  unsigned long long sum_b[kSortedMaxK][2], sum_a[kSortedMaxK][2];
  unsigned char overflow[kSortedMaxK];
  // The previous iteration's runs.
  unsigned int old_start[kSortedMaxK + 1];
  long long old_weight[kSortedMaxK + 1];
  unsigned short old_label[kSortedMaxK];
  short old_run_of_label[kSortedMaxK];
  unsigned char needs_rows[kSortedMaxK];
  int old_groups;
  int old_mixed;
  float lowest, highest;  ///< the data's extremes
  unsigned long long same;
  SortedPrefix total;
  // Carried to the next iteration of the same launch (sortedIterationsKernel): its number,
  // these runs (the next one's old runs), and whether the loop ends here. The new centroids
  // go to `centroid` itself at the very end.
  int iteration;
  int new_groups;
  unsigned int new_start[kSortedMaxK + 1];
  long long new_weight[kSortedMaxK + 1];
  unsigned short new_label[kSortedMaxK];
  int converged, empty;
};

/// Sorting and grouping (all threads call it: a barrier). Warp w ranks centroids w,
/// w + kWarps, … by one ballot over all of them; then warp 0 picks the candidates and groups by
/// ballots.
__device__ void sortCentroids(IterationShared& sh, int k, int t) {
  Candidates& cand = sh.cand;
  const int lane = t & 31, warp = t >> 5;
  const float mine = lane < k ? sh.centroid[lane] : 0.0f;
  for (int j = warp; j < k; j += kWarps) {
    const float v = sh.centroid[j];
    const unsigned lower =
        __ballot_sync(kFullWarp, lane < k && (mine < v || (mine == v && lane < j)));
    const unsigned equal_before = __ballot_sync(kFullWarp, lane < k && mine == v && lane < j);
    if (lane == 0) {
      const int rank = __popc(lower);
      sh.sorted_value[rank] = v;
      sh.sorted_index[rank] = static_cast<unsigned short>(j);
      sh.sorted_candidate[rank] = equal_before == 0 ? 1 : 0;
    }
  }
  __syncthreads();
  if (warp != 0) return;
  const bool candidate = lane < k && sh.sorted_candidate[lane];
  const unsigned candidates = __ballot_sync(kFullWarp, candidate);
  const int m = __popc(candidates);
  if (candidate) {
    const int at = __popc(candidates & ((1u << lane) - 1u));
    cand.value[at] = sh.sorted_value[lane];
    cand.index[at] = sh.sorted_index[lane];
  }
  __syncwarp();
  const float c = lane < m ? cand.value[lane] : 0.0f;
  const float before = lane > 0 && lane < m ? cand.value[lane - 1] : 0.0f;
  const SafeGap safe = safeGap(sh.lowest, sh.highest, cand.value[0], cand.value[m - 1]);
  const bool starts =
      lane < m && (lane == 0 ||
                   (safe.tame && static_cast<double>(c) - static_cast<double>(before) >= safe.gap));
  const unsigned starts_mask = __ballot_sync(kFullWarp, starts);
  const int group = __popc(starts_mask & ((2u << lane) - 1u)) - 1;
  if (lane < m) cand.group[lane] = static_cast<unsigned char>(group);
  if (starts) cand.group_first[group] = static_cast<short>(lane);
  if (lane == 0) {
    cand.count = m;
    cand.groups = __popc(starts_mask);
    cand.group_first[__popc(starts_mask)] = static_cast<short>(m);
  }
}

}  // namespace
}  // namespace kms::cuda
