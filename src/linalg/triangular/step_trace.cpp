#include "linalg/triangular/step_trace.hpp"

#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "comm/probe/timing.hpp"

namespace commpress::linalg::detail {

using comm::probe::process_cpu_seconds;

double StepTrace::seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

StepTrace::StepTrace(const LineGrid& g) : row_(g.row), col_(g.col) {
  const char* prefix = std::getenv("COMMPRESS_TRIANGULAR_TRACE");
  if (prefix == nullptr || *prefix == '\0') return;
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  on_ = true;
  path_ = std::string(prefix) + "." + std::to_string(rank);
  events_.reserve(4096);
  cpu0_ = process_cpu_seconds();
  wall0_ = seconds();
}

StepTrace::~StepTrace() {
  if (!on_) return;
  const double wall = seconds() - wall0_, cpu = process_cpu_seconds() - cpu0_;
  FILE* f = std::fopen(path_.c_str(), "a");
  if (f == nullptr) return;  // a trace is a diagnostic: the factorization does not fail for it
  std::fprintf(f, "%.6f call %d %d\n", wall0_, row_, col_);
  for (const Event& e : events_) std::fprintf(f, "%.6f %s %lld\n", e.t, e.what, (long long)e.k);
  std::fprintf(f, "%.6f end wall %.6f cpu %.6f\n", seconds(), wall, cpu);
  std::fclose(f);
}

}  // namespace commpress::linalg::detail
