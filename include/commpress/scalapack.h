/* ScaLAPACK-compatible distributed multiply: commpress_pdgemm / commpress_psgemm take exactly
 * pdgemm_'s / psgemm_'s arguments (Fortran-style pointers, 1-based IA/JA, 9-integer array
 * descriptors on a BLACS context), so a ScaLAPACK program switches by renaming one call:
 *
 *     pdgemm_(&ta, &tb, &m, &n, &k, &alpha, a, &ia, &ja, desca, b, &ib, &jb, descb,
 *             &beta, c, &ic, &jc, descc);
 *  -> commpress_pdgemm(&ta, &tb, &m, &n, &k, &alpha, a, &ia, &ja, desca, b, &ib, &jb, descb,
 *             &beta, c, &ic, &jc, descc);
 *
 * sub(C) = alpha * op(sub(A)) * op(sub(B)) + beta * sub(C), with TRANSA/TRANSB 'N' or 'T'
 * ('C' means 'T' for real data; lower case accepted). Any block-cyclic layout is accepted;
 * matrices already in commpress's block layout (MB = ceil(M/NPROW), NB = ceil(N/NPCOL),
 * RSRC = CSRC = 0) and used whole (IA = JA = 1, full size) are multiplied in place, others
 * are redistributed with ScaLAPACK's p?gemr2d_ and back. Collective over the BLACS context
 * of DESCA (every process of the grid calls, with the same arguments).
 *
 * Errors: as in ScaLAPACK, the routine returns nothing. When the arguments are invalid
 * (descriptor type, contexts that differ, MB/NB < 1, RSRC/CSRC outside the grid, LLD below
 * the local rows, a submatrix beyond its matrix, processes passing different arguments...)
 * every process writes the same one-line message to stderr and returns with C untouched.
 * commpress_gemm_last_error() returns the code of the last call on this thread (0 = success,
 * otherwise commpress's ErrorCode: 1 invalid argument, 2 unsupported, 7 mismatch, 10 MPI...)
 * and copies its message (NUL-terminated, truncated to capacity) when message is not NULL.
 *
 * Options: the algorithm, the codec of the travelling blocks and a relative error bound.
 * They start from the environment, read once on first use:
 *   COMMPRESS_GEMM_ALGORITHM  auto (default), cannon, summa, srumma, cannon25d, summa25d,
 *                             scalapack
 *   COMMPRESS_GEMM_CODEC      none (default), auto, or a codec name (zstd-1, lz4, szp, zfp...)
 *   COMMPRESS_GEMM_REL_BOUND  bound on every input element's perturbation relative to its
 *                             matrix's value range, for lossy codecs (default 0 = exact)
 * and commpress_gemm_set_options() replaces them for the rest of the process (NULL algorithm
 * or codec = the default). It returns 0, or an error code (options unchanged). Every process
 * of a grid must use the same options.
 */
#ifndef COMMPRESS_SCALAPACK_H
#define COMMPRESS_SCALAPACK_H

#ifdef __cplusplus
extern "C" {
#endif

void commpress_pdgemm(const char* transa, const char* transb, const int* m, const int* n,
                      const int* k, const double* alpha, const double* a, const int* ia,
                      const int* ja, const int* desca, const double* b, const int* ib,
                      const int* jb, const int* descb, const double* beta, double* c,
                      const int* ic, const int* jc, const int* descc);

void commpress_psgemm(const char* transa, const char* transb, const int* m, const int* n,
                      const int* k, const float* alpha, const float* a, const int* ia,
                      const int* ja, const int* desca, const float* b, const int* ib,
                      const int* jb, const int* descb, const float* beta, float* c,
                      const int* ic, const int* jc, const int* descc);

/* Triangular solve and Cholesky with p?trsm_'s and p?potrf_'s arguments (any block-cyclic
 * layout; sub(A) starting on a block boundary with MB = NB is used in place, others through a
 * copy). pdtrsm: sub(B) = alpha * op(sub(A))^-1 sub(B) (SIDE 'L') or alpha * sub(B) op(sub(A))^-1
 * ('R'), UPLO 'U'/'L', TRANSA 'N'/'T'/'C', DIAG 'U'/'N'. pdpotrf: sub(A) = L L^T (UPLO 'L') or
 * U^T U ('U'), the other triangle untouched; INFO = 0, or j > 0 on every process when the
 * leading minor of order j is not positive definite (the factorization stops there, as
 * ScaLAPACK's does), or < 0 for an invalid argument: minus its position (the message names
 * it). Errors follow the rules above (the same line on every process, commpress_gemm_last_error
 * returns the last call's code and message, B or A untouched). Collective over the context of
 * DESCA. The same names with a trailing underscore are callable from Fortran. */
void commpress_pdtrsm(const char* side, const char* uplo, const char* transa, const char* diag,
                      const int* m, const int* n, const double* alpha, const double* a,
                      const int* ia, const int* ja, const int* desca, double* b, const int* ib,
                      const int* jb, const int* descb);
void commpress_pstrsm(const char* side, const char* uplo, const char* transa, const char* diag,
                      const int* m, const int* n, const float* alpha, const float* a,
                      const int* ia, const int* ja, const int* desca, float* b, const int* ib,
                      const int* jb, const int* descb);
void commpress_pdpotrf(const char* uplo, const int* n, double* a, const int* ia, const int* ja,
                       const int* desca, int* info);
void commpress_pspotrf(const char* uplo, const int* n, float* a, const int* ia, const int* ja,
                       const int* desca, int* info);

/* The codec the triangular routines' panels and solved blocks travel through: NULL or "none"
 * (default), a lossless codec (results bit-identical to uncompressed), or a lossy one with
 * abs_bound > 0, the absolute bound every travelling element keeps. From there each call
 * derives a bound on what compression adds to its residual (docs/triangular.md):
 *   pdtrsm:  max|op(A) X - alpha B| <= e (||op(A)||_inf + ||X||_1 + k e)
 *   pdpotrf: max|A - L L^T|          <= 2 e ||L||_inf + n e^2
 * which commpress_triangular_last_bound() returns (0 after exact transfers, -1 when a stopped
 * factorization leaves none). "auto" and relative bounds are refused. Initially from
 * COMMPRESS_TRIANGULAR_CODEC and COMMPRESS_TRIANGULAR_ABS_BOUND. Returns 0 or an error code
 * (options unchanged). Every process of a grid must use the same options. */
int commpress_triangular_set_options(const char* codec, double abs_bound);
double commpress_triangular_last_bound(void);
/* The bytes the last p?trsm / p?potrf on this thread moved between processes, summed over its
 * grid: every panel, solved block, diagonal block, layer sum and layer copy, counted once where
 * it arrives (a reduction's contributions where they leave), as they travelled (compressed
 * frames at their compressed size). The same number on every process of the grid. */
long long commpress_triangular_last_bytes(void);
/* The grid of p?trsm and p?potrf: 1 (default) the 2D algorithms on the caller's grid; c > 1
 * the 2.5D ones on c layers of p/c processes (c must divide p): the solve gives each layer a
 * copy of A and 1/c of B, Cholesky a copy of A and 1/c of the trailing updates; 0 lets the
 * model choose (docs/triangular.md). From COMMPRESS_TRIANGULAR_LAYERS initially. Returns 0 or
 * an error code. */
int commpress_triangular_set_layers(int layers);

int commpress_gemm_set_options(const char* algorithm, const char* codec, double rel_bound);

int commpress_gemm_last_error(char* message, int capacity);

#ifdef __cplusplus
}
#endif

#endif /* COMMPRESS_SCALAPACK_H */
