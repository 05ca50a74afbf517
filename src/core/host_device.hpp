// Marks functions that are compiled for both the CPU and a CUDA device. Under nvcc they become
// __host__ __device__; everywhere else the mark is empty, so a plain C++ build of the same
// header is the CPU codec itself (one definition of a block, see docs/cuda.md).
#pragma once

#if defined(__CUDACC__)
#define COMMPRESS_HD __host__ __device__
#else
#define COMMPRESS_HD
#endif

// True in the device pass of nvcc: SIMD paths for the host step aside there.
#if defined(__CUDA_ARCH__)
#define COMMPRESS_DEVICE_PASS 1
#else
#define COMMPRESS_DEVICE_PASS 0
#endif
