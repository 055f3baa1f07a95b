#include "cuda/families/high_dim_tensor.cuh"

#include <algorithm>
#include <type_traits>

#include "cuda/cuda_check.cuh"
#include "cuda/families/assign_kernels.cuh"
#include "cuda/families/high_dim.cuh"
#include "cuda/families/planner.cuh"
#include "cuda/kernels/high_dim_row_kernels.cuh"
#include "cuda/kernels/high_dim_tensor_kernel.cuh"

namespace kms::cuda {
namespace {

/// The family's device counters: the largest ‖c‖² (float bits), the listed, active and forwarded
/// rows' counts.
constexpr int kCounters = 4;

constexpr int kFastTiles = 2;   // m-tiles a warp in the one-term passes: 64 rows a block
constexpr int kSplitTiles = 2;  // and in the three-term pass: 64 rows a block

/// Sets the kernel's dynamic shared memory and returns its blocks a multiprocessor.
template <typename Kernel>
int prepare(Kernel kernel, std::size_t shared_bytes) {
  KMS_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                      static_cast<int>(shared_bytes)));
  int per_sm = 0;
  KMS_CUDA_CHECK(
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, kHdThreads, shared_bytes));
  return std::max(per_sm, 1);
}

}  // namespace

bool HighDimTensorFamily::fits(const FamilyPlanInput& in) {
  // 4 KB stay for the kernels' static shared memory (the tile's row indices, the collect pass's
  // lists, the split pass's searches, the block's counts: under 3 KB).
  return in.tuning.high_dim_rows && in.tuning.tensor_cores && in.limits.tensor_cores &&
         in.data.d > 64 && !in.data.summary.fixed.counted && !in.data.points.onHost() &&
         hdSharedBytes(kFastTiles) + 4096 <= in.limits.max_shared_per_block;
}

HighDimTensorFamily::HighDimTensorFamily(const FamilyPlanInput& in) {
  half_copies_ = in.tuning.half_copies;
  plan_.threads = kHdThreads;
  plan_.shared_bytes = hdSharedBytes(kFastTiles);
  withLabelBytes(in.label_bytes, [&](auto label_type) {
    using LabelT = decltype(label_type);
    const int per_sm = prepare(highDimTensorKernel<kFastTiles, HdPass::kRank, LabelT, true>,
                               hdSharedBytes(kFastTiles));
    prepare(highDimTensorKernel<kFastTiles, HdPass::kCollect, LabelT, true>,
            hdSharedBytes(kFastTiles));
    prepare(highDimTensorKernel<kFastTiles, HdPass::kRank, LabelT>, hdSharedBytes(kFastTiles));
    prepare(highDimTensorKernel<kFastTiles, HdPass::kCollect, LabelT>, hdSharedBytes(kFastTiles));
    prepare(highDimTensorKernel<kSplitTiles, HdPass::kSplit, LabelT>, hdSharedBytes(kSplitTiles));
    const std::size_t tiles = (in.data.n + hdBlockRows(kFastTiles) - 1) / hdBlockRows(kFastTiles);
    plan_.blocks = static_cast<int>(std::max<std::size_t>(
        1, std::min<std::size_t>(tiles,
                                 static_cast<std::size_t>(in.limits.multiprocessors) * per_sm)));
  });
  plan_.sum_threads = 256;
  plan_.sum_blocks = in.limits.multiprocessors * 4;
  // The settle test reads each row once: as many blocks as stay resident together.
  withLabelBytes(in.label_bytes, [&](auto label_type) {
    int per_sm = 0;
    KMS_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &per_sm, highDimSettleKernel<decltype(label_type)>, kHdSettleThreads, 0));
    const std::size_t resident =
        static_cast<std::size_t>(in.limits.multiprocessors) * std::max(per_sm, 1);
    settle_blocks_ = static_cast<int>(std::max<std::size_t>(
        1, std::min<std::size_t>((in.data.n + kHdSettleThreads - 1) / kHdSettleThreads, resident)));
  });
}

