// Lets a few small math helpers compile for both the host compiler and nvcc.
#pragma once

#if defined(__CUDACC__)
#define KMS_HD __host__ __device__ __forceinline__
#else
#define KMS_HD inline
#endif
