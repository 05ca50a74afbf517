// The SMPI build's check that a rank is charged its own compute only, across the library's
// communicator duplicate (comm/session/comm_dup.hpp; docs/smpi.md, "Communicator duplicates").
// After a barrier every rank but 0 computes for --work seconds of its thread's CPU, then all
// call a first allreduce, whose session duplicates the communicator. The duplicate ends when
// the last rank arrives, about --work after the barrier; a rank charged the others' compute
// while it waited there would end at about (ranks - 1) x --work. The run fails when the
// allreduce ends later than 3 x --work after the barrier on any rank, or its result is wrong.
#include <mpi.h>
#include <time.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "commpress/comm.hpp"

namespace {

double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

// Real CPU work that SMPI measures and charges: sums until `seconds` of this thread's CPU.
double compute_for(double seconds) {
  const double end = thread_cpu_seconds() + seconds;
  volatile double sink = 0;
  while (thread_cpu_seconds() < end)
    for (int i = 1; i < 10000; ++i) sink = sink + std::sqrt(double(i));
  return sink;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  double work = 0.02;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--work") work = std::strtod(argv[++i], nullptr);

  const size_t n = 4096;
  std::vector<double> send(n), recv(n);
  for (size_t i = 0; i < n; ++i) send[i] = std::sin(1e-3 * double(i)) + rank;
  commpress::comm::Options o;
  o.algorithm = commpress::Algorithm::FusedRing;
  o.bound = commpress::comm::ErrorBound::relative(1e-4);

  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();
  if (rank != 0) compute_for(work);
  auto rep = commpress::comm::allreduce(send.data(), recv.data(), n, commpress::comm::Dtype::f64,
                                        commpress::comm::Op::sum, MPI_COMM_WORLD, o);
  const double took = MPI_Wtime() - t0;

  double err = 0;
  for (size_t i = 0; rep.ok() && i < n; ++i) {
    const double exact = ranks * std::sin(1e-3 * double(i)) + ranks * (ranks - 1) / 2.0;
    err = std::max(err, std::fabs(recv[i] - exact));
  }
  const bool correct = rep.ok() && err <= rep.value().guaranteed_abs_bound + 1e-9;
  const bool charged_own = took <= 3 * work;
  int ok = correct && charged_own, all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (!ok)
    std::fprintf(stderr, "smpi_dup_charge: rank %d: %s, allreduce ended %.4f s after the barrier "
                         "(the others computed %.4f s; at most %.4f s allowed)\n",
                 rank, correct ? "result within bound" : "WRONG RESULT", took, work, 3 * work);
  if (rank == 0 && all)
    std::printf("smpi_dup_charge: %d ranks, allreduce ended %.4f s after the barrier, others "
                "computed %.4f s: ok\n", ranks, took, work);
  MPI_Finalize();
  return all ? 0 : 1;
}
