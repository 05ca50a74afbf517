/* An unmodified MPI program (no commpress header): every collective the preload intercepts,
 * and the cases it must pass through, checked against values computed locally.
 *
 *   collectives_program exact          every result bit for bit
 *   collectives_program rel <fraction> float results within fraction * (global input range)
 *                                      of the exact ones; pass-through cases still exact
 *
 * The inputs are multiples of 1/64 below 8 in magnitude, so every sum over up to 9 ranks is
 * exact in float and double in any order: MPI's own result and a lossless compressed one
 * must both equal the local reference. Prints "FAIL ..." and exits 1 on any difference. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int rank, size, failures;
static double rel = 0; /* 0: exact */

static double value(int r, long i) { return (double)((i * 7 + r * 13) % 1024) / 64.0 - 8.0; }
/* Smallest and largest input over every rank (the range a REL bound refers to). */
static double lo = -8.0, hi = 1023.0 / 64.0 - 8.0;

static void check(const char* what, double got, double want, int exact, long i) {
  double allowed = exact ? 0 : rel * (hi - lo);
  if (!(fabs(got - want) <= allowed)) {
    if (failures < 5)
      fprintf(stderr, "FAIL rank %d: %s element %ld: got %.17g, want %.17g (allowed %g)\n", rank,
              what, i, got, want, allowed);
    ++failures;
  }
}

static double reduce_ref(int op, long i) {
  double acc = value(0, i);
  for (int r = 1; r < size; ++r) {
    double v = value(r, i);
    acc = op == 0 ? acc + v : op == 1 ? (v > acc ? v : acc) : (v < acc ? v : acc);
  }
  return acc;
}

