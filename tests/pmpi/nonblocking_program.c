/* An unmodified MPI program (no commpress header): MPI_Alltoall, MPI_Alltoallv and the nonblocking
 * collectives the preload intercepts, many in flight at once, completed through MPI's own
 * MPI_Wait, MPI_Test, MPI_Waitany and MPI_Waitall in an order that differs between ranks, some
 * on a communicator freed before they complete, checked against values computed locally.
 *
 *   nonblocking_program exact [free-early]          every result bit for bit
 *   nonblocking_program rel <fraction> [free-early] float results within fraction * (global
 *                                                   input range)
 * free-early frees the duplicate communicator while its operations are in flight, as MPI
 * allows (Open MPI 4.1's own nonblocking collectives crash on that, so the run without the
 * preload leaves it out).
 *
 * Inputs are multiples of 1/64 below 8 in magnitude: every sum over up to 9 ranks is exact in
 * any order, so MPI's own result and a lossless compressed one both equal the reference. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kOps = 8 };
static int rank, size, failures, free_early;
static double rel = 0; /* 0: exact */
static const double lo = -8.0, hi = 1023.0 / 64.0 - 8.0;

static double value(int r, long i, int salt) {
  return (double)((i * 7 + r * 13 + salt * 5) % 1024) / 64.0 - 8.0;
}

static void check(const char* what, int k, double got, double want, long i) {
  double allowed = rel == 0 ? 0 : rel * (hi - lo);
  if (!(fabs(got - want) <= allowed)) {
    if (failures < 5)
      fprintf(stderr, "FAIL rank %d: %s (op %d) element %ld: got %.17g, want %.17g\n", rank,
              what, k, i, got, want);
    ++failures;
  }
}

static double sum_ref(long i, int salt) {
  double acc = 0;
  for (int r = 0; r < size; ++r) acc += value(r, i, salt);
  return acc;
}

/* One nonblocking operation: kind k % 5 on comm, with its buffers. */
struct Op {
  int kind;
  long n; /* the call's count (per rank for the block operations) */
  double *in, *out;
  MPI_Comm comm;
  MPI_Request req;
  int done;
};

static const char* kNames[] = {"MPI_Iallreduce", "MPI_Ireduce_scatter_block", "MPI_Ibcast",
                               "MPI_Iallgather", "MPI_Ialltoall"};

static void post(struct Op* op, int k, MPI_Comm comm) {
  const long n = 16384 + 1024 * k; /* 128 KiB and up: above the test's threshold */
  const long total = n * size;
  op->kind = k % 5;
  op->n = n;
  op->comm = comm;
  op->done = 0;
  op->in = malloc(total * sizeof(double));
  op->out = malloc(total * sizeof(double));
  for (long i = 0; i < total; ++i) op->in[i] = value(rank, i, k), op->out[i] = -99;
  switch (op->kind) {
    case 0: MPI_Iallreduce(op->in, op->out, (int)n, MPI_DOUBLE, MPI_SUM, comm, &op->req); break;
    case 1:
      MPI_Ireduce_scatter_block(op->in, op->out, (int)n, MPI_DOUBLE, MPI_SUM, comm, &op->req);
      break;
    case 2:
      if (rank == size - 1) memcpy(op->out, op->in, n * sizeof(double));
      MPI_Ibcast(op->out, (int)n, MPI_DOUBLE, size - 1, comm, &op->req);
      break;
    case 3:
      MPI_Iallgather(op->in, (int)n, MPI_DOUBLE, op->out, (int)n, MPI_DOUBLE, comm, &op->req);
      break;
    default:
      MPI_Ialltoall(op->in, (int)n, MPI_DOUBLE, op->out, (int)n, MPI_DOUBLE, comm, &op->req);
  }
}

static void verify(struct Op* op, int k) {
  const long n = op->n;
  const char* what = kNames[op->kind];
  for (long i = 0; i < n; ++i) {
    switch (op->kind) {
      case 0: check(what, k, op->out[i], sum_ref(i, k), i); break;
      case 1: check(what, k, op->out[i], sum_ref((long)rank * n + i, k), i); break;
      case 2: check(what, k, op->out[i], value(size - 1, i, k), i); break;
      case 3:
        for (int r = 0; r < size; ++r) check(what, k, op->out[r * n + i], value(r, i, k), r * n + i);
        break;
      default: /* block r came from rank r: its block number `rank` */
        for (int r = 0; r < size; ++r)
          check(what, k, op->out[r * n + i], value(r, (long)rank * n + i, k), r * n + i);
    }
  }
  free(op->in);
  free(op->out);
}

