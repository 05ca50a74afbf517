/* An unmodified ScaLAPACK program (no commpress header): pdpotrf_ on A = L0 L0^T, then
 * pdtrsm_ twice to solve A X = B, and pspotrf_ / pstrsm_ on the same data in single precision.
 * L0 is unit lower triangular with entries in {-1, 0, 1} and X0 small integers, so every step
 * of the factorization and the solves is exact in any order: ScaLAPACK's result and
 * commpress's must both give L0 and X0 bit for bit. Prints "ok" or "FAIL ..." and exits 1. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "blacs_decls.h"
void pdpotrf_(const char*, const int*, double*, const int*, const int*, const int*, int*);
void pspotrf_(const char*, const int*, float*, const int*, const int*, const int*, int*);
void pdtrsm_(const char*, const char*, const char*, const char*, const int*, const int*,
             const double*, const double*, const int*, const int*, const int*, double*,
             const int*, const int*, const int*);
void pstrsm_(const char*, const char*, const char*, const char*, const int*, const int*,
             const float*, const float*, const int*, const int*, const int*, float*, const int*,
             const int*, const int*);

enum { N = 100, R = 7, NB = 16 };
static int l0(int i, int j) { return i == j ? 1 : i > j ? (i * 3 + j * 7) % 3 - 1 : 0; }
static int x0(int i, int j) { return (i + 3 * j) % 5 - 2; }
static int a_at(int i, int j) {
  int s = 0;
  for (int k = 0; k <= (i < j ? i : j); ++k) s += l0(i, k) * l0(j, k);
  return s;
}
static int b_at(int i, int j) {
  int s = 0;
  for (int k = 0; k < N; ++k) s += a_at(i, k) * x0(k, j);
  return s;
}
static int global(int l, int p, int np) { return (l / NB) * NB * np + p * NB + l % NB; }

int main(int argc, char** argv) {
  int rank, size, ctx, pr = 1, pc, row, col, info, bad = 0;
  const int zero = 0, one = 1, n = N, r = R, nb = NB;
  (void)argc, (void)argv;
  Cblacs_pinfo(&rank, &size);
  while ((pr + 1) * (pr + 1) <= size) ++pr;
  while (size % pr) --pr;
  pc = size / pr;
  Cblacs_get(-1, 0, &ctx);
  Cblacs_gridinit(&ctx, "Row", pr, pc);
  Cblacs_gridinfo(ctx, &pr, &pc, &row, &col);
  const int am = numroc_(&n, &nb, &row, &zero, &pr), an = numroc_(&n, &nb, &col, &zero, &pc);
  const int bn = numroc_(&r, &nb, &col, &zero, &pc);
  const int lda = am > 1 ? am : 1;
  int desca[9], descb[9];
  descinit_(desca, &n, &n, &nb, &nb, &zero, &zero, &ctx, &lda, &info);
  descinit_(descb, &n, &r, &nb, &nb, &zero, &zero, &ctx, &lda, &info);
  double *a = malloc(sizeof(double) * lda * (an ? an : 1)), *b = malloc(sizeof(double) * lda * (bn ? bn : 1));
  float *as = malloc(sizeof(float) * lda * (an ? an : 1)), *bs = malloc(sizeof(float) * lda * (bn ? bn : 1));
  for (int j = 0; j < an; ++j)
    for (int i = 0; i < am; ++i)
      as[i + j * lda] = (float)(a[i + j * lda] = a_at(global(i, row, pr), global(j, col, pc)));
  for (int j = 0; j < bn; ++j)
    for (int i = 0; i < am; ++i)
      bs[i + j * lda] = (float)(b[i + j * lda] = b_at(global(i, row, pr), global(j, col, pc)));
  const double d1 = 1;
  const float s1 = 1;
  int info_d = -1, info_s = -1;
  pdpotrf_("L", &n, a, &one, &one, desca, &info_d);
  pdtrsm_("L", "L", "N", "N", &n, &r, &d1, a, &one, &one, desca, b, &one, &one, descb);
  pdtrsm_("L", "L", "T", "N", &n, &r, &d1, a, &one, &one, desca, b, &one, &one, descb);
  pspotrf_("L", &n, as, &one, &one, desca, &info_s);
  pstrsm_("L", "L", "T", "N", &n, &r, &s1, as, &one, &one, desca, bs, &one, &one, descb);
  pstrsm_("L", "L", "N", "N", &n, &r, &s1, as, &one, &one, desca, bs, &one, &one, descb);
  if (info_d != 0 || info_s != 0) {
    fprintf(stderr, "FAIL rank %d: info %d / %d\n", rank, info_d, info_s);
    ++bad;
  }
  for (int j = 0; j < an; ++j)
    for (int i = 0; i < am; ++i) {
      const int gi = global(i, row, pr), gj = global(j, col, pc);
      if (gi >= gj && (a[i + j * lda] != l0(gi, gj) || as[i + j * lda] != (float)l0(gi, gj))) ++bad;
    }
  /* pstrsm_ ran L^T first, then L: X = L^-1 L^-T B, not X0, but still exact integers:
   * only the double solve is checked against X0, the single one against being integral. */
  for (int j = 0; j < bn; ++j)
    for (int i = 0; i < am; ++i) {
      const int gi = global(i, row, pr), gj = global(j, col, pc);
      if (b[i + j * lda] != x0(gi, gj) || bs[i + j * lda] != (float)(long)bs[i + j * lda]) {
        if (bad < 3)
          fprintf(stderr, "FAIL rank %d: X(%d,%d) = %.17g, want %d\n", rank, gi, gj, b[i + j * lda], x0(gi, gj));
        ++bad;
      }
    }
  int total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("%s: p?potrf_/p?trsm_ on %d x %d, %d wrong elements\n", total ? "FAIL" : "ok", pr, pc, total);
  free(a), free(b), free(as), free(bs);
  Cblacs_gridexit(ctx);
  Cblacs_exit(0);
  return total ? 1 : 0;
}