static void my_sum(void* in, void* inout, int* len, MPI_Datatype* t) {
  (void)t;
  for (int i = 0; i < *len; ++i) ((double*)inout)[i] += ((double*)in)[i];
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (argc > 2 && strcmp(argv[1], "rel") == 0) rel = atof(argv[2]);
  const int exact = rel == 0;
  const long n = 1L << 16; /* 512 KiB of doubles, 256 KiB of floats: above the threshold */
  const long nb = n / size; /* per-rank block of the reduce-scatters and allgathers */
  double* d = malloc(n * sizeof *d);
  double* dr = malloc(n * sizeof *dr);
  float* f = malloc(n * sizeof *f);
  float* fr = malloc(n * sizeof *fr);
  int* ii = malloc(n * sizeof *ii);
  int* ir = malloc(n * sizeof *ir);
  long i;
#define FILL() for (i = 0; i < n; ++i) d[i] = value(rank, i), f[i] = (float)value(rank, i)

  /* Intercepted: allreduce sum (double), allreduce max in place (float). */
  FILL();
  MPI_Allreduce(d, dr, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (i = 0; i < n; ++i) check("allreduce sum double", dr[i], reduce_ref(0, i), exact, i);
  MPI_Allreduce(MPI_IN_PLACE, f, (int)n, MPI_FLOAT, MPI_MAX, MPI_COMM_WORLD);
  for (i = 0; i < n; ++i) check("allreduce max float in place", f[i], reduce_ref(1, i), exact, i);

  /* reduce sum (double) to the last rank; reduce min in place (float) at rank 0. */
  FILL();
  MPI_Reduce(d, rank == size - 1 ? dr : NULL, (int)n, MPI_DOUBLE, MPI_SUM, size - 1, MPI_COMM_WORLD);
  if (rank == size - 1)
    for (i = 0; i < n; ++i) check("reduce sum double", dr[i], reduce_ref(0, i), exact, i);
  MPI_Reduce(rank == 0 ? MPI_IN_PLACE : f, rank == 0 ? f : NULL, (int)n, MPI_FLOAT, MPI_MIN, 0,
             MPI_COMM_WORLD);
  if (rank == 0)
    for (i = 0; i < n; ++i) check("reduce min float in place", f[i], reduce_ref(2, i), exact, i);

  /* reduce_scatter_block (float), reduce_scatter with equal counts (double). */
  FILL();
  MPI_Reduce_scatter_block(f, fr, (int)nb, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD);
  for (i = 0; i < nb; ++i)
    check("reduce_scatter_block float", fr[i], reduce_ref(0, rank * nb + i), exact, i);
  int* counts = malloc(size * sizeof *counts);
  for (int r = 0; r < size; ++r) counts[r] = (int)nb;
  MPI_Reduce_scatter(d, dr, counts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  for (i = 0; i < nb; ++i)
    check("reduce_scatter double", dr[i], reduce_ref(0, rank * nb + i), exact, i);

  /* bcast (double) from rank 1 % size; allgather (float), allgather in place (double). */
  const int root = 1 % size;
  FILL();
  MPI_Bcast(d, (int)n, MPI_DOUBLE, root, MPI_COMM_WORLD);
  for (i = 0; i < n; ++i) check("bcast double", d[i], value(root, i), exact, i);
  FILL();
  MPI_Allgather(f, (int)nb, MPI_FLOAT, fr, (int)nb, MPI_FLOAT, MPI_COMM_WORLD);
  for (i = 0; i < nb * size; ++i) check("allgather float", fr[i], value((int)(i / nb), i % nb), exact, i);
  for (i = 0; i < nb; ++i) dr[rank * nb + i] = value(rank, i);
  MPI_Allgather(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, dr, (int)nb, MPI_DOUBLE, MPI_COMM_WORLD);
  for (i = 0; i < nb * size; ++i)
    check("allgather double in place", dr[i], value((int)(i / nb), i % nb), exact, i);

  /* Passed through under any policy, so exact under a lossy one too. */
  FILL();
  for (i = 0; i < n; ++i) ii[i] = (int)(i % 1000) + rank;
  MPI_Allreduce(ii, ir, (int)n, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  for (i = 0; i < n; ++i) {
    long want = 0;
    for (int r = 0; r < size; ++r) want += (i % 1000) + r;
    check("allreduce sum int", ir[i], (double)want, 1, i);
  }
  MPI_Op user;
  MPI_Op_create(my_sum, 1, &user);
  MPI_Allreduce(d, dr, (int)n, MPI_DOUBLE, user, MPI_COMM_WORLD);
  for (i = 0; i < n; ++i) check("allreduce user op", dr[i], reduce_ref(0, i), 1, i);
  MPI_Op_free(&user);
  MPI_Datatype pair;
  MPI_Type_contiguous(2, MPI_DOUBLE, &pair);
  MPI_Type_commit(&pair);
  MPI_Bcast(d, (int)(n / 2), pair, root, MPI_COMM_WORLD);
  for (i = 0; i < n; ++i) check("bcast derived type", d[i], value(root, i), 1, i);
  /* Legal MPI: the same type signature through a derived type at the root only. The ranks
   * that could compress must learn that the root cannot, or they would wait on each other. */
  FILL();
  if (rank == root) MPI_Bcast(d, (int)(n / 2), pair, root, MPI_COMM_WORLD);
  else MPI_Bcast(d, (int)n, MPI_DOUBLE, root, MPI_COMM_WORLD);
  for (i = 0; i < n; ++i) check("bcast derived type at the root only", d[i], value(root, i), 1, i);
  MPI_Type_free(&pair);
  FILL();
  MPI_Allreduce(d, dr, 1024, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD); /* 8 KiB: below threshold */
  for (i = 0; i < 1024; ++i) check("small allreduce", dr[i], reduce_ref(0, i), 1, i);
  if (size > 1) {
    for (int r = 0; r < size; ++r) counts[r] = (int)nb - (r == 0);
    MPI_Reduce_scatter(d, dr, counts, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    const long first = rank == 0 ? 0 : nb * rank - 1;
    for (i = 0; i < counts[rank]; ++i)
      check("reduce_scatter unequal", dr[i], reduce_ref(0, first + i), 1, i);
  }

  int total = 0;
  MPI_Allreduce(&failures, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("%s: %d ranks, %d wrong elements\n", total ? "FAIL" : "ok", size, total);
  free(counts), free(d), free(dr), free(f), free(fr), free(ii), free(ir);
  MPI_Finalize();
  return total ? 1 : 0;
}
