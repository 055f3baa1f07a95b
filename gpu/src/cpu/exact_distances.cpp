#include "cpu/exact_distances.h"

#include <algorithm>
#include <cstddef>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace kms::cpu {

// The portable build targets the x86-64 baseline (SSE2, four floats a vector); where the CPU
// has AVX2 (or AVX-512) the loader picks a clone compiled for it. Every lane still rounds each
// difference, square and sum on its own (no FMA: -ffp-contract=off), so every clone gives the
// same bits.
#if defined(__has_feature)  // Clang 14 names its sanitizers only this way
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define KMS_SANITIZED_BUILD 1
#endif
#endif
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__SANITIZE_ADDRESS__) && \
    !defined(__SANITIZE_THREAD__) && !defined(KMS_SANITIZED_BUILD)
#define KMS_VECTOR_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define KMS_VECTOR_CLONES
#endif

KMS_VECTOR_CLONES void exactDistancesToColumns(const float* __restrict x,
                                               const float* __restrict transposed, int d,
                                               std::size_t stride, std::size_t first, int width,
                                               float* __restrict dist) {
  std::fill(dist, dist + width, 0.0f);
  for (int c = 0; c < d; ++c) {
    const float xv = x[c];
    const float* col = transposed + static_cast<std::size_t>(c) * stride + first;
    for (int j = 0; j < width; ++j) {
      const float t = xv - col[j];
      dist[j] = dist[j] + t * t;
    }
  }
}

void exactDistancesToAll(const float* x, const float* transposed, int d, int kp, float* dist) {
  exactDistancesToColumns(x, transposed, d, static_cast<std::size_t>(kp), 0, kp, dist);
}

float smallestOf(const float* values, int width) {
#if defined(__SSE2__)
  // In vectors: std::min stays scalar (it must honour NaN).
  __m128 v = _mm_loadu_ps(values);
  for (int j = 4; j < width; j += 4)
    v = _mm_min_ps(v, _mm_loadu_ps(values + j));
  v = _mm_min_ps(v, _mm_shuffle_ps(v, v, _MM_SHUFFLE(1, 0, 3, 2)));
  v = _mm_min_ps(v, _mm_shuffle_ps(v, v, _MM_SHUFFLE(2, 3, 0, 1)));
  return _mm_cvtss_f32(v);
#else
  float low = values[0];
  for (int j = 1; j < width; ++j)
    low = std::min(low, values[j]);
  return low;
#endif
}

int firstNearest(const float* dist, int width) {
  const float low = smallestOf(dist, width);
  int at = 0;
#if defined(__SSE2__)
  // Its place: the first group of four holding it, then the lane.
  const __m128 wanted = _mm_set1_ps(low);
  for (; at + 4 <= width; at += 4) {
    const int lanes = _mm_movemask_ps(_mm_cmpeq_ps(_mm_loadu_ps(dist + at), wanted));
    if (lanes != 0) return at + __builtin_ctz(static_cast<unsigned>(lanes));
  }
#endif
  while (at + 1 < width && !(dist[at] == low))
    ++at;
  return at;
}

}  // namespace kms::cpu
