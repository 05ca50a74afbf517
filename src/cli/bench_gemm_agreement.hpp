// The plan of `commpress bench gemm`, agreed across ranks before it runs
// (bench_plan_agreement.hpp).
#pragma once

#include <mpi.h>

#include "cli/bench_gemm.hpp"

namespace commpress::cli {

// Collective: ok on every rank, or the same failure on every rank (the first option given
// differently, else the lowest failing rank's `local` verdict).
Status agree_on_plan(const BenchGemmArgs& args, const Status& local, MPI_Comm comm);

}  // namespace commpress::cli
