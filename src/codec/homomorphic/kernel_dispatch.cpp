#include "codec/homomorphic/kernel_dispatch.hpp"

#include <atomic>

#include "codec/homomorphic/plane_transpose_gfni.hpp"
#include "codec/homomorphic/quantized_ops.hpp"

#if __has_include(<sys/platform/x86.h>)
// glibc's header is C: its functions return _Bool, which GCC accepts in C++ and clang does not.
#if defined(__clang__) && !defined(_Bool)
#define _Bool bool
#define COMMPRESS_DEFINED_BOOL 1
#endif
#include <sys/platform/x86.h>  // glibc 2.33+: features as glibc sees them, tunables applied
#ifdef COMMPRESS_DEFINED_BOOL
#undef _Bool
#undef COMMPRESS_DEFINED_BOOL
#endif
#define COMMPRESS_GLIBC_CPU_FEATURES 1
#else
#define COMMPRESS_GLIBC_CPU_FEATURES 0
#endif

namespace commpress::codec::homomorphic {

namespace {

bool cpu_runs_gfni() {
#if COMMPRESS_HOMOMORPHIC_GFNI
#if COMMPRESS_GLIBC_CPU_FEATURES
  return CPU_FEATURE_ACTIVE(GFNI) && CPU_FEATURE_ACTIVE(AVX512_VBMI) &&
         CPU_FEATURE_ACTIVE(AVX512F) && CPU_FEATURE_ACTIVE(AVX512BW) &&
         CPU_FEATURE_ACTIVE(AVX512VL);
#else
  __builtin_cpu_init();
  return __builtin_cpu_supports("gfni") && __builtin_cpu_supports("avx512vbmi");
#endif
#else
  return false;
#endif
}

std::atomic<Kernels>& chosen() {
  static std::atomic<Kernels> k{built_kernels() == Kernels::avx512_gfni && !cpu_runs_gfni()
                                    ? Kernels::avx512
                                    : built_kernels()};
  return k;
}

}  // namespace

const char* kernels_name(Kernels k) {
  switch (k) {
    case Kernels::avx512: return "avx512";
    case Kernels::avx512_gfni: return "avx512+gfni";
    case Kernels::portable: break;
  }
  return "portable";
}

Kernels built_kernels() {
  if (COMMPRESS_HOMOMORPHIC_GFNI) return Kernels::avx512_gfni;
  return COMMPRESS_HOMOMORPHIC_AVX512 ? Kernels::avx512 : Kernels::portable;
}

Kernels active_kernels() { return chosen().load(std::memory_order_relaxed); }

bool use_kernels(Kernels k) {
  if (k == Kernels::portable || built_kernels() == Kernels::portable) return false;
  if (k == Kernels::avx512_gfni && (built_kernels() != k || !cpu_runs_gfni())) return false;
  chosen().store(k, std::memory_order_relaxed);
  return true;
}

}  // namespace commpress::codec::homomorphic
