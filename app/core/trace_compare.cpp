#include "core/trace_compare.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "kmeans/backend.h"
#include "kmeans/engine.h"

namespace kms::app {
namespace {

/// Below this share of a cluster's radius, a centroid that differs from the exact mean of its
/// labels is only rounded (another summation order); above it the update is wrong.
constexpr double kRoundedShare = 1e-4;
constexpr int kMaxMatchedK = 512;

double squaredDistance(const float* a, const float* b, int d) {
  double s = 0.0;
  for (int c = 0; c < d; ++c) {
    const double e = double(a[c]) - double(b[c]);
    s += e * e;
  }
  return s;
}

std::uint64_t labelHash(const std::vector<std::int32_t>& labels) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a
  for (std::int32_t v : labels) {
    h ^= std::uint32_t(v);
    h *= 1099511628211ull;
  }
  return h;
}

/// One exact iteration from the given centroids: its labels, the exact means of those labels
/// (an empty cluster keeps its centroid) and its stats.
struct ExactStep {
  std::vector<std::int32_t> labels;
  std::vector<float> means;
  IterationStats stats;
};

ExactStep stepFrom(Engine& engine, const std::vector<float>& centroids, int k) {
  KMeansConfig config;
  config.k = k;
  config.init = InitMethod::Given;
  config.initial_centroids = centroids;
  config.tolerance = 0.0;
  config.max_iterations = 1;
  config.empty_clusters = EmptyClusterPolicy::KeepCentroid;
  engine.initialize(config);
  ExactStep s;
  s.stats = engine.step();
  Snapshot snapshot;
  engine.snapshot(snapshot);
  s.labels = std::move(snapshot.labels);
  s.means = std::move(snapshot.centroids);
  return s;
}

/// The largest distance of a cluster's points from their mean, as the root mean square (the
/// scale an update error is measured against), for each cluster; 0 for an empty one.
std::vector<double> clusterRadii(const Dataset& data, const std::vector<std::int32_t>& labels,
                                 const std::vector<float>& means, int k) {
  std::vector<double> sum(std::size_t(k), 0.0);
  std::vector<std::size_t> count(std::size_t(k), 0);
  for (std::size_t i = 0; i < data.n; ++i) {
    const int j = labels[i];
    sum[std::size_t(j)] += squaredDistance(&data.values[i * std::size_t(data.d)],
                                           &means[std::size_t(j) * data.d], data.d);
    ++count[std::size_t(j)];
  }
  std::vector<double> radius(std::size_t(k), 0.0);
  for (int j = 0; j < k; ++j)
    if (count[std::size_t(j)] > 0)
      radius[std::size_t(j)] = std::sqrt(sum[std::size_t(j)] / count[std::size_t(j)]);
  return radius;
}

/// The means of `labels` in double (for a trace's stored labels), as float.
std::vector<float> meansOf(const Dataset& data, const std::vector<std::int32_t>& labels,
                           const std::vector<float>& fallback, int k) {
  const int d = data.d;
  std::vector<double> sum(std::size_t(k) * d, 0.0);
  std::vector<double> count(std::size_t(k), 0.0);  // Σ weights
  for (std::size_t i = 0; i < data.n; ++i) {
    const std::size_t j = std::size_t(labels[i]);
    const double w = data.weights.empty() ? 1.0 : double(data.weights[i]);
    for (int c = 0; c < d; ++c)
      sum[j * d + c] += w * data.values[i * std::size_t(d) + c];
    count[j] += w;
  }
  std::vector<float> means = fallback;
  for (int j = 0; j < k; ++j)
    if (count[std::size_t(j)] > 0)
      for (int c = 0; c < d; ++c)
        means[std::size_t(j) * d + c] = float(sum[std::size_t(j) * d + c] / count[std::size_t(j)]);
  return means;
}

double dataScale(const Dataset& data) {
  const int d = data.d;
  std::vector<float> lo(std::size_t(d), std::numeric_limits<float>::infinity());
  std::vector<float> hi(std::size_t(d), -std::numeric_limits<float>::infinity());
  for (std::size_t i = 0; i < data.n; ++i)
    for (int c = 0; c < d; ++c) {
      lo[std::size_t(c)] = std::min(lo[std::size_t(c)], data.values[i * std::size_t(d) + c]);
      hi[std::size_t(c)] = std::max(hi[std::size_t(c)], data.values[i * std::size_t(d) + c]);
    }
  double s = 0.0;
  for (int c = 0; c < d; ++c)
    s += double(hi[std::size_t(c)] - lo[std::size_t(c)]) *
         double(hi[std::size_t(c)] - lo[std::size_t(c)]);
  return s > 0.0 ? std::sqrt(s) : 1.0;
}

}  // namespace

