/* The communication half of the C API, compiled as C99 and run at several rank counts:
 * lossy results within the reported bound of an exact double reference, lossless results
 * bit-exact, and argument errors returned alike on every rank. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "capi_check_mpi.h"

static int rank_, size_;

/* Rank r's i-th input, the same function on every rank so each can build the reference. */
static double value(int r, size_t i) {
  return 2.0 * sin(0.0173 * (double)i * (double)(r + 1)) + 0.5 * (double)r;
}

static commpress_options* lossy_options(void) {
  commpress_options* o = NULL;
  CHECK_OK(commpress_options_create(&o));
  CHECK_OK(commpress_options_set_codec(o, "szp"));
  CHECK_OK(commpress_options_set_bound(o, COMMPRESS_ABS, 1e-3));
  return o;
}

static commpress_options* zstd_options(void) {
  commpress_options* o = NULL;
  CHECK_OK(commpress_options_create(&o));
  CHECK_OK(commpress_options_set_codec(o, "zstd-3"));
  return o;
}

static void allreduce_lossy(void) {
  enum { n = 1237 };
  static float send[n], recv[n];
  commpress_options* o = lossy_options();
  commpress_report rep;
  double worst = 0;
  size_t i;
  int r;
  for (i = 0; i < n; ++i) send[i] = (float)value(rank_, i);
  CHECK_OK(commpress_allreduce(send, recv, n, COMMPRESS_F32, COMMPRESS_SUM, MPI_COMM_WORLD, o,
                               &rep));
  CHECK(rep.guaranteed_abs_bound <= 1e-3, "guaranteed bound %g exceeds the 1e-3 asked",
        rep.guaranteed_abs_bound);
  for (i = 0; i < n; ++i) {
    double exact = 0, e;
    for (r = 0; r < size_; ++r) exact += (double)(float)value(r, i);
    e = fabs((double)recv[i] - exact);
    if (!(e <= worst)) worst = e;
  }
  CHECK(worst <= rep.guaranteed_abs_bound, "allreduce max error %g exceeds the guaranteed %g",
        worst, rep.guaranteed_abs_bound);
  if (size_ > 1)
    /* Auto compresses with szp, or runs an uncompressed algorithm (MPI's own, or the shared
       window on one node) and says it compressed nothing. */
    CHECK(strcmp(rep.codec, "szp") == 0 ||
              (strcmp(rep.codec, "none") == 0 && (rep.algorithm == COMMPRESS_ALG_MPI ||
                                                  rep.algorithm == COMMPRESS_ALG_SHARED_WINDOW)),
          "report codec '%s' algorithm %s", rep.codec, commpress_algorithm_name(rep.algorithm));

  /* In place (the same pointer), f64, an explicit algorithm. */
  {
    static double buf[n];
    CHECK_OK(commpress_options_set_algorithm(o, COMMPRESS_ALG_DOC_RING));
    for (i = 0; i < n; ++i) buf[i] = value(rank_, i);
    CHECK_OK(commpress_allreduce(buf, buf, n, COMMPRESS_F64, COMMPRESS_SUM, MPI_COMM_WORLD, o,
                                 &rep));
    worst = 0;
    for (i = 0; i < n; ++i) {
      double exact = 0, e;
      for (r = 0; r < size_; ++r) exact += value(r, i);
      e = fabs(buf[i] - exact);
      if (!(e <= worst)) worst = e;
    }
    CHECK(rep.guaranteed_abs_bound <= 1e-3, "in-place guaranteed bound %g",
          rep.guaranteed_abs_bound);
    CHECK(worst <= rep.guaranteed_abs_bound, "in-place max error %g exceeds %g", worst,
          rep.guaranteed_abs_bound);
    /* The chunk it ran with: the default 1 MiB for a forced algorithm, the asked one when set,
     * none for MPI's own operation. */
    CHECK(rep.chunk_bytes == (size_t)1 << 20, "DOC ring ran with chunk %zu", rep.chunk_bytes);
    CHECK_OK(commpress_options_set_chunk_bytes(o, 4096));
    CHECK_OK(commpress_allreduce(buf, buf, n, COMMPRESS_F64, COMMPRESS_SUM, MPI_COMM_WORLD, o,
                                 &rep));
    CHECK(rep.chunk_bytes == 4096, "DOC ring asked for 4096-byte chunks ran with %zu",
          rep.chunk_bytes);
    CHECK_OK(commpress_options_set_algorithm(o, COMMPRESS_ALG_MPI));
    CHECK_OK(commpress_allreduce(buf, buf, n, COMMPRESS_F64, COMMPRESS_SUM, MPI_COMM_WORLD, o,
                                 &rep));
    CHECK(rep.chunk_bytes == 0, "MPI's own allreduce reported chunk %zu", rep.chunk_bytes);
    CHECK_OK(commpress_options_set_chunk_bytes(o, 0));
  }
  commpress_options_destroy(o);
}

