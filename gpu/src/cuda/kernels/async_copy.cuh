// Asynchronous global-to-shared copies (cp.async, compute capability 8.0 and later): the data
// bypass registers, so a block can fetch its next tile while it computes on the current one.
#pragma once

namespace kms::cuda {

/// Copies `bytes` (4, 8 or 16; 16 bypasses L1) from global `src` to shared `dst`, zero-filling
/// what lies past `src_bytes` (0: all zeros, src is not read). Both aligned to `bytes`.
template <int BYTES>
__device__ __forceinline__ void copyAsync(void* dst, const void* src, int src_bytes) {
  static_assert(BYTES == 4 || BYTES == 8 || BYTES == 16, "cp.async copies 4, 8 or 16 bytes");
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
  const unsigned shared = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  if constexpr (BYTES == 16)
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared), "l"(src),
                 "r"(src_bytes));
  else
    asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(shared), "l"(src),
                 "n"(BYTES), "r"(src_bytes));
#else
  unsigned char* d = static_cast<unsigned char*>(dst);
  const unsigned char* s = static_cast<const unsigned char*>(src);
  for (int i = 0; i < BYTES; ++i)
    d[i] = i < src_bytes ? s[i] : 0;
#endif
}

/// Closes the group of copies issued so far by this thread.
__device__ __forceinline__ void copyAsyncCommit() {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
  asm volatile("cp.async.commit_group;\n" ::);
#endif
}

/// Waits until at most N of this thread's most recent copy groups are still in flight (the
/// older ones have landed; then a barrier publishes them to the block).
template <int N>
__device__ __forceinline__ void copyAsyncWaitGroup() {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
#endif
}

/// Waits until all of this thread's copy groups have landed (then a barrier publishes them to
/// the block).
__device__ __forceinline__ void copyAsyncWaitAll() {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_group 0;\n" ::);
#endif
}

}  // namespace kms::cuda
