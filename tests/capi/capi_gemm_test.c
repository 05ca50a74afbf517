/* The distributed multiply through the C API, compiled as C99 and run at several rank
 * counts: every algorithm the grid can run against a double reference computed here, with
 * padded leading dimensions, transposes, empty blocks, k = 0, a lossy codec within the
 * reported bound, and argument errors returned alike on every rank. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "capi_check_mpi.h"

static int rank_, size_;

/* Global entries of the stored matrices, so every rank can build any block. */
static double entry(int which, int64_t i, int64_t j) {
  switch (which) {
    case 0: return sin(0.31 * (double)i + 0.77 * (double)j) + 0.01 * (double)(i - j);
    case 1: return cos(0.53 * (double)i - 0.29 * (double)j) - 0.02 * (double)j;
    default: return 0.5 * sin((double)(i + 2 * j));
  }
}

/* This rank's block of a stored rows x cols matrix, column-major with ld = local rows + pad. */
typedef struct {
  int64_t r0, c0, lr, lc, ld;
  double* d;
  float* f;
} Block;

static Block make_block(const commpress_grid* g, int which, int64_t rows, int64_t cols) {
  Block b;
  int64_t i, j;
  CHECK_OK(commpress_grid_local_block(g, rows, cols, &b.r0, &b.c0, &b.lr, &b.lc));
  b.ld = b.lr + 3;
  b.d = (double*)calloc((size_t)(b.ld * (b.lc > 0 ? b.lc : 1)), sizeof(double));
  b.f = (float*)calloc((size_t)(b.ld * (b.lc > 0 ? b.lc : 1)), sizeof(float));
  for (j = 0; j < b.lc; ++j)
    for (i = 0; i < b.lr; ++i) {
      b.d[i + j * b.ld] = entry(which, b.r0 + i, b.c0 + j);
      b.f[i + j * b.ld] = (float)b.d[i + j * b.ld];
    }
  return b;
}

static void free_block(Block* b) {
  free(b->d);
  free(b->f);
}

/* op(X)(i, j) of a stored matrix. */
static double op_entry(int which, commpress_trans t, int64_t i, int64_t j, int single) {
  double v = t == COMMPRESS_NO_TRANS ? entry(which, i, j) : entry(which, j, i);
  return single ? (double)(float)v : v;
}

/* Checks this rank's block of C against alpha op(A) op(B) + beta C0 in double; the allowed
 * error is extra (the lossy bound) plus rounding proportional to the magnitudes summed. */
static void check_c(const Block* c, commpress_trans ta, commpress_trans tb, int64_t k,
                    double alpha, double beta, int single, double extra, const char* what) {
  const double eps = single ? FLT_EPSILON : DBL_EPSILON;
  int64_t i, j, l;
  int bad = 0;
  double worst = 0;
  for (j = 0; j < c->lc; ++j)
    for (i = 0; i < c->lr; ++i) {
      const int64_t gi = c->r0 + i, gj = c->c0 + j;
      double exact = 0, mag = 0, c0 = entry(2, gi, gj), got, err;
      if (single) c0 = (double)(float)c0;
      for (l = 0; l < k; ++l) {
        double t = op_entry(0, ta, gi, l, single) * op_entry(1, tb, l, gj, single);
        exact += t;
        mag += fabs(t);
      }
      exact = alpha * exact + beta * c0;
      mag = fabs(alpha) * mag + fabs(beta * c0);
      got = single ? (double)c->f[i + j * c->ld] : c->d[i + j * c->ld];
      err = fabs(got - exact);
      if (!(err <= extra + 4.0 * eps * (double)(k + 2) * (mag + 1e-300))) ++bad;
      if (!(err <= worst)) worst = err;
    }
  CHECK(bad == 0, "%s: %d elements of C off (worst error %g, lossy bound %g)", what, bad, worst,
        extra);
}

typedef struct {
  commpress_trans ta, tb;
  int64_t m, n, k;
  commpress_gemm_algorithm alg;
  const char* codec;
  int single;
} Case;

