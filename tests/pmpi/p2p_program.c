/* An unmodified MPI program (plain C, MPI only) exercising point-to-point: each rank sends to
 * the next rank of a ring and receives from the previous one (one rank: itself), with
 * MPI_Send / MPI_Isend / MPI_Recv / MPI_Irecv / MPI_Sendrecv / MPI_Sendrecv_replace, probes
 * and matched probes,
 * wildcards, many requests in flight completed in an order of their own, derived datatypes,
 * integers, small messages, a cancelled receive and a persistent one (which the preload
 * refuses where compressed messages could reach it). It checks every element received, the
 * status (source, tag, MPI_Get_count) and MPI's order on one source and tag.
 *   p2p_program exact        every element bit for bit
 *   p2p_program rel <f>      every float element within f times its array's value range
 * Prints "p2p checks passed" on rank 0 when every rank passed; exits 1 otherwise. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define N 65536 /* 512 KiB of doubles: above the tests' COMMPRESS_MIN_BYTES */
#define SMALL 100

static int rank, size, next, prev, failures;
static double rel = 0; /* 0: exact */

static void fail(const char* what, long i, double got, double want) {
  if (failures++ < 10)
    fprintf(stderr, "rank %d: %s: element %ld is %.17g, expected %.17g\n", rank, what, i, got,
            want);
}

/* A random walk (smooth, so a lossy codec compresses it), different for every seed. */
static void walk(double* x, long n, unsigned seed) {
  double v = seed;
  for (long i = 0; i < n; ++i) {
    seed = seed * 1103515245u + 12345u;
    v += ((int)((seed >> 8) % 2001) - 1000) * 1e-3;
    x[i] = v;
  }
}

static double range_of(const double* x, long n) {
  double lo = x[0], hi = x[0];
  for (long i = 1; i < n; ++i) {
    lo = x[i] < lo ? x[i] : lo;
    hi = x[i] > hi ? x[i] : hi;
  }
  return hi - lo;
}

static void check(const char* what, const double* got, const double* want, long n) {
  const double bound = rel * range_of(want, n);
  for (long i = 0; i < n; ++i)
    if (rel == 0 ? memcmp(&got[i], &want[i], sizeof(double)) != 0 : !(fabs(got[i] - want[i]) <= bound))
      fail(what, i, got[i], want[i]);
}

static void check_floats(const char* what, const float* got, const double* want64, long n) {
  float lo = (float)want64[0], hi = lo;
  for (long i = 0; i < n; ++i) {
    float w = (float)want64[i];
    lo = w < lo ? w : lo;
    hi = w > hi ? w : hi;
  }
  const double bound = rel * ((double)hi - (double)lo);
  for (long i = 0; i < n; ++i) {
    float w = (float)want64[i];
    if (rel == 0 ? memcmp(&got[i], &w, sizeof w) != 0 : !(fabs((double)got[i] - w) <= bound))
      fail(what, i, got[i], w);
  }
}

static void check_status(const char* what, MPI_Status* st, int source, int tag,
                         MPI_Datatype type, int count) {
  int n = -1;
  MPI_Get_count(st, type, &n);
  if (st->MPI_SOURCE != source || st->MPI_TAG != tag || n != count) {
    if (failures++ < 10)
      fprintf(stderr, "rank %d: %s: status source %d tag %d count %d, expected %d %d %d\n",
              rank, what, st->MPI_SOURCE, st->MPI_TAG, n, source, tag, count);
  }
}

