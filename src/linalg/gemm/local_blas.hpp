// The local products of every algorithm, through OpenBLAS (column-major).
#pragma once

#include <cstdint>

#include "commpress/linalg.hpp"

namespace commpress::linalg::detail {

// C = alpha * op(A) * op(B) + beta * C for an m x n local C. beta == 0 overwrites C (NaN on
// entry does not survive), and k == 0 still applies beta, so every rank can call it
// unconditionally; m == 0 or n == 0 does nothing.
template <class T>
void local_gemm(Trans ta, Trans tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a,
                int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc);

// C = beta * C (beta == 0 writes zeros).
template <class T>
void scale_block(int64_t m, int64_t n, T beta, T* c, int64_t ldc);

// Threads for OpenBLAS in this process: the cores of this node divided by the ranks on it
// (oversubscribed ranks get one), unless OPENBLAS_NUM_THREADS or GOTO_NUM_THREADS names a
// count, which then stands. Collective over comm (counts the node's ranks once). Returns the
// count in force.
int set_blas_threads_for(MPI_Comm comm);

}  // namespace commpress::linalg::detail
