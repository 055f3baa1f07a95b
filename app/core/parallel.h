// Splitting a loop over rows across the hardware threads, for the per-pixel passes of the app
// layer (recolouring, dithering, conversions). Plain std::thread: no Qt, no pool to set up.
#pragma once

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

#include "kmeans/vector_state.h"

namespace kms::app {

/// Calls fn(begin, end) on disjoint ranges covering [0, n), on up to all hardware threads (one
/// range each, each at least `grain` long), and returns when all have returned. fn must not
/// throw.
template <typename F>
void parallelRanges(std::size_t n, std::size_t grain, F&& fn) {
  const std::size_t hardware = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t threads =
      std::clamp<std::size_t>(n / std::max<std::size_t>(grain, 1), 1, hardware);
  kms::clearUpperVectorState();  // SSE loops run slowly on a dirty AVX state
  if (threads == 1) {
    fn(std::size_t(0), n);
    return;
  }
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (std::size_t t = 1; t < threads; ++t)
    pool.emplace_back([&fn, n, t, threads] {
      kms::clearUpperVectorState();
      fn(n * t / threads, n * (t + 1) / threads);
    });
  fn(std::size_t(0), n / threads);
  for (auto& thread : pool)
    thread.join();
}

}  // namespace kms::app
