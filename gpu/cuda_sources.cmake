# CUDA sources of kmeans_engine (included when nvcc is available).
set(KMS_CUDA_SOURCES
  src/cuda/cuda_engine.cu
  src/cuda/cuda_engine_history.cu
  src/cuda/cuda_engine_snapshot.cu
  src/cuda/compact_colours.cu
  src/cuda/tile_index.cu
  src/cuda/cuda_probe.cu
  src/cuda/device_ceilings.cu
  src/cuda/kernels/assign_u8.cu
  src/cuda/kernels/assign_u16.cu
  src/cuda/kernels/compact_iteration.cu
  src/cuda/kernels/exact_assign.cu
  src/cuda/kernels/init_kernels.cu
  src/cuda/kernels/iteration_kernels.cu
  src/cuda/kernels/wide_iteration.cu
  src/cuda/multi/all_reduce.cpp
  src/cuda/multi/sharded_engine.cu)
