/* An unmodified ScaLAPACK program (no commpress header): pdgemm_ and psgemm_ on a
 * block-cyclic layout (NB = 16, a 1-based submatrix of C included), checked element by
 * element against the exact product. The entries are small integers, so every product and
 * sum is exact in float and double in any order: ScaLAPACK's result and a lossless commpress
 * one must both equal the reference bit for bit. Prints "FAIL ..." and exits 1 otherwise. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "blacs_decls.h"
void pdgemm_(const char*, const char*, const int*, const int*, const int*, const double*,
             const double*, const int*, const int*, const int*, const double*, const int*,
             const int*, const int*, const double*, double*, const int*, const int*, const int*);
void psgemm_(const char*, const char*, const int*, const int*, const int*, const float*,
             const float*, const int*, const int*, const int*, const float*, const int*,
             const int*, const int*, const float*, float*, const int*, const int*, const int*);

enum { M = 150, N = 130, K = 170, NB = 16 };
static double a_at(int i, int j) { return (double)((i * 3 + j * 5) % 9 - 4); } /* A: M x K */
static double b_at(int i, int j) { return (double)((i * 7 + j * 2) % 7 - 3); } /* B^T: N x K */
static double c_at(int i, int j) { return (double)((i + 2 * j) % 5 - 2); }     /* C: M x N */

/* Global index of local index l (0-based) in a block-cyclic distribution. */
static int global(int l, int p, int np) { return (l / NB) * NB * np + p * NB + l % NB; }

int main(int argc, char** argv) {
  int rank, size, ctx, pr = 1, pc, row, col, info, bad = 0;
  const int zero = 0, one = 1, m = M, n = N, k = K, nb = NB;
  (void)argc, (void)argv;
  Cblacs_pinfo(&rank, &size);
  while ((pr + 1) * (pr + 1) <= size) ++pr;
  while (size % pr) --pr;
  pc = size / pr;
  Cblacs_get(-1, 0, &ctx);
  Cblacs_gridinit(&ctx, "Row", pr, pc);
  Cblacs_gridinfo(ctx, &pr, &pc, &row, &col);
  /* A is M x K, B is N x K (used transposed), C is M x N. */
  const int am = numroc_(&m, &nb, &row, &zero, &pr), ak = numroc_(&k, &nb, &col, &zero, &pc);
  const int bn = numroc_(&n, &nb, &row, &zero, &pr), bk = ak;
  const int cm = am, cn = numroc_(&n, &nb, &col, &zero, &pc);
  int desca[9], descb[9], descc[9];
  int lda = am > 1 ? am : 1, ldb = bn > 1 ? bn : 1, ldc = cm > 1 ? cm : 1;
  descinit_(desca, &m, &k, &nb, &nb, &zero, &zero, &ctx, &lda, &info);
  descinit_(descb, &n, &k, &nb, &nb, &zero, &zero, &ctx, &ldb, &info);
  descinit_(descc, &m, &n, &nb, &nb, &zero, &zero, &ctx, &ldc, &info);
  double *a = malloc(sizeof(double) * (lda * (ak ? ak : 1))), *b = malloc(sizeof(double) * (ldb * (bk ? bk : 1))),
         *c = malloc(sizeof(double) * (ldc * (cn ? cn : 1)));
  float *as = malloc(sizeof(float) * (lda * (ak ? ak : 1))), *bs = malloc(sizeof(float) * (ldb * (bk ? bk : 1))),
        *cs = malloc(sizeof(float) * (ldc * (cn ? cn : 1)));
  for (int j = 0; j < ak; ++j)
    for (int i = 0; i < am; ++i)
      as[i + j * lda] = (float)(a[i + j * lda] = a_at(global(i, row, pr), global(j, col, pc)));
  for (int j = 0; j < bk; ++j)
    for (int i = 0; i < bn; ++i)
      bs[i + j * ldb] = (float)(b[i + j * ldb] = b_at(global(i, row, pr), global(j, col, pc)));
  for (int j = 0; j < cn; ++j)
    for (int i = 0; i < cm; ++i)
      cs[i + j * ldc] = (float)(c[i + j * ldc] = c_at(global(i, row, pr), global(j, col, pc)));

  /* C = 2 A B^T - C on the whole matrices; then the 1-based submatrix C(3:M, 5:N) =
   * A(3:M, :) B(5:N, :)^T + C(3:M, 5:N) in single precision. */
  const double alpha = 2, beta = -1;
  const float alphas = 1, betas = 1;
  const int ms = M - 2, ns = N - 4, i3 = 3, j5 = 5;
  pdgemm_("N", "T", &m, &n, &k, &alpha, a, &one, &one, desca, b, &one, &one, descb, &beta, c,
          &one, &one, descc);
  psgemm_("N", "T", &ms, &ns, &k, &alphas, as, &i3, &one, desca, bs, &j5, &one, descb, &betas, cs,
          &i3, &j5, descc);
  for (int j = 0; j < cn; ++j)
    for (int i = 0; i < cm; ++i) {
      const int gi = global(i, row, pr), gj = global(j, col, pc);
      double dot = 0;
      for (int l = 0; l < K; ++l) dot += a_at(gi, l) * b_at(gj, l);
      const double want = 2 * dot - c_at(gi, gj);
      const float wants = (float)(gi >= 2 && gj >= 4 ? dot + c_at(gi, gj) : c_at(gi, gj));
      if (c[i + j * ldc] != want || cs[i + j * ldc] != wants) {
        if (bad < 3)
          fprintf(stderr, "FAIL rank %d: C(%d,%d) = %.17g / %.9g, want %.17g / %.9g\n", rank, gi, gj,
                  c[i + j * ldc], (double)cs[i + j * ldc], want, (double)wants);
        ++bad;
      }
    }
  int total = 0;
  MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
  if (rank == 0) printf("%s: pdgemm_/psgemm_ on %d x %d, %d wrong elements\n", total ? "FAIL" : "ok", pr, pc, total);
  free(a), free(b), free(c), free(as), free(bs), free(cs);
  Cblacs_gridexit(ctx);
  Cblacs_exit(0);
  return total ? 1 : 0;
}