/* Seeds: what rank r sends with tag t. */
static unsigned seed_of(int r, int t) { return (unsigned)(1000 * r + t + 1); }

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 2 && strcmp(argv[1], "rel") == 0) rel = atof(argv[2]);
  next = (rank + 1) % size;
  prev = (rank + size - 1) % size;
  double* out = malloc(sizeof(double) * N * 4);
  double* in = malloc(sizeof(double) * N * 4);
  double* want = malloc(sizeof(double) * N * 4);
  MPI_Status st;
  MPI_Request req;

  /* 1. MPI_Isend + MPI_Recv of doubles, exact source and tag. */
  walk(out, N, seed_of(rank, 1));
  walk(want, N, seed_of(prev, 1));
  MPI_Isend(out, N, MPI_DOUBLE, next, 1, MPI_COMM_WORLD, &req);
  MPI_Recv(in, N, MPI_DOUBLE, prev, 1, MPI_COMM_WORLD, &st);
  MPI_Wait(&req, MPI_STATUS_IGNORE);
  check("isend/recv", in, want, N);
  check_status("isend/recv", &st, prev, 1, MPI_DOUBLE, N);

  /* 2. floats: MPI_Irecv posted first, MPI_Send, MPI_Wait; a receive larger than the message. */
  {
    float* fo = malloc(sizeof(float) * N * 2);
    float* fi = malloc(sizeof(float) * N * 2);
    walk(out, N * 2, seed_of(rank, 2));
    for (long i = 0; i < N * 2; ++i) fo[i] = (float)out[i];
    walk(want, N * 2, seed_of(prev, 2));
    MPI_Irecv(fi, N * 2 + 7, MPI_FLOAT, prev, 2, MPI_COMM_WORLD, &req);
    if (size == 1) {
      MPI_Request s;
      MPI_Isend(fo, N * 2, MPI_FLOAT, next, 2, MPI_COMM_WORLD, &s);
      MPI_Wait(&s, MPI_STATUS_IGNORE);
    } else {
      MPI_Send(fo, N * 2, MPI_FLOAT, next, 2, MPI_COMM_WORLD);
    }
    MPI_Wait(&req, &st);
    check_floats("irecv floats", fi, want, N * 2);
    check_status("irecv floats", &st, prev, 2, MPI_FLOAT, N * 2);
    free(fo);
    free(fi);
  }

  /* 3. wildcards: MPI_ANY_SOURCE and MPI_ANY_TAG, the status says who sent what. */
  walk(out, N, seed_of(rank, 30 + rank));
  walk(want, N, seed_of(prev, 30 + prev));
  MPI_Irecv(in, N, MPI_DOUBLE, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &req);
  MPI_Barrier(MPI_COMM_WORLD); /* the wildcard receive is the only one posted */
  {
    MPI_Request s;
    MPI_Isend(out, N, MPI_DOUBLE, next, 30 + rank, MPI_COMM_WORLD, &s);
    MPI_Wait(&req, &st);
    MPI_Wait(&s, MPI_STATUS_IGNORE);
  }
  check("any source/tag", in, want, N);
  check_status("any source/tag", &st, prev, 30 + prev, MPI_DOUBLE, N);

  /* 4. MPI's order on one source and tag: compressed, small, compressed, integers. */
  {
    MPI_Request s[4];
    int* io = malloc(sizeof(int) * N);
    int* ii = malloc(sizeof(int) * N);
    for (long i = 0; i < N; ++i) io[i] = (int)(i * 7 + rank);
    walk(out, N, seed_of(rank, 41));
    walk(out + N, SMALL, seed_of(rank, 42));
    walk(out + 2 * N, N, seed_of(rank, 43));
    MPI_Isend(out, N, MPI_DOUBLE, next, 4, MPI_COMM_WORLD, &s[0]);
    MPI_Isend(out + N, SMALL, MPI_DOUBLE, next, 4, MPI_COMM_WORLD, &s[1]);
    MPI_Isend(out + 2 * N, N, MPI_DOUBLE, next, 4, MPI_COMM_WORLD, &s[2]);
    MPI_Isend(io, N, MPI_INT, next, 4, MPI_COMM_WORLD, &s[3]);
    MPI_Recv(in, N, MPI_DOUBLE, prev, 4, MPI_COMM_WORLD, &st);
    walk(want, N, seed_of(prev, 41));
    check("order 1", in, want, N);
    check_status("order 1", &st, prev, 4, MPI_DOUBLE, N);
    MPI_Recv(in, N, MPI_DOUBLE, prev, 4, MPI_COMM_WORLD, &st); /* room for more than sent */
    walk(want, SMALL, seed_of(prev, 42));
    check("order 2 (small)", in, want, SMALL);
    check_status("order 2 (small)", &st, prev, 4, MPI_DOUBLE, SMALL);
    MPI_Recv(in, N, MPI_DOUBLE, prev, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    walk(want, N, seed_of(prev, 43));
    check("order 3", in, want, N);
    MPI_Recv(ii, N, MPI_INT, MPI_ANY_SOURCE, 4, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    for (long i = 0; i < N; ++i)
      if (ii[i] != (int)(i * 7 + prev)) fail("integers", i, ii[i], (double)(i * 7 + prev));
    MPI_Waitall(4, s, MPI_STATUSES_IGNORE);
    free(io);
    free(ii);
  }

  /* 5. many in flight: 8 messages per rank, received in reverse tag order, completed by
   * MPI_Waitany, MPI_Testany, MPI_Waitsome and MPI_Waitall. */
  {
    enum { K = 8 };
    double* many_out = malloc(sizeof(double) * N * K);
    double* many_in = malloc(sizeof(double) * N * K);
    MPI_Request s[K], r[K];
    int seen[K] = {0};
    for (int k = 0; k < K; ++k) {
      walk(many_out + (long)k * N, N, seed_of(rank, 50 + k));
      MPI_Irecv(many_in + (long)k * N, N, MPI_DOUBLE, prev, 50 + (K - 1 - k), MPI_COMM_WORLD, &r[k]);
    }
    for (int k = 0; k < K; ++k)
      MPI_Isend(many_out + (long)k * N, N, MPI_DOUBLE, next, 50 + k, MPI_COMM_WORLD, &s[k]);
    for (int j = 0; j < 3; ++j) { /* three by MPI_Waitany */
      int idx;
      MPI_Waitany(K, r, &idx, &st);
      seen[idx] = 1;
      check_status("waitany", &st, prev, 50 + (K - 1 - idx), MPI_DOUBLE, N);
    }
    for (int j = 0; j < 2;) { /* two by MPI_Testany */
      int idx, flag;
      MPI_Testany(K, r, &idx, &flag, &st);
      if (flag && idx != MPI_UNDEFINED) {
        seen[idx] = 1;
        check_status("testany", &st, prev, 50 + (K - 1 - idx), MPI_DOUBLE, N);
        ++j;
      }
    }
    {
      int outcount, idx[K];
      MPI_Status sts[K];
      MPI_Waitsome(K, r, &outcount, idx, sts);
      for (int j = 0; j < outcount; ++j) {
        seen[idx[j]] = 1;
        check_status("waitsome", &sts[j], prev, 50 + (K - 1 - idx[j]), MPI_DOUBLE, N);
      }
    }
    {
      MPI_Status sts[K];
      MPI_Waitall(K, r, sts);
      for (int k = 0; k < K; ++k)
        if (!seen[k]) check_status("waitall", &sts[k], prev, 50 + (K - 1 - k), MPI_DOUBLE, N);
    }
    MPI_Waitall(K, s, MPI_STATUSES_IGNORE);
    for (int k = 0; k < K; ++k) {
      walk(want, N, seed_of(prev, 50 + (K - 1 - k)));
      check("many in flight", many_in + (long)k * N, want, N);
    }
    free(many_out);
    free(many_in);
  }

  /* 6. derived datatypes: a strided send passes through; a contiguous send lands in a
   * strided receive (every other double). */
  {
    MPI_Datatype every_other;
    MPI_Type_vector(N, 1, 2, MPI_DOUBLE, &every_other);
    MPI_Type_commit(&every_other);
    walk(out, 2 * N, seed_of(rank, 61));
    MPI_Isend(out, 1, every_other, next, 6, MPI_COMM_WORLD, &req);
    MPI_Recv(in, N, MPI_DOUBLE, prev, 6, MPI_COMM_WORLD, &st);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    walk(want + N, 2 * N, seed_of(prev, 61));
    for (long i = 0; i < N; ++i) want[i] = want[N + 2 * i];
    check("strided send", in, want, N);
    check_status("strided send", &st, prev, 6, MPI_DOUBLE, N);

    walk(out, N, seed_of(rank, 62));
    for (long i = 0; i < 2 * N; ++i) in[i] = -1;
    MPI_Irecv(in, 1, every_other, prev, 7, MPI_COMM_WORLD, &req);
    {
      MPI_Request s;
      MPI_Isend(out, N, MPI_DOUBLE, next, 7, MPI_COMM_WORLD, &s);
      MPI_Type_free(&every_other); /* MPI allows freeing a type a pending receive uses */
      MPI_Wait(&req, &st);
      MPI_Wait(&s, MPI_STATUS_IGNORE);
    }
    walk(want, N, seed_of(prev, 62));
    for (long i = 0; i < N; ++i) {
      want[N + i] = in[2 * i];
      if (in[2 * i + 1] != -1) fail("strided receive gap", 2 * i + 1, in[2 * i + 1], -1);
    }
    check("strided receive", want + N, want, N);
    check_status("strided receive", &st, prev, 7, MPI_DOUBLE, N);
  }

  /* 7. MPI_Probe / MPI_Iprobe size the buffer, then MPI_Recv / MPI_Irecv. */
  {
    int count = -1, flag = 0;
    walk(out, N + 3, seed_of(rank, 8));
    MPI_Isend(out, N + 3, MPI_DOUBLE, next, 8, MPI_COMM_WORLD, &req);
    MPI_Probe(prev, 8, MPI_COMM_WORLD, &st);
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    if (count != N + 3) fail("probe count", 0, count, N + 3);
    double* sized = malloc(sizeof(double) * (size_t)(count > 0 ? count : 1));
    MPI_Recv(sized, count, MPI_DOUBLE, st.MPI_SOURCE, st.MPI_TAG, MPI_COMM_WORLD, &st);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    walk(want, N + 3, seed_of(prev, 8));
    if (count == N + 3) check("probed", sized, want, N + 3);
    free(sized);

    walk(out, N, seed_of(rank, 9));
    MPI_Isend(out, N, MPI_DOUBLE, next, 9, MPI_COMM_WORLD, &req);
    while (!flag) MPI_Iprobe(MPI_ANY_SOURCE, 9, MPI_COMM_WORLD, &flag, &st);
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    if (count != N || st.MPI_SOURCE != prev) fail("iprobe count", st.MPI_SOURCE, count, N);
    MPI_Request r;
    MPI_Irecv(in, N, MPI_DOUBLE, st.MPI_SOURCE, 9, MPI_COMM_WORLD, &r);
    MPI_Wait(&r, &st);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    walk(want, N, seed_of(prev, 9));
    check("iprobed", in, want, N);
    check_status("iprobed", &st, prev, 9, MPI_DOUBLE, N);
  }

  /* 7b. matched probes: MPI_Mprobe + MPI_Mrecv, MPI_Improbe + MPI_Imrecv. */
  {
    int count = -1, flag = 0;
    MPI_Message msg;
    MPI_Request r;
    walk(out, N, seed_of(rank, 14));
    MPI_Isend(out, N, MPI_DOUBLE, next, 14, MPI_COMM_WORLD, &req);
    MPI_Mprobe(MPI_ANY_SOURCE, 14, MPI_COMM_WORLD, &msg, &st);
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    if (count != N || st.MPI_SOURCE != prev) fail("mprobe count", st.MPI_SOURCE, count, N);
    MPI_Mrecv(in, N, MPI_DOUBLE, &msg, &st);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    walk(want, N, seed_of(prev, 14));
    check("mprobed", in, want, N);
    check_status("mprobed", &st, prev, 14, MPI_DOUBLE, N);

    walk(out, N, seed_of(rank, 15));
    MPI_Isend(out, N, MPI_DOUBLE, next, 15, MPI_COMM_WORLD, &req);
    while (!flag) MPI_Improbe(prev, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &msg, &st);
    MPI_Get_count(&st, MPI_DOUBLE, &count);
    if (count != N || st.MPI_TAG != 15) fail("improbe count", st.MPI_TAG, count, N);
    MPI_Imrecv(in, N, MPI_DOUBLE, &msg, &r);
    MPI_Wait(&r, &st);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    walk(want, N, seed_of(prev, 15));
    check("improbed", in, want, N);
    check_status("improbed", &st, prev, 15, MPI_DOUBLE, N);
  }

  /* 8. MPI_Sendrecv and MPI_Sendrecv_replace around the ring. */
  walk(out, N, seed_of(rank, 10));
  MPI_Sendrecv(out, N, MPI_DOUBLE, next, 10, in, N, MPI_DOUBLE, prev, 10, MPI_COMM_WORLD, &st);
  walk(want, N, seed_of(prev, 10));
  check("sendrecv", in, want, N);
  check_status("sendrecv", &st, prev, 10, MPI_DOUBLE, N);
  walk(in, N, seed_of(rank, 11));
  MPI_Sendrecv_replace(in, N, MPI_DOUBLE, next, 11, prev, 11, MPI_COMM_WORLD, &st);
  walk(want, N, seed_of(prev, 11));
  check("sendrecv_replace", in, want, N);
  check_status("sendrecv_replace", &st, prev, 11, MPI_DOUBLE, N);

  /* 9. a receive nobody sends to, cancelled. */
  {
    int cancelled = 0;
    MPI_Irecv(in, N, MPI_DOUBLE, prev, 12, MPI_COMM_WORLD, &req);
    MPI_Cancel(&req);
    MPI_Wait(&req, &st);
    MPI_Test_cancelled(&st, &cancelled);
    if (!cancelled) fail("cancelled receive", 0, 0, 1);
  }

  /* 10. a duplicated communicator (the policy follows it), MPI_STATUS_IGNORE. */
  {
    MPI_Comm dup;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    walk(out, N, seed_of(rank, 13));
    MPI_Isend(out, N, MPI_DOUBLE, next, 13, dup, &req);
    MPI_Recv(in, N, MPI_DOUBLE, prev, 13, dup, MPI_STATUS_IGNORE);
    MPI_Wait(&req, MPI_STATUS_IGNORE);
    walk(want, N, seed_of(prev, 13));
    check("duplicate communicator", in, want, N);
    MPI_Comm_free(&dup);
  }

  /* 11. a persistent receive: runs as MPI's, or is refused with an error (never wrong data). */
  {
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    int mine = MPI_Recv_init(in, N, MPI_DOUBLE, prev, 16, MPI_COMM_WORLD, &req) == MPI_SUCCESS;
    int everyone = 0; /* a rank that decodes refuses, one that does not runs it: agree */
    MPI_Allreduce(&mine, &everyone, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (everyone) {
      MPI_Request s;
      walk(out, N, seed_of(rank, 16));
      MPI_Start(&req);
      MPI_Isend(out, N, MPI_DOUBLE, next, 16, MPI_COMM_WORLD, &s);
      MPI_Wait(&req, &st);
      MPI_Wait(&s, MPI_STATUS_IGNORE);
      walk(want, N, seed_of(prev, 16));
      check("persistent receive", in, want, N);
    } else if (rank == 0) {
      printf("persistent receive refused\n");
    }
    if (mine) MPI_Request_free(&req);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_ARE_FATAL);
  }

  int all = 0;
  MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf(all == 0 ? "p2p checks passed\n" : "p2p checks FAILED (%d)\n", all);
  free(out);
  free(in);
  free(want);
  MPI_Finalize();
  return all == 0 ? 0 : 1;
}
