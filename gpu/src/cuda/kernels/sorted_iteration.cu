// The sorted-runs iteration (sorted_iteration.cuh has the reasoning) and the labels it leaves.
#include "cuda/kernels/sorted_iteration.cuh"

#include "cuda/cuda_check.cuh"
#include "cuda/kernels/sorted_iteration_parts.cuh"

namespace kms::cuda {
namespace {

/// One iteration, by the whole block. Warps other than 0 may return before the end (without a
/// mixed run), so a caller that goes on needs a barrier first. `carried`: a later iteration of
/// the same launch — the samples, the data's extremes and totals are in `sh` already, and the
/// centroids, iteration number and previous runs the last iteration left there replace their
/// global loads (one round trip less).
__device__ void sortedIteration(const SortedArgs& a, IterationShared& sh, bool carried) {
  const int t = static_cast<int>(threadIdx.x);
  const int lane = t & 31, warp = t >> 5;
  const int k = a.k;
  const std::size_t n = a.n;
  Candidates& cand = sh.cand;

  // 1. Loads, all at once: centroids, samples, the data's extremes and totals (fixed), the
  //    previous runs; sums zeroed.
  int iteration = 0;
  if (t == 0) {
    if (carried) {
      iteration = sh.iteration + 1;
      sh.old_groups = sh.new_groups;
    } else {
      iteration = a.update.counters->iteration + 1;
      sh.total = a.prefix[n];
      sh.lowest = a.values[0];
      sh.highest = a.values[n - 1];
      sh.old_groups = a.runs_in ? a.runs_in->groups : 0;
    }
    sh.iteration = iteration;
    sh.same = 0;
    sh.old_mixed = 0;
  }
  const int exponent[1] = {a.update.coord_exp[0]};
  if (t < k) {
    if (!carried) sh.centroid[t] = a.centroids_in[t];
    sh.sum_q[t] = sh.sum_w[t] = 0;
    sh.sum_b[t][0] = sh.sum_b[t][1] = sh.sum_a[t][0] = sh.sum_a[t][1] = 0;
    sh.overflow[t] = 0;
    sh.old_run_of_label[t] = -1;
  }
  if (!carried) {
    // Every load in flight at once (a loop over the runtime count had waited for each in turn).
    constexpr int kEach = kMaxSamples / kThreads;
    float sample[kEach];
#pragma unroll
    for (int i = 0; i < kEach; ++i) {
      const int at = t + i * kThreads;
      sample[i] = at < a.sample_count ? a.samples[at] : 0.0f;
    }
#pragma unroll
    for (int i = 0; i < kEach; ++i)
      sh.samples[t + i * kThreads] = sample[i];
  }
  if (a.runs_in && t <= k) {
    sh.old_start[t] = carried ? sh.new_start[t] : a.runs_in->start[t];
    sh.old_weight[t] = carried ? sh.new_weight[t] : a.runs_in->weight_before[t];
    if (t < k) sh.old_label[t] = carried ? sh.new_label[t] : a.runs_in->label[t];
  }
  __syncthreads();

  // 2. The centroids sorted by (value, index), the candidates (the first of equal values) and
  //    their groups; meanwhile the last warp indexes the previous runs by label.
  sortCentroids(sh, k, t);
  if (a.runs_in && t >= kThreads - kSortedMaxK && t - (kThreads - kSortedMaxK) < sh.old_groups) {
    const int o = t - (kThreads - kSortedMaxK);
    const unsigned short l = sh.old_label[o];
    if (l == kMixedRun)
      atomicOr(&sh.old_mixed, 1);
    else
      sh.old_run_of_label[l] = static_cast<short>(o);
  }
  __syncthreads();
  const int G = cand.groups;

  // 3. Each boundary's position, a warp per boundary. Between the last candidate of group g − 1
  //    and the first of group g (adjacent candidates, a safe gap apart) the winner is in one of
  //    the two groups; more than a relative 2^−16 of the gap off their midpoint the nearer side
  //    wins for certain (its float distance is the smaller by far more than any rounding), so
  //    rows below mid − δ are before the boundary and rows above mid + δ after it. Those two
  //    positions come from a search among the sorted values (samples in shared memory, then one
  //    load of the rows between two samples); the rows between them, if any, take the exact
  //    test. The prefix sums at the row found follow.
  for (int g = 1 + warp; g < G; g += kWarps) {
    const float below = cand.value[cand.group_first[g] - 1];
    const float above = cand.value[cand.group_first[g]];
    const double mid = 0.5 * (static_cast<double>(below) + static_cast<double>(above));
    const double delta = (static_cast<double>(above) - static_cast<double>(below)) * 0x1p-16;
    // As floats, rounded outwards (a wider window: only more rows take the exact test).
    const float low = __double2float_rd(mid - delta), high = __double2float_ru(mid + delta);
    const Boundary b = findBoundary(a, sh.samples, cand, g, low, high, lane);
    if (lane == 0) {
      sh.bound[g] = static_cast<unsigned int>(b.at);
      sh.prefix[g] = a.prefix[b.at];
      sh.first_value[g] = b.first;  // (unused when the run is empty)
      sh.last_value[g - 1] = b.last;
    }
  }
  if (t == kThreads - 1) {
    sh.bound[0] = 0;
    sh.bound[G] = static_cast<unsigned int>(n);
    sh.prefix[0] = SortedPrefix{0, 0, 0, 0};
    sh.prefix[G] = sh.total;
    sh.first_value[0] = sh.lowest;
    sh.last_value[G - 1] = sh.highest;
  }
  __syncthreads();

  // 4. A run of one label: its sums are prefix-sum differences, its largest distances at its
  //    ends. Its runs go out for the next iteration and the labels. The changed count: run
  //    against run, or row by row where this run or an old one it overlaps is mixed.
  // Without a mixed run in this iteration or the last, warp 0 (which holds the runs) finishes
  // alone: no barrier after this one.
  const bool rare = cand.groups < cand.count || sh.old_mixed;
  if (!rare && warp != 0) return;
  unsigned long long same = 0;  // this run's rows whose label stayed (run against run)
  bool rows = false;
  if (t < G) {
    const std::size_t from = sh.bound[t], to = sh.bound[t + 1];
    const bool single = cand.group_first[t + 1] - cand.group_first[t] == 1;
    const unsigned short label = single ? cand.index[cand.group_first[t]] : kMixedRun;
    const SortedPrefix& p0 = sh.prefix[t];
    const SortedPrefix& p1 = sh.prefix[t + 1];
    if (single) {
      const int j = label;
      sh.sum_q[j] = p1.q - p0.q;
      sh.sum_w[j] = p1.w - p0.w;
      store128(sh.sum_b[j], p1.b - p0.b);
      store128(sh.sum_a[j], p1.a - p0.a);
      const float c = sh.centroid[j];
      if (from < to && (overflows(sh.first_value[t], c) || overflows(sh.last_value[t], c)))
        sh.overflow[j] = 1;
    }
    a.runs_out->start[t] = static_cast<unsigned int>(from);
    a.runs_out->weight_before[t] = p0.w;
    a.runs_out->label[t] = label;
    sh.new_start[t] = static_cast<unsigned int>(from);
    sh.new_weight[t] = p0.w;
    sh.new_label[t] = label;
    rows = !single;
    if (a.runs_in && sh.old_mixed && !rows && from < to)
      for (int o = 0; o < sh.old_groups && !rows; ++o)
        rows = sh.old_label[o] == kMixedRun && sh.old_start[o] < to && sh.old_start[o + 1] > from;
    sh.needs_rows[t] = rows ? 1 : 0;
    if (a.runs_in && !rows && from < to) {
      const int o = sh.old_run_of_label[label];
      if (o >= 0) {  // the overlap of [from, to) with the old run, weighed by its prefix sums
        const bool old_first = sh.old_start[o] > from;
        const bool old_last = sh.old_start[o + 1] < to;
        const std::size_t lo = old_first ? sh.old_start[o] : from;
        const std::size_t hi = old_last ? sh.old_start[o + 1] : to;
        if (lo < hi) {
          const long long w_lo = old_first ? sh.old_weight[o] : p0.w;
          const long long w_hi = old_last ? sh.old_weight[o + 1] : p1.w;
          same = static_cast<unsigned long long>(w_hi - w_lo);
        }
      }
    }
  }
  if (warp == 0) {  // the runs' warp: one shared atomic
    for (int offset = 16; offset > 0; offset >>= 1)
      same += __shfl_xor_sync(kFullWarp, same, offset);
    if (lane == 0 && same) atomicAdd(&sh.same, same);
  }
  if (t == 0) {
    a.runs_out->start[G] = static_cast<unsigned int>(n);
    a.runs_out->weight_before[G] = sh.total.w;
    a.runs_out->groups = G;
    sh.new_start[G] = static_cast<unsigned int>(n);
    sh.new_weight[G] = sh.total.w;
    sh.new_groups = G;
  }

  // 5. The rare rows: mixed runs, one by one (labels, sums), and the changed count where a run
  //    of either iteration is mixed.
  if (rare) {
    __syncthreads();
    for (int g = 0; g < G; ++g) {
      if (!sh.needs_rows[g]) continue;
      const bool mixed = cand.group_first[g + 1] - cand.group_first[g] > 1;
      const unsigned short run_label = mixed ? kMixedRun : cand.index[cand.group_first[g]];
      for (std::size_t p = sh.bound[g] + t; p < sh.bound[g + 1]; p += kThreads) {
        const SortedPrefix before = a.prefix[p], after = a.prefix[p + 1];
        const long long w = after.w - before.w;
        unsigned short label = run_label;
        if (mixed) {
          const float x = a.values[p];
          label = cand.index[winnerOf(cand, x)];
          a.mixed_out[p] = label;
          atomicAdd(reinterpret_cast<unsigned long long*>(&sh.sum_q[label]),
                    static_cast<unsigned long long>(after.q - before.q));
          atomicAdd(reinterpret_cast<unsigned long long*>(&sh.sum_w[label]),
                    static_cast<unsigned long long>(w));
          atomicAdd128(sh.sum_b[label], after.b - before.b);
          atomicAdd128(sh.sum_a[label], after.a - before.a);
          if (overflows(x, sh.centroid[label])) sh.overflow[label] = 1;
        }
        if (a.runs_in) {
          const int o = runAt(sh.old_start, sh.old_groups, p);
          const unsigned short old = sh.old_label[o] == kMixedRun ? a.mixed_in[p] : sh.old_label[o];
          if (old == label) atomicAdd(&sh.same, static_cast<unsigned long long>(w));
        }
      }
    }
    __syncthreads();
  } else {
    __syncwarp();
  }

  // 6. The update (the compact kernels' arithmetic, so the CPU's centroids bit for bit), the
  //    inertia, and the report.
  CompactArgs<std::uint8_t> ca;
  ca.d = 1;
  ca.k = k;
  ca.centroids_in = a.centroids_in;
  ca.centroids_out = a.centroids_out;
  ca.empty_flags = a.empty_flags;
  ca.scalars = a.scalars;
  ca.report = a.report;
  ca.update = a.update;
  UpdateTotals mine;
  float fresh = 0.0f;
  if (t < k) {
    CentroidInputs<1> in;
    in.sums[0] = sh.sum_q[t];
    in.weight = sh.sum_w[t];
    in.old[0] = sh.centroid[t];
    const CentroidUpdate<1> u = updateCentroid<1>(ca, t, in, exponent);
    fresh = u.fresh[0];
    mine.shift = u.shift;
    mine.drift_shift = u.drift_shift;
    mine.empty = u.empty;
    // The CPU adds each row's float distance: one that overflows makes the inertia ∞.
    mine.work.inertia =
        sh.overflow[t] ? INFINITY
                       : clusterInertia(load128(sh.sum_a[t]), load128(sh.sum_b[t]), sh.sum_w[t],
                                        sh.centroid[t], a.inertia_exp, a.inertia_bits);
  }
  // Warp 0 reduces by butterflies: a fixed order, so the inertia is the same on every run.
  if (warp == 0) {
    for (int offset = 16; offset > 0; offset >>= 1) {
      mine.work.inertia += __shfl_xor_sync(kFullWarp, mine.work.inertia, offset);
      mine.shift = fmaxf(mine.shift, __shfl_xor_sync(kFullWarp, mine.shift, offset));
      mine.drift_shift =
          fmaxf(mine.drift_shift, __shfl_xor_sync(kFullWarp, mine.drift_shift, offset));
      mine.empty += __shfl_xor_sync(kFullWarp, mine.empty, offset);
    }
  }
  if (t == 0) {
    UpdateTotals total = mine;
    total.work.changed = static_cast<unsigned long long>(sh.total.w) - (a.runs_in ? sh.same : 0ull);
    sh.converged = reportUpdate(ca, total, iteration, 0.0);
    sh.empty = total.empty;
  }
  // The next iteration of the launch starts from these centroids (read above by this thread
  // only since the last barrier: the inertia).
  if (t < k) sh.centroid[t] = fresh;
}

__global__ void __launch_bounds__(kThreads) sortedIterationKernel(SortedArgs a) {
  __shared__ IterationShared sh;
  sortedIteration(a, sh, false);
}

/// Up to b.count iterations in one launch: iteration i runs on the buffers step() would give it
/// (the halves alternate), writes its report to b.reports[i], and the loop ends after one that
/// converges (unless b.stop_on_converged is off: benchmarks) or (b.stop_on_empty) leaves a
/// cluster empty — the host re-seeds then. The global state one iteration leaves (centroids,
/// runs, mixed labels, counters) is read by the next after a barrier: the block's own writes,
/// with ordinary (coherent) loads.
__global__ void __launch_bounds__(kThreads) sortedIterationsKernel(SortedArgs a, SortedLoop b) {
  __shared__ IterationShared sh;
  int i = 0;
  for (; i < b.count; ++i) {
    const int in = i & 1, out = in ^ 1;
    SortedArgs it = a;
    it.centroids_in = b.centroids[in];
    it.centroids_out = b.centroids[out];
    it.runs_in = i == 0 ? a.runs_in : b.runs[in];
    it.runs_out = b.runs[out];
    it.mixed_in = b.mixed[in];
    it.mixed_out = b.mixed[out];
    it.report = b.reports + i;
    sortedIteration(it, sh, i > 0);
    __syncthreads();
    if ((b.stop_on_converged && sh.converged) || (b.stop_on_empty && sh.empty > 0)) {
      ++i;
      break;
    }
  }
  if (threadIdx.x == 0) *b.done = i;
}

constexpr int kLabelThreads = 256;

template <typename LabelT>
__global__ void __launch_bounds__(kLabelThreads)
    sortedLabelsKernel(const SortedRunState* runs, const unsigned short* mixed,
                       const std::uint32_t* origin, std::size_t n, LabelT* labels) {
  __shared__ unsigned int start[kSortedMaxK + 1];
  __shared__ unsigned short label[kSortedMaxK];
  const int groups = runs->groups;
  for (int g = threadIdx.x; g <= groups; g += blockDim.x) {
    start[g] = runs->start[g];
    if (g < groups) label[g] = runs->label[g];
  }
  __syncthreads();
  for (std::size_t p = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x; p < n;
       p += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    const int g = runAt(start, groups, p);
    const unsigned short l = label[g] == kMixedRun ? mixed[p] : label[g];
    labels[origin[p]] = static_cast<LabelT>(l);
  }
}

}  // namespace

void launchSortedIteration(const SortedArgs& a, cudaStream_t stream) {
  sortedIterationKernel<<<1, kThreads, 0, stream>>>(a);
  KMS_CHECK_LAUNCH();
}

void launchSortedIterations(const SortedArgs& a, const SortedLoop& loop, cudaStream_t stream) {
  sortedIterationsKernel<<<1, kThreads, 0, stream>>>(a, loop);
  KMS_CHECK_LAUNCH();
}

void loadSortedKernels() {
  cudaFuncAttributes attributes;
  KMS_CUDA_CHECK(cudaFuncGetAttributes(&attributes, sortedIterationKernel));
  KMS_CUDA_CHECK(cudaFuncGetAttributes(&attributes, sortedIterationsKernel));
}

void launchSortedLabels(const SortedRunState* runs, const unsigned short* mixed,
                        const std::uint32_t* origin, std::size_t n, void* labels, int label_bytes,
                        cudaStream_t stream) {
  const std::size_t wanted = (n + kLabelThreads - 1) / kLabelThreads;
  const unsigned blocks = static_cast<unsigned>(wanted < 4096 ? wanted : 4096);
  if (label_bytes == 1)
    sortedLabelsKernel<<<blocks, kLabelThreads, 0, stream>>>(runs, mixed, origin, n,
                                                             static_cast<std::uint8_t*>(labels));
  else
    sortedLabelsKernel<<<blocks, kLabelThreads, 0, stream>>>(runs, mixed, origin, n,
                                                             static_cast<std::uint16_t*>(labels));
  KMS_CHECK_LAUNCH();
}

}  // namespace kms::cuda
