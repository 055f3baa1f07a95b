#include "core/sweep.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <stdexcept>

#include "core/parallel.h"
#include "kmeans/errors.h"

namespace kms::app {
namespace {

double rowWeight(const DataView& data, std::size_t i) {
  if (data.counts) return double(data.counts[i]);
  if (data.weights) return double(data.weights[i]);
  return 1.0;
}

double distance(const float* a, const float* b, int d) {
  double s = 0.0;
  for (int c = 0; c < d; ++c) {
    const double t = double(a[c]) - double(b[c]);
    s += t * t;
  }
  return std::sqrt(s);
}

/// Mean silhouette of the rows `rows` (each standing for weight copies of itself): for a row,
/// a = mean distance to the other members of its cluster (its own copies at distance 0 count),
/// b = the smallest mean distance to another cluster's members, s = (b − a) / max(a, b); a
/// cluster of one item scores 0. Weighted mean over the rows.
double silhouette(const DataView& data, const std::vector<std::int32_t>& labels, int k,
                  const std::vector<std::size_t>& rows) {
  // The rows gathered once, contiguous: the pass below reads them rows² times.
  const auto d = std::size_t(data.d);
  const std::size_t m = rows.size();
  std::vector<float> x(m * d);
  std::vector<double> weight(m);
  std::vector<std::size_t> label(m);
  std::vector<double> clusterWeight(static_cast<std::size_t>(k), 0.0);
  for (std::size_t r = 0; r < m; ++r) {
    std::copy_n(data.points + rows[r] * d, d, &x[r * d]);
    weight[r] = rowWeight(data, rows[r]);
    label[r] = std::size_t(labels[rows[r]]);
    clusterWeight[label[r]] += weight[r];
  }
  std::vector<double> score(m, 0.0);
  parallelRanges(m, 64, [&](std::size_t begin, std::size_t end) {
    std::vector<double> sum(static_cast<std::size_t>(k));
    for (std::size_t r = begin; r < end; ++r) {
      std::fill(sum.begin(), sum.end(), 0.0);
      for (std::size_t q = 0; q < m; ++q)
        sum[label[q]] += weight[q] * distance(&x[r * d], &x[q * d], int(d));
      const std::size_t own = label[r];
      const double others = clusterWeight[own] - 1.0;  // the other items of its cluster
      if (others <= 0.0) continue;                     // alone: 0
      const double a = sum[own] / others;
      double b = std::numeric_limits<double>::infinity();
      for (std::size_t c = 0; c < std::size_t(k); ++c)
        if (c != own && clusterWeight[c] > 0.0) b = std::min(b, sum[c] / clusterWeight[c]);
      if (!std::isfinite(b)) continue;
      const double top = std::max(a, b);
      score[r] = top > 0.0 ? (b - a) / top : 0.0;
    }
  });
  double total = 0.0, all = 0.0;
  for (std::size_t r = 0; r < m; ++r) {
    total += weight[r] * score[r];
    all += weight[r];
  }
  return all > 0.0 ? total / all : 0.0;
}

}  // namespace

SweepRow measureClustering(const DataView& data, const std::vector<float>& centroids, int k,
                           const std::vector<std::int32_t>& labels, std::size_t silhouetteLimit,
                           std::size_t sampleSize, std::uint64_t sampleSeed,
                           std::size_t* silhouetteRows) {
  const int d = data.d;
  const std::size_t n = data.n;
  SweepRow row;
  row.k = k;
  std::vector<double> weight(std::size_t(k), 0.0), spread(std::size_t(k), 0.0);
  std::vector<double> mean(std::size_t(d), 0.0);
  double total = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    const double w = rowWeight(data, i);
    const auto c = std::size_t(labels[i]);
    const float* x = data.points + i * std::size_t(d);
    const double r = distance(x, &centroids[c * std::size_t(d)], d);
    weight[c] += w;
    spread[c] += w * r;
    row.inertia += w * r * r;
    total += w;
    for (int j = 0; j < d; ++j)
      mean[std::size_t(j)] += w * double(x[j]);
  }
  for (double& m : mean)
    m /= total;
  // Calinski–Harabasz: (B / (k − 1)) / (W / (N − k)), N the total weight.
  double between = 0.0;
  int used = 0;
  for (std::size_t c = 0; c < std::size_t(k); ++c) {
    if (weight[c] <= 0.0) continue;
    ++used;
    double s = 0.0;
    for (int j = 0; j < d; ++j) {
      const double t =
          double(centroids[c * std::size_t(d) + std::size_t(j)]) - mean[std::size_t(j)];
      s += t * t;
    }
    between += weight[c] * s;
  }
  if (k > 1 && total > double(k) && row.inertia > 0.0)
    row.calinskiHarabasz = (between / double(k - 1)) / (row.inertia / (total - double(k)));
  // Davies–Bouldin: mean over clusters of the worst (s_i + s_j) / ‖c_i − c_j‖.
  double db = 0.0;
  for (std::size_t a = 0; a < std::size_t(k); ++a) {
    if (weight[a] <= 0.0) continue;
    double worst = 0.0;
    for (std::size_t b = 0; b < std::size_t(k); ++b) {
      if (b == a || weight[b] <= 0.0) continue;
      const double gap =
          distance(&centroids[a * std::size_t(d)], &centroids[b * std::size_t(d)], d);
      if (gap > 0.0) worst = std::max(worst, (spread[a] / weight[a] + spread[b] / weight[b]) / gap);
    }
    db += worst;
  }
  row.daviesBouldin = used > 0 ? db / used : 0.0;
  // Silhouette: every row, or a seeded sample.
  std::vector<std::size_t> rows(n);
  std::iota(rows.begin(), rows.end(), std::size_t(0));
  if (n > silhouetteLimit) {
    const std::size_t m = std::min(sampleSize, n);
    std::mt19937_64 rng(sampleSeed);
    for (std::size_t i = 0; i < m; ++i)
      std::swap(rows[i], rows[i + std::uniform_int_distribution<std::size_t>(0, n - 1 - i)(rng)]);
    rows.resize(m);
    std::sort(rows.begin(), rows.end());
  }
  if (silhouetteRows) *silhouetteRows = rows.size();
  row.silhouette = k > 1 ? silhouette(data, labels, k, rows) : 0.0;
  return row;
}

