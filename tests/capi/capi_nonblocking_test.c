/* The C API's nonblocking, persistent and all-to-all collectives, compiled as C99 and run
 * with MPI_THREAD_MULTIPLE at several rank counts: results equal MPI's own bit for bit
 * (integer-valued doubles, so every summation order is exact), requests complete through
 * commpress_waitall and commpress_test, a persistent request runs several times, and a
 * mismatched count fails on every rank alike. */
#include <stdlib.h>
#include <string.h>

#include "capi_check_mpi.h"

enum { kN = 20000, kRequests = 5 };
static int rank_, size_;

static double value(int r, size_t i, int salt) { return (double)((i * 7 + (size_t)r * 13 + (size_t)salt) % 1000); }

static commpress_options* zstd_options(void) {
  commpress_options* o = NULL;
  CHECK_OK(commpress_options_create(&o));
  CHECK_OK(commpress_options_set_codec(o, "zstd-1"));
  return o;
}

static void iallreduce_waitall(void) {
  static double in[kRequests][kN], out[kRequests][kN], ref[kN];
  commpress_request* reqs[kRequests];
  commpress_report reps[kRequests];
  commpress_options* o = zstd_options();
  int i;
  size_t k;
  for (i = 0; i < kRequests; ++i) {
    for (k = 0; k < kN; ++k) in[i][k] = value(rank_, k, i);
    CHECK_OK(commpress_iallreduce(in[i], out[i], kN, COMMPRESS_F64, COMMPRESS_SUM, MPI_COMM_WORLD,
                                  o, &reqs[i]));
  }
  CHECK_OK(commpress_waitall(kRequests, reqs, reps));
  for (i = 0; i < kRequests; ++i) {
    MPI_Allreduce(in[i], ref, kN, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    CHECK(memcmp(out[i], ref, sizeof ref) == 0, "iallreduce %d differs from MPI_Allreduce", i);
    CHECK(reqs[i] == NULL, "waitall left request %d", i);
  }
  commpress_options_destroy(o);
}

static void ialltoall_test_loop(void) {
  size_t n = 1000, total = n * (size_t)size_, k;
  double* send = malloc(total * sizeof(double));
  double* out = malloc(total * sizeof(double));
  double* ref = malloc(total * sizeof(double));
  commpress_request* req = NULL;
  commpress_options* o = zstd_options();
  int flag = 0;
  CHECK(send && out && ref, "out of memory");
  for (k = 0; k < total; ++k) send[k] = value(rank_, k, 3);
  MPI_Alltoall(send, (int)n, MPI_DOUBLE, ref, (int)n, MPI_DOUBLE, MPI_COMM_WORLD);
  CHECK_OK(commpress_ialltoall(send, out, n, COMMPRESS_F64, MPI_COMM_WORLD, o, &req));
  while (!flag) CHECK_OK(commpress_test(req, &flag));
  CHECK_OK(commpress_wait(&req, NULL));
  CHECK(memcmp(out, ref, total * sizeof(double)) == 0, "ialltoall differs from MPI_Alltoall");
  memset(out, 0, total * sizeof(double));
  CHECK_OK(commpress_alltoall(send, out, n, COMMPRESS_F64, MPI_COMM_WORLD, o, NULL));
  CHECK(memcmp(out, ref, total * sizeof(double)) == 0, "alltoall differs from MPI_Alltoall");
  {
    /* alltoallv with the same layout as the alltoall */
    size_t* counts = malloc((size_t)size_ * sizeof(size_t));
    size_t* displs = malloc((size_t)size_ * sizeof(size_t));
    int r;
    for (r = 0; r < size_; ++r) counts[r] = n, displs[r] = (size_t)r * n;
    memset(out, 0, total * sizeof(double));
    CHECK_OK(commpress_alltoallv(send, counts, displs, out, counts, displs, COMMPRESS_F64,
                                 MPI_COMM_WORLD, o, NULL));
    CHECK(memcmp(out, ref, total * sizeof(double)) == 0, "alltoallv differs from MPI_Alltoall");
    free(counts);
    free(displs);
  }
  commpress_options_destroy(o);
  free(send);
  free(out);
  free(ref);
}

static void persistent_allreduce(void) {
  static double in[kN], out[kN], ref[kN];
  commpress_request* req = NULL;
  commpress_options* o = zstd_options();
  int round;
  size_t k;
  CHECK_OK(commpress_allreduce_init(in, out, kN, COMMPRESS_F64, COMMPRESS_SUM, MPI_COMM_WORLD, o,
                                    &req));
  for (round = 0; round < 3; ++round) {
    for (k = 0; k < kN; ++k) in[k] = value(rank_, k, 50 + round);
    MPI_Allreduce(in, ref, kN, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    CHECK_OK(commpress_start(req));
    CHECK_OK(commpress_wait(&req, NULL));
    CHECK(req != NULL, "commpress_wait freed a persistent request");
    CHECK(memcmp(out, ref, sizeof ref) == 0, "persistent allreduce round %d differs", round);
  }
  CHECK_OK(commpress_request_free(&req));
  CHECK(req == NULL, "commpress_request_free left the handle");
  commpress_options_destroy(o);
}

static void mismatch_fails_everywhere(void) {
  static double in[101], out[101];
  commpress_request* req = NULL;
  commpress_options* o = zstd_options();
  if (size_ < 2) {
    commpress_options_destroy(o);
    return;
  }
  CHECK_OK(commpress_iallreduce(in, out, rank_ == 0 ? 100 : 101, COMMPRESS_F64, COMMPRESS_SUM,
                                MPI_COMM_WORLD, o, &req));
  check_same_everywhere(commpress_wait(&req, NULL), COMMPRESS_MISMATCH, "iallreduce counts");
  commpress_options_destroy(o);
}

int main(int argc, char** argv) {
  int code, provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  capi_rank = rank_;
  CHECK(commpress_progress_thread_available() == (provided == MPI_THREAD_MULTIPLE),
        "progress thread availability does not follow the thread level");
  iallreduce_waitall();
  ialltoall_test_loop();
  persistent_allreduce();
  mismatch_fails_everywhere();
  code = finish_mpi_test("capi_nonblocking_test", rank_, size_);
  MPI_Finalize();
  return code;
}
