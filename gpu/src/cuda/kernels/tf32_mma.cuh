// TF32 and FP16 tensor-core primitives (compute capability 8.0 and later): rounding to TF32, one
// m16n8k8 TF32 and one m16n8k16 FP16 matrix-multiply-accumulate (FP32 accumulators), with the
// PTX ISA's documented fragment layouts.
#pragma once

namespace kms::cuda {

/// x rounded to TF32 (round to nearest, ties away), as the 32-bit pattern mma.sync takes.
__device__ __forceinline__ unsigned toTf32(float x) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return r;
#else
  return __float_as_uint(x) & 0xffffe000u;  // never used: no TF32 before 8.0
#endif
}

/// c += a·b for one 16 × 8 × 8 TF32 tile (row-major A, column-major B, FP32 accumulators).
/// Fragment layout (PTX ISA, m16n8k8 .tf32), with g = lane / 4 and t = lane % 4:
/// a = {(g, t), (g + 8, t), (g, t + 4), (g + 8, t + 4)}, b = {(t, g), (t + 4, g)},
/// c = {(g, 2t), (g, 2t + 1), (g + 8, 2t), (g + 8, 2t + 1)}.
/// The A quad and the B pair come in vector registers (as 16- and 8-byte loads give them, so no
/// moves are needed to assemble the operands).
__device__ __forceinline__ void mmaTf32(float (&c)[4], uint4 a, uint2 b) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a.x), "r"(a.y), "r"(a.z), "r"(a.w), "r"(b.x), "r"(b.y));
#else
  __trap();
#endif
}

/// c += a·b for one 16 × 8 × 16 FP16 tile (row-major A, column-major B, FP32 accumulators).
/// Fragment layout (PTX ISA, m16n8k16 .f16), with g = lane / 4 and t = lane % 4, each register a
/// pair of halves along k: a = {(g, 2t…2t + 1), (g + 8, 2t…), (g, 2t + 8…), (g + 8, 2t + 8…)},
/// b = {(2t…2t + 1, g), (2t + 8…2t + 9, g)}, c as for mmaTf32. These are the same bytes, in the
/// same registers, as mmaTf32's fragments of 32-bit words: 32 bytes of a row along k feed one
/// instruction of either kind (8 TF32 or 16 FP16 coordinates), so the same ldmatrix loads serve
/// both.
__device__ __forceinline__ void mmaF16(float (&c)[4], uint4 a, uint2 b) {
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a.x), "r"(a.y), "r"(a.z), "r"(a.w), "r"(b.x), "r"(b.y));
#else
  __trap();
#endif
}

/// A 16-byte shared-memory load that stays in program order with the mma above (both volatile
/// asm), so loads are issued one k-step ahead instead of all at once.
__device__ __forceinline__ uint4 loadShared16(const uint4* p) {
  uint4 v;
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(p));
  asm volatile("ld.shared.v4.u32 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(address));
  return v;
}

/// Four 8 × 4 tiles of 32-bit words from shared memory (ldmatrix .x4 of 8 × 8 b16 tiles, which
/// is the same bytes): lane l gives the address of row l % 8 of tile l / 8 (16-byte aligned), and
/// lane (g, t) = 4g + t receives word t of row g of each tile — the m16n8k8 .tf32 fragment order,
/// so one instruction loads an A quad or the B pairs of two n-tiles.
__device__ __forceinline__ uint4 loadMatrixX4(const void* row_address) {
  uint4 v;
  const unsigned address = static_cast<unsigned>(__cvta_generic_to_shared(row_address));
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 750
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
               : "r"(address));
#else
  __trap();
#endif
  return v;
}

}  // namespace kms::cuda