std::size_t kneeIndex(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() < 3 || x.size() != y.size()) return 0;
  const double x0 = x.front(), x1 = x.back();
  const auto [lo, hi] = std::minmax_element(y.begin(), y.end());
  if (x1 == x0 || *hi == *lo) return 0;
  std::size_t best = 0;
  double bestGap = -std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double xn = (x[i] - x0) / (x1 - x0);
    const double yn = (y[i] - *lo) / (*hi - *lo);
    const double gap = (1.0 - xn) - yn;  // below the chord from (0, 1) to (1, 0)
    if (gap > bestGap) {
      bestGap = gap;
      best = i;
    }
  }
  return best;
}

std::pair<int, int> parseKRange(const std::string& text) {
  const std::size_t dots = text.find("..");
  const std::size_t dash = text.find('-');
  std::size_t split = dots != std::string::npos ? dots : dash;
  const std::size_t skip = dots != std::string::npos ? 2 : 1;
  if (split == std::string::npos || split == 0)
    throw std::invalid_argument("a range of k like 2..20");
  try {
    std::size_t used = 0;
    const int from = std::stoi(text.substr(0, split), &used);
    if (used != split) throw std::invalid_argument("");
    const std::string rest = text.substr(split + skip);
    const int to = std::stoi(rest, &used);
    if (used != rest.size()) throw std::invalid_argument("");
    if (from < 1 || to < from) throw std::invalid_argument("");
    return {from, to};
  } catch (const std::exception&) {
    throw std::invalid_argument("a range of k like 2..20 (1 ≤ first ≤ last)");
  }
}

SweepResult runSweep(Engine& engine, const DataView& data, const SweepOptions& options,
                     const std::function<bool(int, int)>& progress) {
  SweepResult result;
  const int ks = options.kTo - options.kFrom + 1;
  const int total = ks * options.restarts;
  int done = 0;
  std::vector<int> starts(std::size_t(std::max(options.restarts, 1)));
  for (std::size_t r = 0; r < starts.size(); ++r)
    starts[r] = int(r);
  std::vector<std::int32_t> labels;
  for (int k = options.kFrom; k <= options.kTo; ++k) {
    const auto begin = std::chrono::steady_clock::now();
    KMeansConfig config = options.base;
    config.k = k;
    config.keep_history = false;
    // Every start of this k in one call (several at once on a GPU); the best labels every row
    // with its nearest final centroid, as kmeans-cli does.
    std::vector<StartOutcome> outcomes;
    try {
      outcomes = engine.runStarts(config, starts, [&](const StartOutcome&) {
        ++done;
        return !progress || progress(done, total);
      });
    } catch (const Interrupted&) {
      result.cancelled = true;
      break;
    }
    const StartOutcome& best = outcomes[std::size_t(bestOutcome(outcomes))];
    SweepRow row;
    row.iterations = int(best.iterations.size());
    row.converged = best.converged;
    row.bestStart = best.start;
    engine.assign(best.centred_centroids, labels);
    SweepRow measured =
        measureClustering(data, best.centroids, k, labels, options.silhouetteLimit,
                          options.silhouetteSample, options.base.seed, &result.silhouetteRows);
    measured.inertia = best.inertia();  // the engine's own figure
    measured.iterations = row.iterations;
    measured.converged = row.converged;
    measured.bestStart = row.bestStart;
    measured.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    result.rows.push_back(measured);
  }
  result.silhouetteSampled = data.n > options.silhouetteLimit;
  std::vector<double> x, y;
  for (const SweepRow& row : result.rows) {
    x.push_back(row.k);
    // On a log scale: inertia falls by orders of magnitude before the elbow and by percents
    // after it, and a linear Kneedle then stops one k early on sharp elbows.
    y.push_back(row.inertia > 0.0 ? std::log(row.inertia) : row.inertia);
  }
  if (x.size() >= 3) result.elbowK = int(x[kneeIndex(x, y)]);
  return result;
}

}  // namespace kms::app
