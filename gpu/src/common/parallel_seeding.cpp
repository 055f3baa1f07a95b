#include "common/parallel_seeding.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "common/parallel_sampling.h"
#include "common/seeding.h"
#include "cpu/cpu_engine.h"
#include "kmeans/errors.h"

namespace kms::seeding {
namespace {

using Clock = std::chrono::steady_clock;
double msSince(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

/// Every holder's rows that `pick` chooses (local indices, ascending), their centred coordinates
/// concatenated in holder order, then every rank's in rank order: global row order.
template <typename Pick>
std::vector<float> gatherRows(const std::vector<ParallelSeedingRows*>& holders, Collective& world,
                              int d, Pick&& pick) {
  std::vector<std::vector<std::size_t>> picked;
  for (ParallelSeedingRows* holder : holders)
    picked.push_back(pick(*holder));
  std::vector<float> mine;
  for (std::size_t h = 0; h < holders.size(); ++h) {
    ParallelSeedingRows* holder = holders[h];
    const std::vector<std::size_t>& rows = picked[h];
    if (rows.empty()) continue;
    const std::size_t at = mine.size();
    mine.resize(at + rows.size() * static_cast<std::size_t>(d));
    holder->centredRows(rows, mine.data() + at);
  }
  return world.size() > 1 ? world.allGather(mine) : mine;
}

std::int64_t lowerEverywhere(const std::vector<ParallelSeedingRows*>& holders, Collective& world,
                             const float* candidates, std::size_t first, std::size_t count,
                             double scale) {
  for (ParallelSeedingRows* holder : holders)  // every GPU at once
    holder->lowerWith(candidates, first, count, scale);
  std::uint64_t potential = 0;  // wrapping, as every backend's integer sums
  for (ParallelSeedingRows* holder : holders)
    potential += static_cast<std::uint64_t>(holder->lowered());
  std::int64_t total = static_cast<std::int64_t>(potential);
  if (world.size() > 1) world.allReduce(&total, 1, Collective::Op::Sum);
  return total;
}

/// k of the weighted candidates: greedy k-means++ (plain k-means++ past kParallelGreedyMaxK
/// centroids: the greedy steps' passes over the ~10k candidates took 5–7 s at k = 1,024, d = 128
/// on an H200 and on its 16-core host) and Lloyd, on the CPU engine or the backend's own (see
/// kParallelGpuReclusterWork) — the same result either way, on every rank.
std::vector<float> recluster(const std::vector<float>& candidates,
                             const std::vector<float>& weights, int k, int d, std::uint64_t seed,
                             const std::function<bool()>& stop,
                             const ReclusterEngineFactory& make_engine) {
  const double work = static_cast<double>(weights.size()) * k * d;
  std::unique_ptr<Engine> made = make_engine && work >= kParallelGpuReclusterWork
                                     ? make_engine()
                                     : std::make_unique<CpuEngine>();
  Engine& engine = *made;
  DataView view;
  view.points = candidates.data();
  view.n = weights.size();
  view.d = d;
  view.weights = weights.data();
  engine.setData(view);
  KMeansConfig config;
  config.k = k;
  config.seed = seed;
  config.init =
      k <= kParallelGreedyMaxK ? InitMethod::GreedyKMeansPlusPlus : InitMethod::KMeansPlusPlus;
  config.max_iterations = kParallelReclusterIterations;
  engine.initialize(config);
  for (int i = 0; i < kParallelReclusterIterations; ++i) {
    if (stop && stop()) throw Interrupted("initialisation interrupted");
    if (engine.step().converged) break;
  }
  Snapshot result;
  engine.snapshot(result);
  return result.centroids;  // the candidates' data units: the caller's centred frame
}

}  // namespace

std::vector<float> seedKMeansParallel(const std::vector<ParallelSeedingRows*>& holders,
                                      Collective& world, std::size_t global_rows,
                                      const DataSummary& summary, int k, int d, std::uint64_t seed,
                                      const std::function<bool()>& stop,
                                      const ReclusterEngineFactory& make_engine,
                                      ParallelSeedingReport* report) {
  auto checkStop = [&] {
    if (stop && stop()) {
      for (ParallelSeedingRows* holder : holders)
        holder->release();
      throw Interrupted("initialisation interrupted");
    }
  };
  ParallelSeedingReport timing;
  auto t = Clock::now();
  const double scale = potentialScale(summary);  // greedy k-means++'s: every term fits
  const double oversampling = parallelOversampling(k);
  // The first candidate: a row drawn uniformly by its global index.
  const std::size_t first_row = std::min(
      global_rows - 1, static_cast<std::size_t>(counterUniform(seed, kStreamParallelRound, 0) *
                                                static_cast<double>(global_rows)));
  std::vector<float> candidates = gatherRows(holders, world, d, [&](ParallelSeedingRows& holder) {
    std::vector<std::size_t> rows;
    const std::size_t begin = holder.firstGlobalRow();
    if (first_row >= begin && first_row < begin + holder.rowCount())
      rows.push_back(first_row - begin);
    return rows;
  });
  timing.sample_ms += msSince(t);
  t = Clock::now();
  std::int64_t potential = lowerEverywhere(holders, world, candidates.data(), 0, 1, scale);
  timing.lower_ms += msSince(t);
  int rounds = 0;
  for (int round = 1; round <= kParallelRounds && potential > 0; ++round) {
    checkStop();
    t = Clock::now();
    for (ParallelSeedingRows* holder : holders)
      holder->sampleRound(seed, round, potential, oversampling, scale);
    const std::vector<float> sampled = gatherRows(
        holders, world, d, [&](ParallelSeedingRows& holder) { return holder.sampled(); });
    rounds = round;
    timing.sample_ms += msSince(t);
    if (sampled.empty()) continue;
    const std::size_t first = candidates.size() / static_cast<std::size_t>(d);
    candidates.insert(candidates.end(), sampled.begin(), sampled.end());
    t = Clock::now();
    potential = lowerEverywhere(holders, world, sampled.data(), first,
                                sampled.size() / static_cast<std::size_t>(d), scale);
    timing.lower_ms += msSince(t);
  }
  checkStop();
  const std::size_t count = candidates.size() / static_cast<std::size_t>(d);
  // Each candidate's weight: the rows nearest it, summed exactly on the weights' own grid.
  t = Clock::now();
  const double weight_scale = potentialScale(summary.total_weight * 1.01 + 1.0);
  std::vector<std::int64_t> sums(count, 0);
  for (ParallelSeedingRows* holder : holders)
    holder->sumCandidateWeights(count, weight_scale);
  for (ParallelSeedingRows* holder : holders)
    holder->addCandidateWeights(sums.data());
  if (world.size() > 1) world.allReduce(sums.data(), sums.size(), Collective::Op::Sum);
  for (ParallelSeedingRows* holder : holders)
    holder->release();
  timing.weigh_ms = msSince(t);
  timing.candidates = count;
  timing.rounds = rounds;
  // KMS_TRACE_SEEDING=1: where the seeding's time went, on stderr (rank 0).
  const char* trace = std::getenv("KMS_TRACE_SEEDING");
  auto done = [&](ParallelSeedingReport& r) {
    if (report) *report = r;
    if (trace && *trace && *trace != '0' && world.rank() == 0)
      std::fprintf(stderr,
                   "k-means||: %zu candidates in %d rounds; lowering %.1f ms, sampling %.1f ms, "
                   "weights %.1f ms, reclustering %.1f ms\n",
                   r.candidates, r.rounds, r.lower_ms, r.sample_ms, r.weigh_ms, r.recluster_ms);
  };

  if (count <= static_cast<std::size_t>(k)) {
    // Every row sits on a candidate (the potential reached 0) and the data have no more than
    // `count` distinct rows: the candidates, repeated in order; the run's empty clusters re-seed.
    std::vector<float> centroids(static_cast<std::size_t>(k) * d);
    for (int j = 0; j < k; ++j)
      std::copy_n(&candidates[(static_cast<std::size_t>(j) % count) * d], d,
                  &centroids[static_cast<std::size_t>(j) * d]);
    done(timing);
    return centroids;
  }
  t = Clock::now();
  std::vector<float> weights(count);
  for (std::size_t c = 0; c < count; ++c)
    weights[c] = static_cast<float>(static_cast<double>(sums[c]) / weight_scale);
  std::vector<float> centroids = recluster(candidates, weights, k, d, seed, stop, make_engine);
  timing.recluster_ms = msSince(t);
  done(timing);
  return centroids;
}

}  // namespace kms::seeding
