// The ranks of `commpress bench collective` run one plan: each measurement is a sequence of
// collectives, so a rank given other options (another --op, --repeat, list of algorithms...)
// would call different ones or a different number of them and leave the rest waiting.
#pragma once

#include <mpi.h>

#include "cli/bench_collective.hpp"

namespace commpress::cli {

// Collective: ok on every rank, or the same failure on every rank: the first option the
// ranks were given differently (named), else the lowest failing rank's `local` verdict.
Status agree_on_plan(const BenchCollectiveArgs& args, const Status& local, MPI_Comm comm);

}  // namespace commpress::cli
