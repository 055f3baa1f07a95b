// Splitting a loop over rows across the hardware threads, for the per-pixel passes of the app
// layer (recolouring, dithering, conversions). Plain std::thread: no Qt, no pool to set up.
#pragma once

#include <algorithm>
#include <cstddef>
#include <thread>
#include <vector>

namespace kms::app {

/// Calls fn(begin, end) on disjoint ranges covering [0, n), on up to all hardware threads (one
/// range each, each at least `grain` long), and returns when all have returned. fn must not
/// throw.
/// vzeroupper where the CPU has AVX (gpu/src/common/vector_state.h says why): SSE loops on a
/// thread whose AVX upper halves are dirty run several times slower.
inline void clearUpperVectorState() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static const bool avx = __builtin_cpu_supports("avx");
  if (avx)
    __asm__ volatile("vzeroupper" ::
                         : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
                           "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
#endif
}

template <typename F>
void parallelRanges(std::size_t n, std::size_t grain, F&& fn) {
  const std::size_t hardware = std::max(1u, std::thread::hardware_concurrency());
  const std::size_t threads =
      std::clamp<std::size_t>(n / std::max<std::size_t>(grain, 1), 1, hardware);
  clearUpperVectorState();
  if (threads == 1) {
    fn(std::size_t(0), n);
    return;
  }
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (std::size_t t = 1; t < threads; ++t)
    pool.emplace_back([&fn, n, t, threads] {
      clearUpperVectorState();
      fn(n * t / threads, n * (t + 1) / threads);
    });
  fn(std::size_t(0), n / threads);
  for (auto& thread : pool)
    thread.join();
}

}  // namespace kms::app
