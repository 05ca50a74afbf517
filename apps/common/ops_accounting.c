#include "ops_accounting.h"

#include <mpi.h>
#include <stdio.h>

#include "comm_ops.h"

static ops_totals totals;

void ops_account(double seconds, uint64_t raw_bytes, uint64_t sent_bytes) {
  totals.comm_seconds += seconds;
  totals.raw_bytes += raw_bytes;
  totals.sent_bytes += sent_bytes;
}

void ops_account_predicted(double seconds) {
  totals.predicted_seconds += seconds;
}

void ops_set_sent_known(int known) {
  totals.sent_known = known;
}

ops_totals ops_get_totals(void) {
  return totals;
}

void ops_reset_totals(void) {
  int known = totals.sent_known;
  totals = (ops_totals){0};
  totals.sent_known = known;
}

void ops_fail(const char* verb, const char* message) {
  int rank = -1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  fprintf(stderr, "rank %d: %s failed: %s\n", rank, verb, message);
  fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, 3);
}
