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

#include <bit>

namespace commpress::core {

// std::bit_width for the unsigned integers of a block, on both sides. nvcc (13.0) compiles
// libstdc++'s 64-bit std::bit_width in device code to a constant 0, so the device pass counts
// leading zeros with CUDA's own intrinsics.
template <class U>
COMMPRESS_HD inline int bit_width(U x) {
#if COMMPRESS_DEVICE_PASS
  static_assert(sizeof(U) == 4 || sizeof(U) == 8);
  if constexpr (sizeof(U) == 8) return 64 - __clzll(static_cast<long long>(x));
  else return 32 - __clz(static_cast<int>(x));
#else
  return int(std::bit_width(x));
#endif
}

}  // namespace commpress::core
