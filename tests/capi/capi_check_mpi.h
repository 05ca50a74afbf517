/* Checks for the MPI tests of the C API: a failing collective must fail alike everywhere. */
#ifndef COMMPRESS_CAPI_CHECK_MPI_H
#define COMMPRESS_CAPI_CHECK_MPI_H

#include "capi_check.h"

/* Every rank must see the same status, and the expected one: compares the extremes. */
static void check_same_everywhere(commpress_status st, commpress_status expected,
                                  const char* what) {
  int mine = (int)st, lo = 0, hi = 0;
  MPI_Allreduce(&mine, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&mine, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  CHECK(lo == hi, "%s: ranks disagree (statuses %d..%d)", what, lo, hi);
  CHECK(st == expected, "%s returned %s, expected %s: %s", what, commpress_status_name(st),
        commpress_status_name(expected), commpress_last_error());
}

/* Sums the failures of every rank; rank 0 prints the verdict. Returns the exit code. */
static int finish_mpi_test(const char* name, int rank, int size) {
  int total = 0;
  MPI_Allreduce(&capi_failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) {
    if (total)
      fprintf(stderr, "%s: %d check(s) failed across %d rank(s)\n", name, total, size);
    else
      printf("%s: all checks passed on %d rank(s)\n", name, size);
  }
  return total ? 1 : 0;
}

#endif /* COMMPRESS_CAPI_CHECK_MPI_H */