int main(int argc, char** argv) {
  struct Op ops[kOps];
  MPI_Request reqs[kOps];
  MPI_Comm dup;
  int k;
  volatile double sink = 0;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 2 && strcmp(argv[1], "rel") == 0) rel = atof(argv[2]);
  free_early = strcmp(argv[argc - 1], "free-early") == 0;

  /* Blocking MPI_Alltoall, float: block r of the result is rank r's block `rank`. */
  {
    const long n = 65536;
    float* in = malloc(n * size * sizeof(float));
    float* out = malloc(n * size * sizeof(float));
    for (long i = 0; i < n * size; ++i) in[i] = (float)value(rank, i, 99);
    MPI_Alltoall(in, (int)n, MPI_FLOAT, out, (int)n, MPI_FLOAT, MPI_COMM_WORLD);
    for (int r = 0; r < size; ++r)
      for (long i = 0; i < n; ++i)
        check("MPI_Alltoall", -1, out[r * n + i], (float)value(r, (long)rank * n + i, 99), i);
    free(in);
    free(out);
  }

  /* Blocking MPI_Alltoallv, double: rank s sends (s + d) % 3 + 1 blocks of 20000 to rank d,
   * packed in reverse order of destination; every element of every block checked. */
  {
    const long unit = 20000;
    int* sc = malloc(size * sizeof(int));
    int* sd = malloc(size * sizeof(int));
    int* rc = malloc(size * sizeof(int));
    int* rd = malloc(size * sizeof(int));
    long stotal = 0, rtotal = 0;
    for (int d = size - 1; d >= 0; --d) {
      sc[d] = (int)(((rank + d) % 3 + 1) * unit);
      sd[d] = (int)stotal;
      stotal += sc[d];
    }
    for (int s = 0; s < size; ++s) {
      rc[s] = (int)(((s + rank) % 3 + 1) * unit);
      rd[s] = (int)rtotal;
      rtotal += rc[s];
    }
    double* in = malloc(stotal * sizeof(double));
    double* out = malloc(rtotal * sizeof(double));
    for (int d = 0; d < size; ++d)
      for (long i = 0; i < sc[d]; ++i) in[sd[d] + i] = value(rank, d * 1000003L + i, 77);
    MPI_Alltoallv(in, sc, sd, MPI_DOUBLE, out, rc, rd, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int s = 0; s < size; ++s)
      for (long i = 0; i < rc[s]; ++i)
        check("MPI_Alltoallv", -1, out[rd[s] + i], value(s, rank * 1000003L + i, 77), i);
    free(in);
    free(out);
    free(sc);
    free(sd);
    free(rc);
    free(rd);
  }

  /* kOps operations in flight, every third on a duplicate (freed before they complete). */
  MPI_Comm_dup(MPI_COMM_WORLD, &dup);
  for (k = 0; k < kOps; ++k) {
    post(&ops[k], k, k % 3 == 2 ? dup : MPI_COMM_WORLD);
    reqs[k] = ops[k].req;
  }
  if (free_early) MPI_Comm_free(&dup);
  for (long i = 0; i < 2000000; ++i) sink = sink + 1e-9 * (double)i; /* the caller computes */

  /* Completion: the first two by MPI_Test polling (odd ranks: the last two), then one by
   * MPI_Waitany, the rest by MPI_Waitall. */
  for (int j = 0; j < 2; ++j) {
    int idx = rank % 2 ? kOps - 1 - j : j, flag = 0;
    while (!flag) MPI_Test(&reqs[idx], &flag, MPI_STATUS_IGNORE);
    ops[idx].done = 1;
  }
  {
    int idx = MPI_UNDEFINED;
    MPI_Waitany(kOps, reqs, &idx, MPI_STATUS_IGNORE);
    if (idx != MPI_UNDEFINED) ops[idx].done = 1;
  }
  MPI_Waitall(kOps, reqs, MPI_STATUSES_IGNORE);
  if (!free_early) MPI_Comm_free(&dup);
  for (k = 0; k < kOps; ++k) {
    if (reqs[k] != MPI_REQUEST_NULL) {
      fprintf(stderr, "FAIL rank %d: request %d not null after MPI_Waitall\n", rank, k);
      ++failures;
    }
    verify(&ops[k], k);
  }

  /* Passed through: integers, and a call below the threshold. */
  {
    static int in[20000], out[20000];
    double din[100], dout[100];
    MPI_Request r2[2];
    for (int i = 0; i < 20000; ++i) in[i] = i + rank;
    for (int i = 0; i < 100; ++i) din[i] = value(rank, i, 7);
    MPI_Iallreduce(in, out, 20000, MPI_INT, MPI_SUM, MPI_COMM_WORLD, &r2[0]);
    MPI_Iallreduce(din, dout, 100, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD, &r2[1]);
    MPI_Waitall(2, r2, MPI_STATUSES_IGNORE);
    for (int i = 0; i < 20000; ++i)
      if (out[i] != i * size + size * (size - 1) / 2) ++failures;
    for (int i = 0; i < 100; ++i)
      if (dout[i] != sum_ref(i, 7)) ++failures;
  }

  {
    int total = 0;
    MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf(total ? "FAIL: %d wrong elements\n" : "nonblocking: all %d ranks right\n",
                          total ? total : size);
    MPI_Finalize();
    return total ? 1 : 0;
  }
}
