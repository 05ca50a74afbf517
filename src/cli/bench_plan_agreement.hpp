// The ranks of a `commpress bench` command run one plan: each measurement is a sequence of
// collectives, so a rank given other options (another --op, --repeat, list of algorithms...)
// would call different ones or a different number of them and leave the rest waiting.
#pragma once

#include <mpi.h>

#include <string>
#include <vector>

#include "commpress/status.hpp"

namespace commpress::cli {

// One option as this rank parsed it; lists in order, so another length or order differs.
struct PlanOption {
  const char* name;
  std::string text;
};

std::string plan_text(const std::vector<double>& values);
std::string plan_text(const std::vector<std::string>& values);

// Collective: ok on every rank, or the same failure on every rank: the first option the
// ranks were given differently (named), else the lowest failing rank's `local` verdict.
Status agree_on_plan(const std::vector<PlanOption>& options, const Status& local, MPI_Comm comm);

}  // namespace commpress::cli
