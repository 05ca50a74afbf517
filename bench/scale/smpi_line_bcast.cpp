// MPI's own blocking broadcast along the lines of a grid, as the multiplies make it
// (docs/models.md, "MPI baselines"): ranks row by row, Q to a grid row, so with nodes of Q
// ranks a row is one node and a column has one member a node, the node's Q columns
// broadcasting at once. Plain MPI, no commpress: what the model of MPI_Bcast over a grid line
// is checked against under smpirun.
//   --cols Q --bytes N --pattern column|row|summa [--calls K]
// column / row: one broadcast over every column (row) at once, rooted at 0, 1, 2 in turn,
// after a barrier each; summa: K panels, each a row's then a column's broadcast rooted at
// panel mod Q (SUMMA without look-ahead). One JSON line per timing on rank 0, the slowest
// rank's simulated seconds.
#include <mpi.h>

#include <cstdio>
#include <string>
#include <vector>

#include "plain_probe.hpp"

using plain_probe::slowest;

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  const plain_probe::Flags flags(argc, argv);
  int rank = 0, size = 1;
  const int q = int(flags.number("--cols", 8)), calls = int(flags.number("--calls", 8));
  const size_t bytes = size_t(flags.number("--bytes", 131072));
  const std::string pattern = flags.text("--pattern", "column");
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (q < 1 || size % q != 0 || bytes == 0 || calls < 1) {
    if (rank == 0) std::fprintf(stderr, "smpi_line_bcast: --cols must divide the ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Comm row, col;
  MPI_Comm_split(MPI_COMM_WORLD, rank / q, rank % q, &row);
  MPI_Comm_split(MPI_COMM_WORLD, rank % q, rank / q, &col);
  std::vector<char> a(bytes, 1), b(bytes, 2);
  const int n = int(bytes);
  if (pattern == "summa") {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    for (int t = 0; t < calls; ++t) {
      MPI_Bcast(a.data(), n, MPI_BYTE, t % q, row);
      MPI_Bcast(b.data(), n, MPI_BYTE, t % (size / q), col);
    }
    const double s = slowest(MPI_Wtime() - t0);
    if (rank == 0)
      std::printf("{\"pattern\": \"summa\", \"cols\": %d, \"ranks\": %d, \"bytes\": %zu, "
                  "\"calls\": %d, \"seconds\": %.9g}\n", q, size, bytes, calls, s);
  } else {
    MPI_Comm line = pattern == "row" ? row : col;
    int members = 1;
    MPI_Comm_size(line, &members);
    for (int root = 0; root < 3 && root < members; ++root) {
      MPI_Barrier(MPI_COMM_WORLD);
      const double t0 = MPI_Wtime();
      MPI_Bcast(b.data(), n, MPI_BYTE, root, line);
      const double s = slowest(MPI_Wtime() - t0);
      if (rank == 0)
        std::printf("{\"pattern\": \"%s\", \"cols\": %d, \"ranks\": %d, \"bytes\": %zu, "
                    "\"root\": %d, \"seconds\": %.9g}\n", pattern.c_str(), q, size, bytes, root, s);
    }
  }
  MPI_Comm_free(&row);
  MPI_Comm_free(&col);
  MPI_Finalize();
  return 0;
}
