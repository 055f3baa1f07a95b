// Best of N (Engine::runStarts) against the same starts run one at a time.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "kmeans/engine.h"

namespace kms::test {

/// Start numbers 0, 1, …, count − 1.
inline std::vector<int> upTo(int count) {
  std::vector<int> starts(std::size_t(count), 0);
  for (int s = 0; s < count; ++s)
    starts[std::size_t(s)] = s;
  return starts;
}

/// Start `start` of `config` run alone on `engine` (initialize with seed config.seed + start,
/// then run() to the end): its outcome as runStarts reports one.
inline StartOutcome startRunAlone(Engine& engine, const KMeansConfig& config, int start) {
  KMeansConfig one = config;
  one.keep_history = false;
  one.seed = config.seed + std::uint64_t(start);
  engine.initialize(one);
  StartOutcome out;
  out.start = start;
  out.seed = one.seed;
  while (!engine.finished())
    out.iterations.push_back(engine.step());
  out.converged = engine.converged();
  Snapshot snap;
  engine.snapshot(snap);
  out.centroids = snap.centroids;
  out.centred_centroids = snap.centred_centroids;
  return out;
}

/// Same bits (NaN-safe, −0 ≠ +0).
inline bool sameFloats(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() &&
         (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0);
}

/// Every outcome equals its start run alone on `reference`: the same iterations (changed
/// counts, convergence, empty clusters; the inertia and shift exactly when `same_backend`,
/// within 1e-6 relative otherwise) and bit-identical final centroids.
inline void expectOutcomesMatchAlone(const std::vector<StartOutcome>& outcomes,
                                     const std::vector<int>& starts, Engine& reference,
                                     const KMeansConfig& config, bool same_backend) {
  ASSERT_EQ(outcomes.size(), starts.size());
  for (std::size_t i = 0; i < starts.size(); ++i) {
    const StartOutcome& got = outcomes[i];
    const StartOutcome want = startRunAlone(reference, config, starts[i]);
    SCOPED_TRACE("start " + std::to_string(starts[i]));
    EXPECT_EQ(got.start, starts[i]);
    EXPECT_EQ(got.seed, want.seed);
    ASSERT_EQ(got.iterations.size(), want.iterations.size());
    for (std::size_t t = 0; t < want.iterations.size(); ++t) {
      const IterationStats& a = got.iterations[t];
      const IterationStats& b = want.iterations[t];
      ASSERT_EQ(a.changed, b.changed) << "iteration " << t + 1;
      ASSERT_EQ(a.converged, b.converged) << "iteration " << t + 1;
      ASSERT_EQ(a.empty_clusters, b.empty_clusters) << "iteration " << t + 1;
      if (same_backend) {
        ASSERT_EQ(a.inertia, b.inertia) << "iteration " << t + 1;
        ASSERT_EQ(a.max_shift, b.max_shift) << "iteration " << t + 1;
      } else {
        ASSERT_NEAR(a.inertia, b.inertia, 1e-6 * b.inertia + 1e-12) << "iteration " << t + 1;
      }
    }
    EXPECT_EQ(got.converged, want.converged);
    EXPECT_TRUE(sameFloats(got.centroids, want.centroids));
    EXPECT_TRUE(sameFloats(got.centred_centroids, want.centred_centroids));
  }
}

}  // namespace kms::test