const char* describe(UpdateVerdict verdict) {
  switch (verdict) {
    case UpdateVerdict::Exact:
      return "exact";
    case UpdateVerdict::Rounded:
      return "rounded";
    case UpdateVerdict::Wrong:
      return "wrong";
  }
  return "?";
}

std::vector<int> minimumCostMatching(const std::vector<double>& cost, int n) {
  // The O(n³) Hungarian method with potentials (1-based internally; column 0 is the sentinel).
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> u(std::size_t(n) + 1, 0.0), v(std::size_t(n) + 1, 0.0);
  std::vector<int> p(std::size_t(n) + 1, 0), way(std::size_t(n) + 1, 0);
  for (int i = 1; i <= n; ++i) {
    p[0] = i;
    int j0 = 0;
    std::vector<double> minv(std::size_t(n) + 1, inf);
    std::vector<char> used(std::size_t(n) + 1, 0);
    do {
      used[std::size_t(j0)] = 1;
      const int i0 = p[std::size_t(j0)];
      double delta = inf;
      int j1 = 0;
      for (int j = 1; j <= n; ++j) {
        if (used[std::size_t(j)]) continue;
        const double cur = cost[std::size_t(i0 - 1) * n + std::size_t(j - 1)] - u[std::size_t(i0)] -
                           v[std::size_t(j)];
        if (cur < minv[std::size_t(j)]) {
          minv[std::size_t(j)] = cur;
          way[std::size_t(j)] = j0;
        }
        if (minv[std::size_t(j)] < delta) {
          delta = minv[std::size_t(j)];
          j1 = j;
        }
      }
      for (int j = 0; j <= n; ++j) {
        if (used[std::size_t(j)]) {
          u[std::size_t(p[std::size_t(j)])] += delta;
          v[std::size_t(j)] -= delta;
        } else {
          minv[std::size_t(j)] -= delta;
        }
      }
      j0 = j1;
    } while (p[std::size_t(j0)] != 0);
    do {
      const int j1 = way[std::size_t(j0)];
      p[std::size_t(j0)] = p[std::size_t(j1)];
      j0 = j1;
    } while (j0 != 0);
  }
  std::vector<int> result(std::size_t(n), 0);
  for (int j = 1; j <= n; ++j)
    if (p[std::size_t(j)] > 0) result[std::size_t(p[std::size_t(j)] - 1)] = j - 1;
  return result;
}

double adjustedRandIndex(const std::vector<std::int32_t>& a, const std::vector<std::int32_t>& b) {
  const std::size_t n = a.size();
  if (n < 2) return 1.0;
  std::unordered_map<std::uint64_t, std::int64_t> cells;
  std::unordered_map<std::int32_t, std::int64_t> rows, cols;
  for (std::size_t i = 0; i < n; ++i) {
    ++cells[std::uint64_t(std::uint32_t(a[i])) << 32 | std::uint32_t(b[i])];
    ++rows[a[i]];
    ++cols[b[i]];
  }
  const auto pairs = [](std::int64_t m) { return double(m) * double(m - 1) / 2.0; };
  double index = 0.0, sa = 0.0, sb = 0.0;
  for (const auto& [key, m] : cells)
    index += pairs(m);
  for (const auto& [key, m] : rows)
    sa += pairs(m);
  for (const auto& [key, m] : cols)
    sb += pairs(m);
  const double expected = sa * sb / pairs(std::int64_t(n));
  const double most = (sa + sb) / 2.0;
  if (most == expected) return 1.0;  // both one cluster, or both all singletons
  return (index - expected) / (most - expected);
}

