/* A point-to-point ping-pong between ranks 0 and 1, plain MPI (no commpress header), for
 * libcommpress_mpi.so against the same binary without it: rank 0 sends a random walk of
 * doubles with MPI_Send, rank 1 receives it with MPI_Recv and sends what it received back.
 *   bench_pmpi_pingpong [--bytes B (67108864)] [--rounds R (7)]
 * Prints "<bytes> <median round trip s> <min s> <max s> <MB/s one way at the median>" on rank 0
 * after one warm-up round. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int by_value(const void* a, const void* b) {
  const double x = *(const double*)a, y = *(const double*)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  long bytes = 67108864;
  int rounds = 7, rank, size;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (strcmp(argv[i], "--bytes") == 0) bytes = atol(argv[i + 1]);
    if (strcmp(argv[i], "--rounds") == 0) rounds = atoi(argv[i + 1]);
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    if (rank == 0) fprintf(stderr, "bench_pmpi_pingpong: needs 2 ranks\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  const int n = (int)(bytes / 8);
  double* x = malloc(sizeof(double) * (size_t)n);
  unsigned s = 12345;
  double v = 0;
  for (int i = 0; i < n; ++i) {
    s = s * 1103515245u + 12345u;
    x[i] = v += ((int)((s >> 8) % 2001) - 1000) * 1e-3;
  }
  double* t = malloc(sizeof(double) * (size_t)rounds);
  for (int r = -1; r < rounds; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    const double t0 = MPI_Wtime();
    if (rank == 0) {
      MPI_Send(x, n, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD);
      MPI_Recv(x, n, MPI_DOUBLE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    } else if (rank == 1) {
      MPI_Recv(x, n, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      MPI_Send(x, n, MPI_DOUBLE, 0, 0, MPI_COMM_WORLD);
    }
    if (r >= 0) t[r] = MPI_Wtime() - t0;
  }
  if (rank == 0) {
    qsort(t, (size_t)rounds, sizeof(double), by_value);
    const double med = t[rounds / 2];
    printf("%ld %.6f %.6f %.6f %.1f\n", (long)n * 8, med, t[0], t[rounds - 1],
           2.0 * (double)n * 8 / med / 1e6);
  }
  free(x);
  free(t);
  MPI_Finalize();
  return 0;
}
