// Which kernels combine() and combine_raw() run, chosen once per process: the AVX-512
// register paths where this build of the library holds them (its x86-64-v4 glibc-hwcaps
// variant, or a -march=native build on such a CPU), with GFNI's plane transposes where the
// CPU also has GFNI and AVX512-VBMI (no hwcaps level includes them, so they are chosen here
// at run time), else the portable szp primitives. Every choice writes the same bytes.
#pragma once

namespace commpress::codec::homomorphic {

enum class Kernels { portable, avx512, avx512_gfni };

const char* kernels_name(Kernels k);  // "portable", "avx512", "avx512+gfni"

// The best kernels this build of the library holds.
Kernels built_kernels();

// What runs: built_kernels(), less GFNI where the CPU lacks GFNI or AVX512-VBMI, or where
// glibc's hwcaps tunable masks AVX512F (GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX512F,-AVX2, the
// switch that also makes the loader take the baseline build: docs/environment.md).
Kernels active_kernels();

// For tests: run k from now on. Only between avx512 and avx512_gfni, and only what the build
// holds and the CPU runs; false (nothing changed) otherwise.
bool use_kernels(Kernels k);

}  // namespace commpress::codec::homomorphic
