// The plan of `commpress bench collective`, agreed across ranks before it runs
// (bench_plan_agreement.hpp).
#pragma once

#include <mpi.h>

#include "cli/bench_collective.hpp"

namespace commpress::cli {

// Collective: ok on every rank, or the same failure on every rank (the first option given
// differently, else the lowest failing rank's `local` verdict).
Status agree_on_plan(const BenchCollectiveArgs& args, const Status& local, MPI_Comm comm);

}  // namespace commpress::cli