std::size_t HighDimTensorFamily::runBytes(const PlacedData& data, int k) const {
  return static_cast<std::size_t>(k) * sizeof(float) + kCounters * sizeof(unsigned) +
         data.n * (3 * sizeof(unsigned) + 3 * sizeof(float));
}

void HighDimTensorFamily::allocate(const PlacedData& data, int k) {
  label_bytes_ = k <= 256 ? 1 : 2;
  norms_.resize(k);
  counters_.resize(kCounters);
  active_.resize(data.n);
  listed_.resize(data.n);
  listed_threshold_.resize(data.n);
  forwarded_.resize(data.n);
  row_inertia_.resize(data.n);
  bounds_.resize(data.n);
  // The FP16 copies: rounded to nearest, they halve the one-term bound against the FP32 words
  // read as TF32 (and so the rows left to the collect pass: about 43 % of standard normal rows
  // at 2 M × 128, k = 1,024 before), and take half the instructions and copies a coordinate.
  // They are optional: taken only with a gigabyte to spare, so that data that fit before still
  // fit.
  half_pitch_ = (data.d + 7) & ~7;
  const std::size_t halves = (data.n + static_cast<std::size_t>(k)) * half_pitch_;
  std::size_t free_bytes = 0, total_bytes = 0;
  KMS_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total_bytes));
  // Copies kept from an earlier run count as free: they are resized in place.
  free_bytes += half_points_.bytes() + half_centroids_.bytes();
  const bool room = half_copies_ && free_bytes > halves * sizeof(__half) + (std::size_t(1) << 30) &&
                    half_points_.tryResize(data.n * half_pitch_) &&
                    half_centroids_.tryResize(static_cast<std::size_t>(k) * half_pitch_) &&
                    rows_largest_.tryResize(1);
  if (!room) {
    half_points_.release();
    half_centroids_.release();
    rows_largest_.release();
  }
}

void HighDimTensorFamily::enqueue(PlacedData& data, const RunBuffers& run, Part part,
                                  const Launch& launch) {
  withLabelBytes(label_bytes_, [&](auto label_type) {
    enqueueAs<decltype(label_type)>(data, run, part, launch);
  });
}

