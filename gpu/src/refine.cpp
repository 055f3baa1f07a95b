// Hartigan's single-row moves after Lloyd, and the Lloyd run after them (kmeans/refine.h).
#include "kmeans/refine.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "common/thread_pool.h"
#include "kmeans/engine.h"
#include "kmeans/errors.h"

namespace kms {
namespace {

/// A move must lower the sum by more than this share of what the row costs where it is: the
/// sums and means carry double rounding, and a move that rounding could have made would only
/// undo itself later.
constexpr double kMoveMargin = 1e-9;

double rowWeight(const DataView& data, std::size_t i) {
  if (data.counts) return double(data.counts[i]);
  if (data.weights) return double(data.weights[i]);
  return 1.0;
}

}  // namespace

std::vector<float> hartiganMoves(const DataView& data, int k, const std::vector<float>& centroids,
                                 const std::vector<std::int32_t>& given_labels,
                                 const RefineOptions& options, RefineReport& report,
                                 const std::atomic<bool>* stop) {
  const std::size_t n = data.n, d = static_cast<std::size_t>(data.d);
  const std::size_t kk = static_cast<std::size_t>(k);
  if (k < 1 || centroids.size() != kk * d || given_labels.size() != n)
    throw InvalidArgument("hartiganMoves: " + std::to_string(given_labels.size()) + " labels and " +
                          std::to_string(centroids.size()) + " centroid values for " +
                          std::to_string(n) + " rows of d = " + std::to_string(d) +
                          ", k = " + std::to_string(k));
  std::vector<std::int32_t> labels = given_labels;
  // Each cluster's weight and weighted sum, and its mean kept transposed (d × k) so that a row's
  // distances to every mean are one vectorised loop; a move updates two columns.
  std::vector<double> weight(kk, 0.0), sum(kk * d, 0.0), mean(d * kk, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    const std::int32_t l = labels[i];
    if (l < 0 || l >= k) throw InvalidArgument("hartiganMoves: a label outside [0, k)");
    const double w = rowWeight(data, i);
    weight[std::size_t(l)] += w;
    for (std::size_t c = 0; c < d; ++c)
      sum[std::size_t(l) * d + c] += w * double(data.points[i * d + c]);
  }
  const auto setMean = [&](std::size_t j) {
    for (std::size_t c = 0; c < d; ++c)
      mean[c * kk + j] =
          weight[j] > 0.0 ? sum[j * d + c] / weight[j] : double(centroids[j * d + c]);
  };
  for (std::size_t j = 0; j < kk; ++j)
    setMean(j);
  const auto squaredTo = [&](std::size_t i, std::size_t j) {  // ‖x_i − mean_j‖²
    double s = 0.0;
    for (std::size_t c = 0; c < d; ++c) {
      const double t = double(data.points[i * d + c]) - mean[c * kk + j];
      s += t * t;
    }
    return s;
  };
  // What a row of weight w at squared distance s adds to the sum by joining cluster j, and
  // what it takes away by leaving it (the means move with it).
  const auto joinCost = [&](double w, std::size_t j, double s) {
    return weight[j] > 0.0 ? w * weight[j] / (weight[j] + w) * s : 0.0;
  };
  const auto leaveCost = [&](double w, std::size_t j, double s) {
    return w * weight[j] / (weight[j] - w) * s;
  };
  const auto sse = [&] {
    double total = 0.0;
    for (std::size_t i = 0; i < n; ++i)
      total += rowWeight(data, i) * squaredTo(i, std::size_t(labels[i]));
    return total;
  };
  report.sse_before = sse();
  // Each pass proposes, for every row at once (on every thread, against the means as the pass
  // found them), the cluster that lowers the sum most; then goes through the rows in order and
  // makes each proposed move that still lowers the sum with the means as they are by then (two
  // distances). The scan is pure and the moves are made in row order on one thread, so the
  // result does not depend on the number of threads.
  ThreadPool pool(options.threads);
  std::vector<std::int32_t> proposal(n, -1);
  std::vector<std::vector<double>> scratch(std::size_t(pool.size()), std::vector<double>(kk));
  constexpr std::size_t kChunk = 2048;
  bool stopped = false;
  for (int pass = 0; pass < options.max_passes && !stopped; ++pass) {
    pool.parallelFor((n + kChunk - 1) / kChunk, [&](std::size_t chunk, int worker) {
      std::vector<double>& dist = scratch[std::size_t(worker)];
      for (std::size_t i = chunk * kChunk; i < std::min(n, (chunk + 1) * kChunk); ++i) {
        proposal[i] = -1;
        const std::size_t a = std::size_t(labels[i]);
        const double w = rowWeight(data, i);
        if (!(w > 0.0) || !(weight[a] - w > 0.0)) continue;  // the cluster's only weight stays
        std::fill(dist.begin(), dist.end(), 0.0);
        for (std::size_t c = 0; c < d; ++c) {
          const double x = data.points[i * d + c];
          const double* m = &mean[c * kk];
          for (std::size_t j = 0; j < kk; ++j) {
            const double t = x - m[j];
            dist[j] += t * t;
          }
        }
        double best = leaveCost(w, a, dist[a]) * (1.0 - kMoveMargin);
        for (std::size_t b = 0; b < kk; ++b) {
          if (b == a) continue;
          const double in = joinCost(w, b, dist[b]);
          if (in < best) {  // strict: among equal gains the lower index
            best = in;
            proposal[i] = std::int32_t(b);
          }
        }
      }
    });
    std::uint64_t moved = 0;
    for (std::size_t i = 0; i < n; ++i) {
      if (proposal[i] < 0) continue;
      if (stop && stop->load(std::memory_order_relaxed)) {
        stopped = true;
        break;
      }
      const std::size_t a = std::size_t(labels[i]), to = std::size_t(proposal[i]);
      const double w = rowWeight(data, i);
      if (!(weight[a] - w > 0.0)) continue;
      // Earlier moves of this pass changed some means: the move is made only if it still gains.
      if (!(joinCost(w, to, squaredTo(i, to)) <
            leaveCost(w, a, squaredTo(i, a)) * (1.0 - kMoveMargin)))
        continue;
      weight[a] -= w;
      weight[to] += w;
      for (std::size_t c = 0; c < d; ++c) {
        const double v = w * double(data.points[i * d + c]);
        sum[a * d + c] -= v;
        sum[to * d + c] += v;
      }
      setMean(a);
      setMean(to);
      labels[i] = std::int32_t(to);
      ++moved;
    }
    report.passes = pass + 1;
    report.moves += moved;
    if (moved == 0) break;
  }
  report.sse_after = sse();
  std::vector<float> out(kk * d);
  for (std::size_t j = 0; j < kk; ++j)
    for (std::size_t c = 0; c < d; ++c)
      out[j * d + c] = float(mean[c * kk + j]);
  return out;
}

RefineReport refineOutcome(Engine& engine, const DataView& data, const KMeansConfig& config,
                           StartOutcome& outcome, const RefineOptions& options,
                           const std::atomic<bool>* stop) {
  RefineReport report;
  report.inertia_before = report.inertia_after = outcome.inertia();
  std::vector<std::int32_t> labels;
  engine.assign(outcome.centred_centroids, labels);
  const std::vector<float> moved =
      hartiganMoves(data, config.k, outcome.centroids, labels, options, report, stop);
  if (report.moves == 0 || (stop && stop->load())) return report;
  KMeansConfig again = config;
  again.init = InitMethod::Given;
  again.initial_centroids = moved;
  std::vector<StartOutcome> runs = engine.runStarts(again, {outcome.start});
  StartOutcome& refined = runs.front();
  report.lloyd_iterations = int(refined.iterations.size());
  report.inertia_after = refined.inertia();
  if (!(refined.inertia() < outcome.inertia())) {
    report.inertia_after = report.inertia_before;  // kept as it was
    return report;
  }
  report.improved = true;
  const int offset = outcome.iterations.empty() ? 0 : outcome.iterations.back().iteration;
  for (IterationStats s : refined.iterations) {
    s.iteration += offset;
    outcome.iterations.push_back(std::move(s));
  }
  outcome.centroids = std::move(refined.centroids);
  outcome.centred_centroids = std::move(refined.centred_centroids);
  outcome.converged = refined.converged;
  return report;
}

}  // namespace kms