static void bcast_lossless(void) {
  enum { n = 3001 };
  static double buf[n], expect[n];
  const int root = size_ - 1;
  commpress_options* o = zstd_options();
  commpress_report rep;
  size_t i;
  for (i = 0; i < n; ++i) expect[i] = value(root, i);
  for (i = 0; i < n; ++i) buf[i] = rank_ == root ? expect[i] : -1.0;
  CHECK_OK(commpress_bcast(buf, n, COMMPRESS_F64, root, MPI_COMM_WORLD, o, &rep));
  CHECK(memcmp(buf, expect, sizeof buf) == 0, "zstd-3 bcast is not bit-exact");
  CHECK(rep.guaranteed_abs_bound == 0, "lossless bcast reports bound %g", rep.guaranteed_abs_bound);
  /* Default options (NULL) are exact too. */
  for (i = 0; i < n; ++i) buf[i] = rank_ == 0 ? expect[i] : 0.0;
  CHECK_OK(commpress_bcast(buf, n, COMMPRESS_F64, 0, MPI_COMM_WORLD, NULL, NULL));
  CHECK(memcmp(buf, expect, sizeof buf) == 0, "default bcast is not bit-exact");
  commpress_options_destroy(o);
}

static void allgather_and_friends(void) {
  enum { n = 211 };
  double* all = (double*)malloc(sizeof(double) * n * (size_t)size_);
  double* back = (double*)malloc(sizeof(double) * n * (size_t)size_);
  double mine[n], part[n];
  commpress_options* o = zstd_options();
  size_t i;
  int r, mismatches = 0;
  CHECK(all && back, "out of memory");
  if (!all || !back) return;
  for (i = 0; i < n; ++i) mine[i] = value(rank_, i);
  CHECK_OK(commpress_allgather(mine, all, n, COMMPRESS_F64, MPI_COMM_WORLD, o, NULL));
  for (r = 0; r < size_; ++r)
    for (i = 0; i < n; ++i) mismatches += all[(size_t)r * n + i] != value(r, i);
  CHECK(mismatches == 0, "allgather: %d elements differ", mismatches);

  /* gather to root 0, then scatter it back out: each rank gets its own block again. */
  memset(back, 0, sizeof(double) * n * (size_t)size_);
  CHECK_OK(commpress_gather(mine, back, n, COMMPRESS_F64, 0, MPI_COMM_WORLD, o, NULL));
  if (rank_ == 0)
    CHECK(memcmp(back, all, sizeof(double) * n * (size_t)size_) == 0, "gather differs");
  CHECK_OK(commpress_scatter(all, part, n, COMMPRESS_F64, 0, MPI_COMM_WORLD, o, NULL));
  CHECK(memcmp(part, mine, sizeof part) == 0, "scatter gave another block");
  commpress_options_destroy(o);
  free(all);
  free(back);
}

