// The SMPI build's check that a rank is charged its own compute only in its first collective
// (comm/session/comm_dup.hpp; docs/smpi.md, "Communicator duplicates"). Two FusedRing
// allreduces of --count f64 values a rank, each after a barrier: the first call sets up the
// session (it duplicates the communicator), the second does the same work without it. Charged
// the other ranks' compute across the duplicate, the first call took longer than the second
// by a margin that grew with the ranks (docs/smpi.md, "Communicator duplicates", has the
// figures). The run fails when the first call takes more than twice the second (plus 2 ms)
// on the slowest rank, or a result is wrong. The ranks' compute is charged as the host
// measures it, which other jobs on a busy host inflate, the first call's most: twice leaves
// room for that and still catches the defect (docs/smpi.md has both runs' figures).
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "commpress/comm.hpp"

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  size_t n = 1 << 20;
  for (int i = 1; i + 1 < argc; ++i)
    if (std::string(argv[i]) == "--count") n = std::strtoull(argv[++i], nullptr, 10);

  std::vector<double> send(n), recv(n);
  for (size_t i = 0; i < n; ++i) send[i] = std::sin(1e-3 * double(i)) + rank;
  commpress::comm::Options o;
  o.algorithm = commpress::Algorithm::FusedRing;
  o.bound = commpress::comm::ErrorBound::relative(1e-4);

  double took[2] = {0, 0};
  bool correct = true;
  for (double& t : took) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    auto rep = commpress::comm::allreduce(send.data(), recv.data(), n, commpress::comm::Dtype::f64,
                                          commpress::comm::Op::sum, MPI_COMM_WORLD, o);
    const double mine = MPI_Wtime() - t0;
    MPI_Allreduce(&mine, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    for (size_t i = 0; rep.ok() && i < n; ++i) {
      const double exact = ranks * std::sin(1e-3 * double(i)) + ranks * (ranks - 1) / 2.0;
      correct &= std::fabs(recv[i] - exact) <= rep.value().guaranteed_abs_bound + 1e-9;
    }
    correct &= rep.ok();
  }
  const double allowed = 2.0 * took[1] + 0.002;
  const bool charged_own = took[0] <= allowed;
  int ok = correct && charged_own, all = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  if (rank == 0)
    std::fprintf(all ? stdout : stderr,
                 "smpi_dup_charge: %d ranks, %zu values: first call %.4f s, second %.4f s (at "
                 "most %.4f allowed), results %s: %s\n", ranks, n, took[0], took[1],
                 allowed, correct ? "within bound" : "WRONG", all ? "ok" : "FAILED");
  MPI_Finalize();
  return all ? 0 : 1;
}
