// Cannon's block movement on a q x q grid in plain MPI (no commpress), as the multiply makes
// it: ranks row by row, q to a grid row, so with nodes of q ranks a row is one node and a
// column has one member a node. The skew sends row i's A block i places left and column j's B
// block j places up, straight to their places; each of the steps then sends A one place left
// along the row and B one place up the column, out of the buffers the previous step filled,
// with no barrier between steps. What the multiply's shifts are checked against under smpirun.
//   --q Q --bytes N --steps S [--skew 0|1]
// One JSON line on rank 0: the slowest rank's simulated seconds for the skew and for all.
#include <mpi.h>

#include <cstdio>
#include <utility>
#include <vector>

#include "plain_probe.hpp"

using plain_probe::slowest;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const plain_probe::Flags flags(argc, argv);
  int rank = 0, size = 1;
  const int q = int(flags.number("--q", 8)), steps = int(flags.number("--steps", 7));
  const int skew = int(flags.number("--skew", 1));
  const size_t bytes = size_t(flags.number("--bytes", 131072));
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size != q * q) {
    if (rank == 0) std::fprintf(stderr, "smpi_cannon_shift: %d ranks for a %d x %d grid\n", size, q, q);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int row = rank / q, col = rank % q;
  const auto at = [&](int i, int j) { return ((i % q + q) % q) * q + (j % q + q) % q; };
  std::vector<char> a(bytes), a_in(bytes), b(bytes), b_in(bytes);
  // One exchange of both operands: A from `a_from` to `a_to` along the row, B likewise.
  const auto exchange = [&](int a_to, int a_from, int b_to, int b_from) {
    MPI_Request rq[4];
    MPI_Irecv(a_in.data(), int(bytes), MPI_BYTE, a_from, 1, MPI_COMM_WORLD, &rq[0]);
    MPI_Isend(a.data(), int(bytes), MPI_BYTE, a_to, 1, MPI_COMM_WORLD, &rq[1]);
    MPI_Irecv(b_in.data(), int(bytes), MPI_BYTE, b_from, 2, MPI_COMM_WORLD, &rq[2]);
    MPI_Isend(b.data(), int(bytes), MPI_BYTE, b_to, 2, MPI_COMM_WORLD, &rq[3]);
    MPI_Waitall(2, rq, MPI_STATUSES_IGNORE);
    MPI_Waitall(2, rq + 2, MPI_STATUSES_IGNORE);
    std::swap(a, a_in);
    std::swap(b, b_in);
  };
  // A barrier lets the ranks out at different moments (one latency per set bit of the rank);
  // the multiply starts its skew as a small allreduce (its agreements) leaves every rank at once.
  if (flags.number("--start", 0) == 1) {
    double x = 0;
    MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  } else {
    MPI_Barrier(MPI_COMM_WORLD);
  }
  const double t0 = MPI_Wtime();
  if (skew) exchange(at(row, col - row), at(row, col + row), at(row - col, col), at(row + col, col));
  const double t1 = MPI_Wtime();
  for (int s = 0; s < steps; ++s)
    exchange(at(row, col - 1), at(row, col + 1), at(row - 1, col), at(row + 1, col));
  const double t2 = MPI_Wtime();
  const double skew_s = slowest(t1 - t0), all_s = slowest(t2 - t0);
  if (rank == 0)
    std::printf("{\"q\": %d, \"bytes\": %zu, \"steps\": %d, \"skew\": %d, \"skew_seconds\": %.9g, "
                "\"seconds\": %.9g}\n",
                q, bytes, steps, skew, skew_s, all_s);
  MPI_Finalize();
  return 0;
}