template <typename LabelT>
void HighDimTensorFamily::enqueueAs(PlacedData& data, const RunBuffers& run, Part part,
                                    const Launch& launch) {
  const cudaStream_t s = launch.stream;
  IterationEvents& events = *launch.events;
  const int k = run.k, d = data.d;
  if (part == Part::kUpdate) return enqueueUpdateFrom(run.global_totals, run, part, launch);
  AssignArgs<LabelT> a = assignArgsFor<LabelT>(data, run);  // counts: never (fits())
  a.clear = reinterpret_cast<unsigned long long*>(run.scalars);
  a.clear_words = sizeof(IterationScalars) / sizeof(unsigned long long);
  a.clear_totals = reinterpret_cast<unsigned long long*>(run.totals);
  // The sums are kept across iterations: zeroed for the run's first iteration only.
  a.clear_totals_words = run.in_half < 0 ? static_cast<std::size_t>(k) * (d + 1) : 0;
  const bool first = a.labels_in == nullptr;
  HighDimTensorExtra x;
  x.norms = norms_.get();
  x.largest_norm_bits = counters_.get();
  x.listed = listed_.get();
  x.listed_count = counters_.get() + 1;
  x.listed_threshold = listed_threshold_.get();
  x.forwarded = forwarded_.get();
  x.forwarded_count = counters_.get() + 3;
  x.row_inertia = row_inertia_.get();
  x.bounds = bounds_.get();
  x.drift = &run.update.counters->drift;
  x.block_work = run.block_work;

  events.start.recordInGraph(s);
  KMS_CUDA_CHECK(cudaMemsetAsync(counters_.get(), 0, kCounters * sizeof(unsigned), s));
  KMS_CUDA_CHECK(
      cudaMemsetAsync(run.block_work, 0,
                      2 * static_cast<std::size_t>(plan_.blocks) * sizeof(unsigned long long), s));
  if (!first) {  // the rows whose bounds settle them keep their labels; the rest are active
    highDimSettleKernel<LabelT><<<settle_blocks_, kHdSettleThreads, 0, s>>>(
        a, x, active_.get(), counters_.get() + 2, plan_.blocks);
    KMS_CHECK_LAUNCH();
    x.active = active_.get();
    x.active_count = counters_.get() + 2;
  }
  launchCentroidNorms(a.centroids, k, d, norms_.get(), counters_.get(), s);
  const bool halves = half_points_.get() != nullptr;
  if (halves) {
    // The rows once a run (they do not change), scaled by their largest magnitude; the
    // centroids every iteration, scaled by their largest norm (launchCentroidNorms, above).
    auto grid = [](std::size_t count) {
      return static_cast<int>(std::min<std::size_t>((count + 255) / 256, 4096));
    };
    if (first) {
      const std::size_t values = data.n * static_cast<std::size_t>(d);
      KMS_CUDA_CHECK(cudaMemsetAsync(rows_largest_.get(), 0, sizeof(unsigned), s));
      largestMagnitudeKernel<<<grid(values), 256, 0, s>>>(a.points, values, rows_largest_.get());
      KMS_CHECK_LAUNCH();
      toScaledHalfKernel<<<grid(data.n * half_pitch_), 256, 0, s>>>(
          a.points, data.n, d, half_pitch_, rows_largest_.get(), false, half_points_.get());
      KMS_CHECK_LAUNCH();
    }
    toScaledHalfKernel<<<grid(static_cast<std::size_t>(k) * half_pitch_), 256, 0, s>>>(
        a.centroids, k, d, half_pitch_, counters_.get(), true, half_centroids_.get());
    KMS_CHECK_LAUNCH();
    x.half_points = half_points_.get();
    x.half_centroids = half_centroids_.get();
    x.half_pitch = half_pitch_;
    x.rows_largest_bits = rows_largest_.get();
  }
  // The rank pass, then the rows its bound left open (their count is on the device: every block
  // reads it and leaves if it has none): their centroids within the threshold, then, for the rows
  // with too many, three terms.
  auto oneTermPasses = [&](auto halves_type) {
    constexpr bool kHalves = decltype(halves_type)::value;
    highDimTensorKernel<kFastTiles, HdPass::kRank, LabelT, kHalves>
        <<<plan_.blocks, kHdThreads, hdSharedBytes(kFastTiles), s>>>(a, x);
    KMS_CHECK_LAUNCH();
    highDimTensorKernel<kFastTiles, HdPass::kCollect, LabelT, kHalves>
        <<<plan_.blocks, kHdThreads, hdSharedBytes(kFastTiles), s>>>(a, x);
    KMS_CHECK_LAUNCH();
  };
  if (halves)
    oneTermPasses(std::true_type{});
  else
    oneTermPasses(std::false_type{});
  HighDimTensorExtra forwarded = x;
  forwarded.listed = forwarded_.get();
  forwarded.listed_count = x.forwarded_count;
  highDimTensorKernel<kSplitTiles, HdPass::kSplit, LabelT>
      <<<plan_.blocks, kHdThreads, hdSharedBytes(kSplitTiles), s>>>(a, forwarded);
  KMS_CHECK_LAUNCH();
  highDimInertiaKernel<<<plan_.blocks, kHdScalarThreads, 0, s>>>(row_inertia_.get(), data.n,
                                                                 run.block_inertia);
  KMS_CHECK_LAUNCH();
  events.after_assign.recordInGraph(s);

  enqueueKeptSums(data, run, label_bytes_, plan_.sum_blocks, plan_.blocks, s, run.block_work, 2);
  events.after_reduce.recordInGraph(s);
  if (part == Part::kSums) return;
  enqueueUpdateFrom(run.totals, run, part, launch);
}

}  // namespace kms::cuda
