// What one launch of `commpress bench gemm` measures: each requested algorithm with each codec
// and bound, on the grid it runs on. Settled before anything is timed.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "cli/bench_gemm.hpp"
#include "cli/bench_gemm_case.hpp"
#include "commpress/linalg.hpp"

namespace commpress::cli {

struct GemmMeasurement {
  std::string requested;  // the algorithm as given
  bool blas = false;      // one local BLAS call instead of a distributed multiply
  linalg::GemmOptions opts;
  GridShape grid;
};

// Collective over comm (Auto's grid comes from plan_gemm over comm); every rank gets the same
// plan or the same error.
Result<std::vector<GemmMeasurement>> plan_gemm_measurements(const BenchGemmArgs& args,
                                                            const GemmProblem& problem,
                                                            codec::Dtype dtype, MPI_Comm comm);

// "auto, cannon, summa, ...": every algorithm name, from the algorithm table.
std::string gemm_algorithm_list();

// --transa / --transb: N or T (either case).
Result<linalg::Trans> parse_trans(const char* option, const std::string& v);

// The problem the options describe (sizes, transposition, zeros, reference), checked.
Result<GemmProblem> gemm_problem_of(const BenchGemmArgs& args);

}  // namespace commpress::cli