static void reductions_exact(void) {
  enum { per = 137 };
  const size_t n = (size_t)per * (size_t)size_;
  double* send = (double*)malloc(sizeof(double) * n);
  double* total = (double*)malloc(sizeof(double) * n);
  double block[per];
  size_t i;
  int r, bad = 0;
  CHECK(send && total, "out of memory");
  if (!send || !total) return;
  /* Integer values: every summation order gives the same exact double. */
  for (i = 0; i < n; ++i) send[i] = (double)((int)(i % 50) - 20 + 3 * rank_);
  CHECK_OK(commpress_reduce_scatter_block(send, block, per, COMMPRESS_F64, COMMPRESS_SUM,
                                          MPI_COMM_WORLD, NULL, NULL));
  for (i = 0; i < per; ++i) {
    size_t g = (size_t)rank_ * per + i;
    double exact = 0;
    for (r = 0; r < size_; ++r) exact += (double)((int)(g % 50) - 20 + 3 * r);
    bad += block[i] != exact;
  }
  CHECK(bad == 0, "reduce_scatter_block: %d elements differ", bad);

  CHECK_OK(commpress_reduce(send, total, n, COMMPRESS_F64, COMMPRESS_MAX, 0, MPI_COMM_WORLD,
                            NULL, NULL));
  if (rank_ == 0) {
    bad = 0;
    for (i = 0; i < n; ++i) bad += total[i] != (double)((int)(i % 50) - 20 + 3 * (size_ - 1));
    CHECK(bad == 0, "reduce max: %d elements differ", bad);
  }
  free(send);
  free(total);
}

static void reduce_scatter_lossy(void) {
  enum { per = 301 };
  const size_t n = (size_t)per * (size_t)size_;
  float* send = (float*)malloc(sizeof(float) * n);
  float block[per];
  commpress_options* o = lossy_options();
  commpress_report rep;
  double worst = 0;
  size_t i;
  int r;
  CHECK(send != NULL, "out of memory");
  if (!send) return;
  /* Explicit, so frames are combined even where the model would send raw data. */
  CHECK_OK(commpress_options_set_algorithm(o, COMMPRESS_ALG_HOMOMORPHIC_RING));
  for (i = 0; i < n; ++i) send[i] = (float)value(rank_, i);
  CHECK_OK(commpress_reduce_scatter_block(send, block, per, COMMPRESS_F32, COMMPRESS_SUM,
                                          MPI_COMM_WORLD, o, &rep));
  for (i = 0; i < per; ++i) {
    size_t g = (size_t)rank_ * per + i;
    double exact = 0, e;
    for (r = 0; r < size_; ++r) exact += (double)(float)value(r, g);
    e = fabs((double)block[i] - exact);
    if (!(e <= worst)) worst = e;
  }
  CHECK(rep.guaranteed_abs_bound <= 1e-3 && worst <= rep.guaranteed_abs_bound,
        "reduce_scatter_block max error %g, guaranteed %g", worst, rep.guaranteed_abs_bound);
  if (size_ > 1)
    CHECK(rep.algorithm == COMMPRESS_ALG_HOMOMORPHIC_RING && strcmp(rep.codec, "szp") == 0 &&
              rep.bytes_sent < rep.raw_bytes,
          "reduce_scatter_block ran %s with '%s', %llu of %llu bytes",
          commpress_algorithm_name(rep.algorithm), rep.codec,
          (unsigned long long)rep.bytes_sent, (unsigned long long)rep.raw_bytes);
  commpress_options_destroy(o);
  free(send);
}