static void run_case(const commpress_grid* g, const Case* t) {
  const double alpha = 1.5, beta = t->k == 0 ? -2.0 : 0.25;
  const int na = t->ta == COMMPRESS_NO_TRANS, nb = t->tb == COMMPRESS_NO_TRANS;
  Block a = make_block(g, 0, na ? t->m : t->k, na ? t->k : t->m);
  Block b = make_block(g, 1, nb ? t->k : t->n, nb ? t->n : t->k);
  Block c = make_block(g, 2, t->m, t->n);
  commpress_gemm_options* o = NULL;
  commpress_gemm_report rep;
  char what[160];
  commpress_status st;
  const int lossy = strcmp(t->codec, "szp") == 0;
  CHECK_OK(commpress_gemm_options_create(&o));
  CHECK_OK(commpress_gemm_options_set_algorithm(o, t->alg));
  CHECK_OK(commpress_gemm_options_set_codec(o, t->codec));
  if (lossy) CHECK_OK(commpress_gemm_options_set_bound(o, COMMPRESS_ABS, 1e-4));
  sprintf(what, "%cgemm %s%s m=%d n=%d k=%d algorithm %d codec %s", t->single ? 's' : 'd',
          na ? "N" : "T", nb ? "N" : "T", (int)t->m, (int)t->n, (int)t->k, (int)t->alg, t->codec);
  if (t->single)
    st = commpress_sgemm(t->ta, t->tb, t->m, t->n, t->k, (float)alpha, a.f, a.ld, b.f, b.ld,
                         (float)beta, c.f, c.ld, g, o, &rep);
  else
    st = commpress_dgemm(t->ta, t->tb, t->m, t->n, t->k, alpha, a.d, a.ld, b.d, b.ld, beta, c.d,
                         c.ld, g, o, &rep);
  CHECK(st == COMMPRESS_OK, "%s returned %s: %s", what, commpress_status_name(st),
        commpress_last_error());
  if (st == COMMPRESS_OK) {
    sprintf(what + strlen(what), " (ran %d)", (int)rep.algorithm);
    if (t->alg != COMMPRESS_GEMM_AUTO)
      CHECK(rep.algorithm == t->alg, "%s: report says algorithm %d", what, (int)rep.algorithm);
    /* SUMMA on one rank moves no panel: nothing is compressed and the product is exact. */
    const int summa = rep.algorithm == COMMPRESS_GEMM_SUMMA || rep.algorithm == COMMPRESS_GEMM_SUMMA25D;
    const int compressed = lossy && !(summa && size_ == 1);
    CHECK(compressed ? rep.guaranteed_abs_bound > 0 || t->k == 0 : rep.guaranteed_abs_bound == 0,
          "%s: guaranteed bound %g", what, rep.guaranteed_abs_bound);
    if (lossy)
      CHECK(strcmp(rep.codec, compressed ? t->codec : "none") == 0, "%s: report names codec %s",
            what, rep.codec);
    check_c(&c, t->ta, t->tb, t->k, alpha, beta, t->single, rep.guaranteed_abs_bound, what);
  }
  commpress_gemm_options_destroy(o);
  free_block(&a);
  free_block(&b);
  free_block(&c);
}

