/* An unmodified MPI program setting a policy on one communicator through MPI_Comm_set_info
 * (keys "commpress_bound", "commpress_min_bytes"), then one that ranks disagree on, which
 * must fail on every rank with an error code (MPI_ERRORS_RETURN) rather than hang. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char** argv) {
  int rank, size, i, bad = 0;
  const int n = 1 << 15;
  double* x = malloc(n * sizeof *x);
  double* y = malloc(n * sizeof *y);
  MPI_Comm dup;
  MPI_Info info;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  MPI_Info_create(&info);
  MPI_Info_set(info, "commpress_bound", "rel:1e-3");
  MPI_Info_set(info, "commpress_min_bytes", "1024");
  MPI_Comm_set_info(dup, info);
  MPI_Info_free(&info);
  for (i = 0; i < n; ++i) x[i] = (double)((i * 5 + rank) % 512) / 32.0;
  MPI_Allreduce(x, y, n, MPI_DOUBLE, MPI_SUM, dup);            /* the communicator's policy */
  for (i = 0; i < n; ++i) {
    double want = 0;
    for (int r = 0; r < size; ++r) want += (double)((i * 5 + r) % 512) / 32.0;
    if (!(y[i] - want <= 1e-3 * (511.0 / 32) && want - y[i] <= 1e-3 * (511.0 / 32))) ++bad;
  }
  MPI_Allreduce(x, y, n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* the environment's */

  /* Ranks disagree: every rank must get an error back. */
  MPI_Comm_set_errhandler(dup, MPI_ERRORS_RETURN);
  MPI_Info_create(&info);
  MPI_Info_set(info, "commpress_bound", rank == 0 ? "abs:0.5" : "abs:0.25");
  const int rc = MPI_Comm_set_info(dup, info);
  MPI_Info_free(&info);
  int errors = rc != MPI_SUCCESS, all = 0;
  MPI_Allreduce(&errors, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  const int expect = size > 1 ? size : 0;
  if (rank == 0)
    printf("%s: %d elements outside the bound, %d of %d ranks failed the mismatched set_info "
           "(expected %d)\n", bad == 0 && all == expect ? "ok" : "FAIL", bad, all, size, expect);
  MPI_Comm_free(&dup);
  free(x), free(y);
  MPI_Finalize();
  return bad == 0 && all == expect ? 0 : 1;
}