static void point_to_point(void) {
  enum { n = 2003 };
  static float out[n], in[n];
  commpress_options* o = lossy_options();
  commpress_report rep;
  const int right = (rank_ + 1) % size_, left = (rank_ + size_ - 1) % size_;
  double worst = 0;
  size_t i;
  /* Direct, not Auto: the model may rightly send small messages uncompressed. */
  CHECK_OK(commpress_options_set_algorithm(o, COMMPRESS_ALG_DIRECT));
  for (i = 0; i < n; ++i) out[i] = (float)value(rank_, i);

  /* Blocking: ranks pair up (0<->1, 2<->3); the lower one sends first. */
  if ((rank_ ^ 1) < size_) {
    const int peer = rank_ ^ 1;
    if (rank_ < peer) {
      CHECK_OK(commpress_send(out, n, COMMPRESS_F32, peer, 7, MPI_COMM_WORLD, o, &rep));
      CHECK(rep.bytes_sent > 0 && rep.bytes_sent < rep.raw_bytes,
            "szp send moved %llu of %llu bytes", (unsigned long long)rep.bytes_sent,
            (unsigned long long)rep.raw_bytes);
      CHECK_OK(commpress_recv(in, n, COMMPRESS_F32, peer, 8, MPI_COMM_WORLD, o, &rep));
    } else {
      CHECK_OK(commpress_recv(in, n, COMMPRESS_F32, peer, 7, MPI_COMM_WORLD, o, &rep));
      CHECK_OK(commpress_send(out, n, COMMPRESS_F32, peer, 8, MPI_COMM_WORLD, o, NULL));
    }
    for (i = 0; i < n; ++i) {
      double e = fabs((double)in[i] - (double)(float)value(peer, i));
      if (!(e <= worst)) worst = e;
    }
    CHECK(rep.guaranteed_abs_bound <= 1e-3 && worst <= rep.guaranteed_abs_bound,
          "recv max error %g, guaranteed %g", worst, rep.guaranteed_abs_bound);
  }

  /* Nonblocking around a ring (to itself on one rank), lossless and bit-exact. */
  {
    static double dout[n], din[n];
    commpress_options* z = zstd_options();
    commpress_request* rq = NULL;
    commpress_request* sq = NULL;
    int flag = 0, bad = 0;
    CHECK_OK(commpress_options_set_algorithm(z, COMMPRESS_ALG_DIRECT));
    for (i = 0; i < n; ++i) dout[i] = value(rank_, i);
    CHECK_OK(commpress_irecv(din, n, COMMPRESS_F64, left, 9, MPI_COMM_WORLD, z, &rq));
    CHECK_OK(commpress_isend(dout, n, COMMPRESS_F64, right, 9, MPI_COMM_WORLD, z, &sq));
    /* A compressed isend completes only once its receiver has progressed the irecv, so
     * the receive is driven first (here by testing, as a program overlapping work would). */
    while (!flag) {
      int sent = 0;
      CHECK_OK(commpress_test(rq, &flag));
      CHECK_OK(commpress_test(sq, &sent));
      if (capi_failures) break;
    }
    CHECK_OK(commpress_wait(&rq, &rep));
    CHECK_OK(commpress_wait(&sq, NULL));
    CHECK(rq == NULL && sq == NULL, "wait did not reset the handles");
    CHECK_OK(commpress_wait(&rq, NULL)); /* already completed: a no-op */
    for (i = 0; i < n; ++i) bad += din[i] != value(left, i);
    CHECK(bad == 0, "isend/irecv: %d elements differ", bad);
    CHECK(strcmp(rep.codec, "zstd-3") == 0, "irecv report codec '%s'", rep.codec);
    commpress_options_destroy(z);
  }
  commpress_options_destroy(o);
}

