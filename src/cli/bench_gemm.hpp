// `commpress bench gemm`: times the distributed multiply of include/commpress/linalg.hpp (and
// ScaLAPACK's pdgemm on the same data) under mpirun and prints one JSON line per measurement
// on rank 0; the fields are listed in bench/gemm/README.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "commpress/status.hpp"

namespace commpress::cli {

struct BenchGemmArgs {
  // "auto", an algorithm name (cannon, summa, ..., scalapack) or "blas" (the local product of
  // the whole matrices on a 1x1 grid: the node's dgemm rate); one measurement each.
  std::vector<std::string> algorithms;
  int64_t m = 0, n = 0, k = 0;
  std::string dtype = "f64";
  std::string transa = "N", transb = "N";
  std::string grid;                 // "PRxPC" or "PRxPCxC"; empty: chosen
  double zeros = 0;                 // fraction of exact zeros in A and B
  std::vector<std::string> codecs;  // "none", "auto" or registry names; one measurement each
  std::vector<double> bound_rel;    // REL bounds for the lossy codecs (one measurement each)
  std::vector<double> bound_abs;
  std::string reference = "auto";  // auto, serial, scalapack, none
  uint64_t seed = 1;
  int repeat = 3;
  int warmup = 1;
  std::string overlap = "on";
  int64_t panel = 0;
};

// Initializes and finalizes MPI itself (unless already initialized). Every rank returns the
// same status; measurements an algorithm does not support yet only print their error.
Status run_bench_gemm(const BenchGemmArgs& args);

}  // namespace commpress::cli