TraceComparison compareTrace(const Dataset& data, const RunTrace& trace, const QString& traceName,
                             const CompareOptions& options) {
  if (data.isImage() || data.isCompact())
    throw LoadError(traceName,
                    QStringLiteral("traces are compared with point data, not a picture"));
  if (trace.d != data.d)
    throw LoadError(
        traceName,
        QStringLiteral("the trace has d = %1, the data d = %2").arg(trace.d).arg(data.d));
  if (trace.n != 0 && trace.n != data.n)
    throw LoadError(traceName, QStringLiteral("the trace clustered %1 rows, the data have %2")
                                   .arg(qulonglong(trace.n))
                                   .arg(qulonglong(data.n)));
  if (std::size_t(trace.k) > data.n)
    throw LoadError(traceName, QStringLiteral("the trace has k = %1, more than the data's %2 rows")
                                   .arg(trace.k)
                                   .arg(qulonglong(data.n)));
  const int k = trace.k, d = data.d, iterations = trace.iterations();
  const std::size_t n = data.n;
  const DataView view{data.values.data(), n, d,
                      data.weights.empty() ? nullptr : data.weights.data()};
  auto implied = createCpuEngine(options.threads);
  auto exact = createCpuEngine(options.threads);
  implied->setData(view);
  exact->setData(view);
  KMeansConfig config;
  config.k = k;
  config.init = InitMethod::Given;
  config.initial_centroids = trace.centroids[0];
  config.tolerance = 0.0;
  config.max_iterations = iterations;
  config.empty_clusters = options.emptyClusters;
  exact->initialize(config);

  // The exact run, every iteration's labels and centroids.
  std::vector<std::vector<float>> exactCentroids{trace.centroids[0]};
  std::vector<std::vector<std::int32_t>> exactLabels;
  std::vector<double> exactInertia;
  for (int t = 1; t <= iterations; ++t) {
    const IterationStats stats = exact->step();
    Snapshot snapshot;
    exact->snapshot(snapshot);
    exactCentroids.push_back(std::move(snapshot.centroids));
    exactLabels.push_back(std::move(snapshot.labels));
    exactInertia.push_back(stats.inertia);
  }

  TraceComparison out;
  // Identities: matched at the end by centroid distance (the identity when k is too large).
  std::vector<int> identity(static_cast<std::size_t>(k));
  for (int j = 0; j < k; ++j)
    identity[std::size_t(j)] = j;
  out.matching = identity;
  if (k <= kMaxMatchedK) {
    std::vector<double> cost(std::size_t(k) * k);
    for (int a = 0; a < k; ++a)
      for (int b = 0; b < k; ++b)
        cost[std::size_t(a) * k + b] =
            squaredDistance(&trace.centroids.back()[std::size_t(a) * d],
                            &exactCentroids.back()[std::size_t(b) * d], d);
    out.matching = minimumCostMatching(cost, k);
  }
  const auto matched = [&](const std::vector<std::int32_t>& labels) {
    std::vector<std::int32_t> m(labels.size());
    for (std::size_t i = 0; i < labels.size(); ++i)
      m[i] = out.matching[std::size_t(labels[i])];
    return m;
  };

  const double scale = dataScale(data);
  std::unordered_map<std::uint64_t, int> seen;  // label-set hash → first iteration
  std::vector<std::int32_t> previousImplied, olderImplied;
  std::vector<std::uint8_t> wentBack(n, 0);  // times each point went back to a cluster it had left
  double previousInertia = 0.0;
  out.identical = true;
  for (int t = 1; t <= iterations; ++t) {
    TraceIterationComparison it;
    it.iteration = t;
    const auto& before = trace.centroids[std::size_t(t) - 1];
    const auto& after = trace.centroids[std::size_t(t)];
    const bool sameStart = before == exactCentroids[std::size_t(t) - 1];
    // The labels the trace's centroids imply, and their exact means: the exact run's labels when
    // its centroids are the same to the bit (no conversion can part them then).
    const ExactStep fromTrace = stepFrom(*implied, before, k);
    const std::vector<std::int32_t>& impliedLabels =
        sameStart ? exactLabels[std::size_t(t) - 1] : fromTrace.labels;
    it.impliedInertia = sameStart ? exactInertia[std::size_t(t) - 1] : fromTrace.stats.inertia;
    it.exactInertia = exactInertia[std::size_t(t) - 1];
    if (!trace.inertia.empty()) it.traceInertia = trace.inertia[std::size_t(t) - 1];

    // Labels: implied against the exact run's (matched), and the near ties among the flips.
    // While the two runs' centroids agree to the bit, clusters are compared as they are.
    const std::vector<int>& map = sameStart ? identity : out.matching;
    const std::vector<std::int32_t> mine = sameStart ? impliedLabels : matched(impliedLabels);
    const auto& theirs = exactLabels[std::size_t(t) - 1];
    double delta = 0.0;  // how far the two runs' centroids before iteration t are apart
    for (int j = 0; j < k; ++j)
      delta = std::max(
          delta,
          std::sqrt(squaredDistance(
              &before[std::size_t(j) * d],
              &exactCentroids[std::size_t(t) - 1][std::size_t(map[std::size_t(j)]) * d], d)));
    for (std::size_t i = 0; i < n; ++i) {
      if (mine[i] == theirs[i]) continue;
      ++it.flipped;
      // Under the trace's centroids, the point's distances to its two labels' centroids: a
      // point within 2δ(2r + δ) of a tie may go either way when the centroids move by δ.
      const float* x = &data.values[i * std::size_t(d)];
      int other = 0;
      for (int j = 0; j < k; ++j)
        if (map[std::size_t(j)] == theirs[i]) other = j;
      const double da = squaredDistance(x, &before[std::size_t(impliedLabels[i]) * d], d);
      const double db = squaredDistance(x, &before[std::size_t(other) * d], d);
      if (withinTieMargin(da, db, delta, d)) ++it.flippedNearTies;
    }
    it.centroidsApart = delta;
    if (options.keepRuns) {
      out.runs.impliedLabels.push_back(mine);
      out.runs.exactLabels.push_back(theirs);
      out.runs.identityAt.push_back(char(sameStart));
    }
    it.adjustedRand = adjustedRandIndex(mine, theirs);

    // The update: the trace's c_t against the exact means of its own labels (stored, or implied).
    std::vector<std::int32_t> own = impliedLabels;
    if (!trace.labels.empty()) {
      own = trace.labels[std::size_t(t) - 1];
      it.storedLabelsWrong = 0;
      for (std::size_t i = 0; i < n; ++i)
        if (own[i] != impliedLabels[i]) ++it.storedLabelsWrong;
    }
    // The engine's exact means when the labels are the implied ones; else in double.
    const std::vector<float> means =
        it.storedLabelsWrong > 0 ? meansOf(data, own, before, k) : fromTrace.means;
    const std::vector<double> radius = clusterRadii(data, own, means, k);
    std::vector<char> occupied(std::size_t(k), 0);
    for (std::int32_t j : own)
      occupied[std::size_t(j)] = 1;
    for (int j = 0; j < k; ++j) {
      if (!occupied[std::size_t(j)]) {
        ++it.emptyClusters;  // re-seeded or kept: the trace's own policy, not an error
        continue;
      }
      const double error =
          std::sqrt(squaredDistance(&after[std::size_t(j) * d], &means[std::size_t(j) * d], d));
      const double relative = error / std::max(radius[std::size_t(j)], 1e-12 * scale);
      it.updateError = std::max(it.updateError, relative);
    }
    if (sameStart && after == exactCentroids[std::size_t(t)])
      it.updateError = 0.0;  // the exact run's
    it.update = it.updateError == 0.0             ? UpdateVerdict::Exact
                : it.updateError <= kRoundedShare ? UpdateVerdict::Rounded
                                                  : UpdateVerdict::Wrong;
    if (it.update == UpdateVerdict::Wrong) out.wrongUpdates.push_back(t);

    // The two runs after iteration t.
    const bool sameAfter = after == exactCentroids[std::size_t(t)];
    for (int j = 0; j < k && !sameAfter; ++j)
      it.centroidDistance = std::max(
          it.centroidDistance,
          std::sqrt(squaredDistance(
              &after[std::size_t(j) * d],
              &exactCentroids[std::size_t(t)][std::size_t(out.matching[std::size_t(j)]) * d], d)));
    if (after != exactCentroids[std::size_t(t)]) {
      out.identical = false;
      if (out.firstDivergence == 0) out.firstDivergence = t;
    }
    if (it.flipped > 0 && out.firstFlip == 0) out.firstFlip = t;

    // Stopping rules and cycles.
    double shift = 0.0;
    for (int j = 0; j < k; ++j)
      shift = std::max(shift, std::sqrt(squaredDistance(&after[std::size_t(j) * d],
                                                        &before[std::size_t(j) * d], d)));
    it.shift = shift / scale;
    if (!previousImplied.empty()) {
      std::size_t changed = 0;
      for (std::size_t i = 0; i < n; ++i)
        changed += impliedLabels[i] != previousImplied[i];
      it.changedFraction = double(changed) / double(n);
      if (out.stopByChanged == 0 && it.changedFraction <= options.tolerance) out.stopByChanged = t;
      if (out.stopByInertia == 0 &&
          std::fabs(it.impliedInertia - previousInertia) <= options.tolerance * previousInertia)
        out.stopByInertia = t;
    }
    if (out.stopByShift == 0 && it.shift <= options.tolerance) out.stopByShift = t;
    const std::uint64_t hash = labelHash(impliedLabels);
    const auto found = seen.find(hash);
    if (found != seen.end() && t - found->second >= 2 && it.changedFraction > 0.0 &&
        out.cyclePeriod == 0) {
      out.cycleStart = found->second;
      out.cyclePeriod = t - found->second;
    }
    seen.emplace(hash, t);
    // Oscillating points: back to the cluster they had two iterations ago after leaving it.
    if (!olderImplied.empty()) {
      for (std::size_t i = 0; i < n; ++i)
        if (impliedLabels[i] == olderImplied[i] && impliedLabels[i] != previousImplied[i]) {
          ++it.oscillating;
          if (wentBack[i] < 255) ++wentBack[i];
        }
    }
    olderImplied = std::move(previousImplied);
    previousImplied = impliedLabels;
    previousInertia = it.impliedInertia;
    out.iterations.push_back(it);
  }

  if (options.keepRuns) out.runs.exactCentroids = std::move(exactCentroids);

  // The findings, most important first.
  QStringList& f = out.findings;
  if (out.identical) {
    f << QStringLiteral(
             "The trace is exact Lloyd to the last bit: all %1 iterations' centroids "
             "equal the exact run's from the same start.")
             .arg(iterations);
  } else {
    const auto& first = out.iterations[std::size_t(out.firstDivergence) - 1];
    QString cause;
    if (first.storedLabelsWrong > 0)
      cause = QStringLiteral(
                  "its stored labels differ from those its centroids imply at %1 rows "
                  "(the assignment step)")
                  .arg(first.storedLabelsWrong);
    else if (first.update == UpdateVerdict::Wrong)
      cause = QStringLiteral(
                  "its update is wrong: a centroid is %1 of its cluster's radius from "
                  "the mean of its own points")
                  .arg(first.updateError, 0, 'g', 3);
    else if (first.update == UpdateVerdict::Rounded)
      cause = QStringLiteral(
                  "its update is only rounded differently (within %1 of a cluster's "
                  "radius of the exact means: another summation order)")
                  .arg(first.updateError, 0, 'g', 3);
    else if (first.flipped > 0)
      cause = QStringLiteral("%1 points took other labels").arg(first.flipped);
    else if (first.emptyClusters > 0)
      cause = QStringLiteral(
                  "%1 empty cluster(s) were handled otherwise (kept, or re-seeded "
                  "elsewhere: --empty-clusters sets the exact run's rule)")
                  .arg(first.emptyClusters);
    else
      cause = QStringLiteral("its centroids were not the exact run's before it");
    f << QStringLiteral("The trace parts from exact Lloyd at iteration %1: %2.")
             .arg(out.firstDivergence)
             .arg(cause);
  }
  if (!out.wrongUpdates.empty()) {
    QStringList its;
    for (int t : out.wrongUpdates)
      its << QString::number(t);
    f << QStringLiteral("Wrong update (centroids not the means of their points) at iteration%1 %2.")
             .arg(out.wrongUpdates.size() > 1 ? QStringLiteral("s") : QString())
             .arg(its.join(QStringLiteral(", ")));
  }
  if (out.firstFlip > 0) {
    const auto& flip = out.iterations[std::size_t(out.firstFlip) - 1];
    // Near-tie flips follow from how far the centroids had drifted: rounding when every update
    // so far was exact or only rounded, the wrong updates otherwise.
    const bool wrongBefore = !out.wrongUpdates.empty() && out.wrongUpdates.front() < out.firstFlip;
    f << QStringLiteral(
             "Labels first differ from the exact run's at iteration %1: %2 points "
             "flipped, %3 of them within the two runs' centroid difference of a tie (%4).")
             .arg(out.firstFlip)
             .arg(flip.flipped)
             .arg(flip.flippedNearTies)
             .arg(wrongBefore ? QStringLiteral("the wrong updates before it moved the centroids "
                                               "that far")
                              : QStringLiteral("they flip with rounding, not because the method "
                                               "differs"));
  }
  if (out.cyclePeriod > 0)
    f << QStringLiteral(
             "The labels cycle: iteration %1's label set comes back every %2 "
             "iterations; the run cannot converge by \"no label changed\".")
             .arg(out.cycleStart)
             .arg(out.cyclePeriod);
  // The trace's own assignment against exact distances, wherever its stored labels disagree.
  QStringList storedOff;
  std::int64_t storedRows = 0;
  for (const auto& it : out.iterations)
    if (it.storedLabelsWrong > 0) {
      storedOff << QString::number(it.iteration);
      storedRows += it.storedLabelsWrong;
    }
  if (!storedOff.isEmpty())
    f << QStringLiteral(
             "Its stored labels differ from those its centroids imply (exact distances) at "
             "iteration%1 %2, %3 row%4 in all: its assignment step computes distances differently "
             "(at near ties) or assigns wrongly.")
             .arg(storedOff.size() > 1 ? QStringLiteral("s") : QString())
             .arg(storedOff.join(QStringLiteral(", ")))
             .arg(storedRows)
             .arg(storedRows > 1 ? QStringLiteral("s") : QString());
  // Points that went back at least twice: a lone return is ordinary early in a run.
  out.oscillatingPoints = std::size_t(
      std::count_if(wentBack.begin(), wentBack.end(), [](std::uint8_t b) { return b >= 2; }));
  if (out.oscillatingPoints > 0) {
    const auto most = std::max_element(
        out.iterations.begin(), out.iterations.end(),
        [](const auto& a, const auto& b) { return a.oscillating < b.oscillating; });
    f << QStringLiteral(
             "%1 points oscillate: they went back to the cluster they had two iterations before "
             "at least twice (most returns at iteration %2, %3 points).")
             .arg(out.oscillatingPoints)
             .arg(most->iteration)
             .arg(most->oscillating);
  }
  int emptyAt = 0;
  for (const auto& it : out.iterations)
    if (it.emptyClusters > 0 && emptyAt == 0) emptyAt = it.iteration;
  if (emptyAt > 0)
    f << QStringLiteral("Empty clusters from iteration %1 (%2 then).")
             .arg(emptyAt)
             .arg(out.iterations[std::size_t(emptyAt) - 1].emptyClusters);
  const auto stopText = [](int t) {
    return t > 0 ? QStringLiteral("iteration %1").arg(t) : QStringLiteral("never");
  };
  f << QStringLiteral(
           "Stopping rules at tolerance %1: centroid shift → %2; relative inertia "
           "change → %3; fraction of points changed → %4.")
           .arg(options.tolerance)
           .arg(stopText(out.stopByShift), stopText(out.stopByInertia),
                stopText(out.stopByChanged));
  return out;
}

bool withinTieMargin(double da, double db, double delta, int d) {
  const double r = std::sqrt(std::max(da, db));
  constexpr double kUnit = 1.0 / 16777216.0;  // 2⁻²⁴: FP32's rounding unit
  return std::fabs(da - db) <= 2.0 * delta * (2.0 * r + delta) + (d + 2) * kUnit * (da + db);
}

std::vector<std::uint32_t> nearTieRows(const Dataset& data, const std::vector<float>& centroids,
                                       double delta) {
  const int d = data.d;
  const int k = int(centroids.size() / std::size_t(d));
  std::vector<std::uint32_t> rows;
  if (k < 2) return rows;
  for (std::size_t i = 0; i < data.n; ++i) {
    const float* x = &data.values[i * std::size_t(d)];
    double best = std::numeric_limits<double>::max(), second = best;
    for (int j = 0; j < k; ++j) {
      const double e = squaredDistance(x, &centroids[std::size_t(j) * std::size_t(d)], d);
      if (e < best) {
        second = best;
        best = e;
      } else if (e < second) {
        second = e;
      }
    }
    if (withinTieMargin(best, second, delta, d)) rows.push_back(std::uint32_t(i));
  }
  return rows;
}

}  // namespace kms::app