static void errors_agree(void) {
  enum { n = 100 };
  static float send[n + 1], recv[n + 1];
  commpress_options* o = lossy_options();
  commpress_status st;
  size_t i;
  for (i = 0; i <= n; ++i) send[i] = (float)value(rank_, i);

  if (size_ > 1) { /* the last rank passes one element more */
    st = commpress_allreduce(send, recv, n + (rank_ == size_ - 1), COMMPRESS_F32, COMMPRESS_SUM,
                             MPI_COMM_WORLD, o, NULL);
    check_same_everywhere(st, COMMPRESS_MISMATCH, "allreduce with mismatched counts");
    CHECK(strstr(commpress_last_error(), "count") != NULL, "message does not name the count: %s",
          commpress_last_error());
  }
  /* A NULL buffer on rank 0 only. */
  st = commpress_allreduce(rank_ == 0 ? NULL : send, recv, n, COMMPRESS_F32, COMMPRESS_SUM,
                           MPI_COMM_WORLD, o, NULL);
  check_same_everywhere(st, COMMPRESS_INVALID_ARGUMENT, "allreduce with a NULL buffer on rank 0");
  /* An unknown op and an unknown dtype on the last rank only. */
  st = commpress_allreduce(send, recv, n, COMMPRESS_F32,
                           rank_ == size_ - 1 ? (commpress_op)42 : COMMPRESS_SUM, MPI_COMM_WORLD,
                           o, NULL);
  check_same_everywhere(st, COMMPRESS_INVALID_ARGUMENT,
                        "allreduce with an unknown op on the last rank");
  st = commpress_bcast(send, n, (commpress_dtype)(rank_ == size_ - 1 ? 261 : COMMPRESS_F32), 0,
                       MPI_COMM_WORLD, NULL, NULL);
  CHECK(st != COMMPRESS_OK, "bcast with an unknown dtype succeeded");
  check_same_everywhere(st, st, "bcast with an unknown dtype on the last rank");
  /* An unknown codec name and a root outside the communicator. */
  CHECK_OK(commpress_options_set_codec(o, "no-such-codec"));
  st = commpress_bcast(send, n, COMMPRESS_F32, 0, MPI_COMM_WORLD, o, NULL);
  check_same_everywhere(st, COMMPRESS_INVALID_ARGUMENT, "bcast with an unknown codec");
  CHECK(strstr(commpress_last_error(), "no-such-codec") != NULL, "message: %s",
        commpress_last_error());
  st = commpress_bcast(send, n, COMMPRESS_F32, size_, MPI_COMM_WORLD, NULL, NULL);
  check_same_everywhere(st, COMMPRESS_INVALID_ARGUMENT, "bcast with root == size");

  /* Local argument errors of the handles. */
  CHECK_STATUS(commpress_options_set_bound(o, (commpress_bound_mode)9, 1.0),
               COMMPRESS_INVALID_ARGUMENT);
  /* Bounds are checked when set: NaN, Inf, negative and zero ABS/REL values are refused. */
  {
    const double bad[] = {NAN, INFINITY, -1.0, 0.0};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; ++k) {
      CHECK_STATUS(commpress_options_set_bound(o, COMMPRESS_REL, bad[k]), COMMPRESS_INVALID_ARGUMENT);
      CHECK_STATUS(commpress_options_set_bound(o, COMMPRESS_ABS, bad[k]), COMMPRESS_INVALID_ARGUMENT);
    }
    CHECK(strstr(commpress_last_error(), "positive finite") != NULL, "message: %s",
          commpress_last_error());
  }
  CHECK_STATUS(commpress_options_set_algorithm(o, (commpress_algorithm)99),
               COMMPRESS_INVALID_ARGUMENT);
  /* Every algorithm of the table is accepted, the all-to-alls' last among them. */
  CHECK_OK(commpress_options_set_algorithm(o, COMMPRESS_ALG_PAIRWISE));
  CHECK_OK(commpress_options_set_algorithm(o, COMMPRESS_ALG_BRUCK));
  CHECK_STATUS(commpress_options_set_codec(NULL, "szp"), COMMPRESS_INVALID_ARGUMENT);
  CHECK_STATUS(commpress_options_create(NULL), COMMPRESS_INVALID_ARGUMENT);
  CHECK_STATUS(commpress_wait(NULL, NULL), COMMPRESS_INVALID_ARGUMENT);
  CHECK_STATUS(commpress_isend(send, n, COMMPRESS_F32, 0, 1, MPI_COMM_WORLD, NULL, NULL),
               COMMPRESS_INVALID_ARGUMENT);
  commpress_options_destroy(o);

  /* After all of that the ranks are still in step. */
  CHECK_OK(commpress_allreduce(send, recv, n, COMMPRESS_F32, COMMPRESS_MAX, MPI_COMM_WORLD, NULL,
                               NULL));
}

int main(int argc, char** argv) {
  int code;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  capi_rank = rank_;

  allreduce_lossy();
  bcast_lossless();
  allgather_and_friends();
  reductions_exact();
  reduce_scatter_lossy();
  point_to_point();
  errors_agree();

  code = finish_mpi_test("capi_mpi_test", rank_, size_);
  MPI_Finalize();
  return code;
}
