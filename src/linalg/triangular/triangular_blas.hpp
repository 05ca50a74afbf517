// The local kernels of the triangular solve and Cholesky (OpenBLAS's CBLAS and its LAPACK),
// one overload per precision, column-major.
#pragma once

#include <cstdint>

namespace commpress::linalg::detail {

enum class Side : uint8_t { Left, Right };
enum class Uplo : uint8_t { Lower, Upper };
enum class Diag : uint8_t { NonUnit, Unit };

// B = op(A)^-1 B (Left) or B op(A)^-1 (Right), op(A) = A or A^T.
void local_trsm(Side side, Uplo uplo, bool trans, Diag diag, int64_t m, int64_t n,
                const double* a, int64_t lda, double* b, int64_t ldb);
void local_trsm(Side side, Uplo uplo, bool trans, Diag diag, int64_t m, int64_t n,
                const float* a, int64_t lda, float* b, int64_t ldb);

// The lower triangle of C -= A A^T (C n x n, A n x k).
void local_syrk_minus(int64_t n, int64_t k, const double* a, int64_t lda, double* c, int64_t ldc);
void local_syrk_minus(int64_t n, int64_t k, const float* a, int64_t lda, float* c, int64_t ldc);

// LAPACK's ?potrf on the lower triangle: 0, or the 1-based column where it stopped.
int local_potrf_lower(int64_t n, double* a, int64_t lda);
int local_potrf_lower(int64_t n, float* a, int64_t lda);

}  // namespace commpress::linalg::detail
