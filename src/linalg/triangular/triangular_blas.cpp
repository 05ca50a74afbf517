#include "linalg/triangular/triangular_blas.hpp"

#include <cblas.h>

extern "C" {
void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info);
void spotrf_(const char* uplo, const int* n, float* a, const int* lda, int* info);
}

namespace commpress::linalg::detail {

namespace {

struct Flags {
  CBLAS_SIDE side;
  CBLAS_UPLO uplo;
  CBLAS_TRANSPOSE trans;
  CBLAS_DIAG diag;
};

Flags flags(Side side, Uplo uplo, bool trans, Diag diag) {
  return {side == Side::Left ? CblasLeft : CblasRight,
          uplo == Uplo::Lower ? CblasLower : CblasUpper, trans ? CblasTrans : CblasNoTrans,
          diag == Diag::Unit ? CblasUnit : CblasNonUnit};
}

}  // namespace

void local_trsm(Side side, Uplo uplo, bool trans, Diag diag, int64_t m, int64_t n,
                const double* a, int64_t lda, double* b, int64_t ldb) {
  if (m == 0 || n == 0) return;
  const Flags f = flags(side, uplo, trans, diag);
  cblas_dtrsm(CblasColMajor, f.side, f.uplo, f.trans, f.diag, blasint(m), blasint(n), 1.0, a,
              blasint(lda), b, blasint(ldb));
}

void local_trsm(Side side, Uplo uplo, bool trans, Diag diag, int64_t m, int64_t n,
                const float* a, int64_t lda, float* b, int64_t ldb) {
  if (m == 0 || n == 0) return;
  const Flags f = flags(side, uplo, trans, diag);
  cblas_strsm(CblasColMajor, f.side, f.uplo, f.trans, f.diag, blasint(m), blasint(n), 1.0f, a,
              blasint(lda), b, blasint(ldb));
}

void local_syrk_minus(int64_t n, int64_t k, const double* a, int64_t lda, double* c,
                      int64_t ldc) {
  if (n == 0 || k == 0) return;
  cblas_dsyrk(CblasColMajor, CblasLower, CblasNoTrans, blasint(n), blasint(k), -1.0, a,
              blasint(lda), 1.0, c, blasint(ldc));
}

void local_syrk_minus(int64_t n, int64_t k, const float* a, int64_t lda, float* c,
                      int64_t ldc) {
  if (n == 0 || k == 0) return;
  cblas_ssyrk(CblasColMajor, CblasLower, CblasNoTrans, blasint(n), blasint(k), -1.0f, a,
              blasint(lda), 1.0f, c, blasint(ldc));
}

int local_potrf_lower(int64_t n, double* a, int64_t lda) {
  const int nn = int(n), ld = int(lda);
  int info = 0;
  dpotrf_("L", &nn, a, &ld, &info);
  return info;
}

int local_potrf_lower(int64_t n, float* a, int64_t lda) {
  const int nn = int(n), ld = int(lda);
  int info = 0;
  spotrf_("L", &nn, a, &ld, &info);
  return info;
}

}  // namespace commpress::linalg::detail
