// Clearing the upper halves of the AVX registers before long runs of SSE code (the engine's
// thread pool and the app layer's parallelRanges both do; a plain C++ header).
//
// On Intel cores, SSE (non-VEX) instructions run several times slower while the upper halves of
// the YMM/ZMM registers are dirty. A thread starts with its creator's register state, and code
// outside ours (libraries that decode a picture, say) can leave it dirty: the final ΔE2000 of a
// 768 × 512 photo took 83 ms instead of 9 when nothing cleared it (docs/experiments.md). The
// engine's own AVX code (target_clones) clears it on return, as compilers do.
#pragma once

namespace kms {

/// vzeroupper where the CPU has AVX; nothing elsewhere. The XMM registers (the low halves) are
/// kept; the clobbers stop a compiler from holding wider values in them across the call.
inline void clearUpperVectorState() {
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
  static const bool avx = __builtin_cpu_supports("avx");
  if (avx)
    __asm__ volatile("vzeroupper" ::
                         : "xmm0", "xmm1", "xmm2", "xmm3", "xmm4", "xmm5", "xmm6", "xmm7", "xmm8",
                           "xmm9", "xmm10", "xmm11", "xmm12", "xmm13", "xmm14", "xmm15");
#endif
}

}  // namespace kms