static void errors_agree(const commpress_grid* g) {
  Block a = make_block(g, 0, 20, 20), c = make_block(g, 2, 20, 20);
  commpress_grid* wrong = NULL;
  commpress_status st;
  const int last = rank_ == size_ - 1;
  st = commpress_dgemm(last ? (commpress_trans)7 : COMMPRESS_NO_TRANS, COMMPRESS_NO_TRANS, 20, 20,
                       20, 1.0, a.d, a.ld, a.d, a.ld, 0.0, c.d, c.ld, g, NULL, NULL);
  check_same_everywhere(st, COMMPRESS_INVALID_ARGUMENT, "dgemm with an unknown transa");
  st = commpress_dgemm(COMMPRESS_NO_TRANS, COMMPRESS_NO_TRANS, 20, 20, 20, 1.0, a.d,
                       last ? 0 : a.ld, a.d, a.ld, 0.0, c.d, c.ld, g, NULL, NULL);
  check_same_everywhere(st, COMMPRESS_INVALID_ARGUMENT, "dgemm with lda 0 on the last rank");
  if (size_ > 1) {
    st = commpress_dgemm(COMMPRESS_NO_TRANS, COMMPRESS_NO_TRANS, 20, 20, 20, last ? 2.0 : 1.0,
                         a.d, a.ld, a.d, a.ld, 0.0, c.d, c.ld, g, NULL, NULL);
    check_same_everywhere(st, COMMPRESS_MISMATCH, "dgemm with another alpha on the last rank");
  }
  st = commpress_grid_create(MPI_COMM_WORLD, size_ + 1, 1, 1, &wrong);
  check_same_everywhere(st, COMMPRESS_INVALID_ARGUMENT, "a grid of size + 1 ranks");
  CHECK(wrong == NULL, "a failed grid_create left a handle");
  CHECK_STATUS(commpress_dgemm(COMMPRESS_NO_TRANS, COMMPRESS_NO_TRANS, 1, 1, 1, 1.0, a.d, 1, a.d,
                               1, 0.0, c.d, 1, NULL, NULL, NULL),
               COMMPRESS_INVALID_ARGUMENT);
  free_block(&a);
  free_block(&c);
}

int main(int argc, char** argv) {
  int code, pr, pc, i;
  commpress_grid* g = NULL;
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  capi_rank = rank_;
  pr = size_ == 4 ? 2 : size_; /* 2x2, or a column of ranks (trailing rows own little) */
  pc = size_ / pr;
  CHECK_OK(commpress_grid_create(MPI_COMM_WORLD, pr, pc, 1, &g));
  if (g) {
    const commpress_gemm_algorithm square =
        pr == pc ? COMMPRESS_GEMM_CANNON : COMMPRESS_GEMM_SUMMA;
    const Case cases[] = {
        {COMMPRESS_NO_TRANS, COMMPRESS_NO_TRANS, 37, 29, 23, COMMPRESS_GEMM_AUTO, "none", 0},
        {COMMPRESS_TRANS, COMMPRESS_NO_TRANS, 31, 17, 41, COMMPRESS_GEMM_SUMMA, "zstd-1", 0},
        {COMMPRESS_NO_TRANS, COMMPRESS_TRANS, 19, 44, 13, COMMPRESS_GEMM_SCALAPACK, "none", 0},
        {COMMPRESS_TRANS, COMMPRESS_TRANS, 26, 26, 30, square, "none", 0},
        {COMMPRESS_NO_TRANS, COMMPRESS_NO_TRANS, 2, 5, 7, COMMPRESS_GEMM_SUMMA, "none", 0},
        {COMMPRESS_NO_TRANS, COMMPRESS_NO_TRANS, 9, 8, 0, COMMPRESS_GEMM_SUMMA, "none", 0},
        {COMMPRESS_NO_TRANS, COMMPRESS_NO_TRANS, 40, 33, 35, COMMPRESS_GEMM_SUMMA, "szp", 0},
        {COMMPRESS_NO_TRANS, COMMPRESS_TRANS, 33, 21, 27, COMMPRESS_GEMM_SUMMA, "none", 1},
        {COMMPRESS_TRANS, COMMPRESS_NO_TRANS, 29, 31, 37, COMMPRESS_GEMM_SRUMMA, "none", 0},
    };
    for (i = 0; i < (int)(sizeof cases / sizeof cases[0]); ++i) run_case(g, &cases[i]);
    errors_agree(g);
  }
  commpress_grid_destroy(g);

  code = finish_mpi_test("capi_gemm_test", rank_, size_);
  MPI_Finalize();
  return code;
}
