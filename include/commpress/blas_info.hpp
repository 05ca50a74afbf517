// Which BLAS the local products run on, and whether it chose a kernel fit for this CPU.
//
// Debian's OpenBLAS picks its kernel at load time from the CPU model; on CPU models newer than
// the library it can fall back to a generic SSE kernel ("Prescott") even where AVX2 or AVX-512
// is available, so every local product runs several times slower and nothing else notices.
// blas_info() names the library, version and kernel, and says when the kernel is such a
// fallback and which OPENBLAS_CORETYPE fixes it. OpenBLAS reads that variable when it loads,
// so the remedy applies to the next process, not this one.
#pragma once

#include <cstdint>
#include <string>

namespace commpress::linalg {

struct BlasInfo {
  std::string library;  // "OpenBLAS"
  std::string version;  // "0.3.21"
  std::string config;   // the library's build configuration line
  std::string core;     // the kernel it runs ("SkylakeX", "Haswell", "Prescott", ...)
  int threads = 1;      // its thread count in this process now
  std::string cpu_isa;  // the widest vector extension this CPU offers: "avx512f", "avx2" or ""
  // The kernel has no AVX2 code while the CPU has AVX2 or AVX-512.
  bool fallback = false;
  // The OPENBLAS_CORETYPE that selects a kernel for this CPU's extension, whatever the current
  // kernel ("SkylakeX" with AVX-512, "Haswell" with AVX2, "" without either).
  std::string fit_core;
  // One line: library, version, kernel, threads; with the remedy when fallback.
  std::string describe() const;
};

BlasInfo blas_info();

// A kernel name from OpenBLAS with AVX2 (or wider) code; false for the generic kernels.
bool blas_core_has_avx2(const std::string& core);

// Flop/s of `reps` double-precision n x n x n products: the best of them, after one untimed
// product. threads > 0 first sets the BLAS threads of this process to that many; 0 keeps them.
double measure_dgemm_flops(int64_t n = 1024, int reps = 3, int threads = 0);

}  // namespace commpress::linalg
