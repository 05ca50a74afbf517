#include "linalg/gemm/local_blas.hpp"

#include <cblas.h>
#include <mpi.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace commpress::linalg::detail {

namespace {

CBLAS_TRANSPOSE cblas_trans(Trans t) { return t == Trans::T ? CblasTrans : CblasNoTrans; }

void blas_gemm(Trans ta, Trans tb, int64_t m, int64_t n, int64_t k, double alpha,
               const double* a, int64_t lda, const double* b, int64_t ldb, double beta,
               double* c, int64_t ldc) {
  cblas_dgemm(CblasColMajor, cblas_trans(ta), cblas_trans(tb), blasint(m), blasint(n),
              blasint(k), alpha, a, blasint(lda), b, blasint(ldb), beta, c, blasint(ldc));
}

void blas_gemm(Trans ta, Trans tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
               int64_t lda, const float* b, int64_t ldb, float beta, float* c, int64_t ldc) {
  cblas_sgemm(CblasColMajor, cblas_trans(ta), cblas_trans(tb), blasint(m), blasint(n),
              blasint(k), alpha, a, blasint(lda), b, blasint(ldb), beta, c, blasint(ldc));
}

}  // namespace

template <class T>
void scale_block(int64_t m, int64_t n, T beta, T* c, int64_t ldc) {
  if (beta == T(1)) return;
  for (int64_t j = 0; j < n; ++j) {
    T* col = c + j * ldc;
    if (beta == T(0)) {
      std::fill(col, col + m, T(0));
    } else {
      for (int64_t i = 0; i < m; ++i) col[i] *= beta;
    }
  }
}

template <class T>
void local_gemm(Trans ta, Trans tb, int64_t m, int64_t n, int64_t k, T alpha, const T* a,
                int64_t lda, const T* b, int64_t ldb, T beta, T* c, int64_t ldc) {
  if (m <= 0 || n <= 0) return;
  // BLAS may skip the product when k == 0 or alpha == 0, and some implementations then
  // compute beta * C literally (0 * NaN = NaN): apply beta ourselves in those cases.
  if (k <= 0 || alpha == T(0)) {
    scale_block(m, n, beta, c, ldc);
    return;
  }
  if (beta == T(0)) scale_block(m, n, T(0), c, ldc);
  blas_gemm(ta, tb, m, n, k, alpha, a, std::max<int64_t>(lda, 1), b, std::max<int64_t>(ldb, 1),
            beta, c, ldc);
}

template void local_gemm<float>(Trans, Trans, int64_t, int64_t, int64_t, float, const float*,
                                int64_t, const float*, int64_t, float, float*, int64_t);
template void local_gemm<double>(Trans, Trans, int64_t, int64_t, int64_t, double, const double*,
                                 int64_t, const double*, int64_t, double, double*, int64_t);
template void scale_block<float>(int64_t, int64_t, float, float*, int64_t);
template void scale_block<double>(int64_t, int64_t, double, double*, int64_t);

int set_blas_threads_for(MPI_Comm comm) {
  MPI_Comm node = MPI_COMM_NULL;
  int on_node = 1;
  if (MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
    MPI_Comm_size(node, &on_node);
    MPI_Comm_free(&node);
  }
  // A count the user gave OpenBLAS stands: where MPI cannot see which ranks share a node's
  // cores (namespaces or containers on one machine each look like a node of their own) the
  // division below would give every rank all of them.
  for (const char* name : {"OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS"})
    if (const char* v = std::getenv(name); v != nullptr && std::atoi(v) > 0)
      return openblas_get_num_threads();
  const long cores = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
  const int threads = int(std::max(1L, cores / std::max(1, on_node)));
  openblas_set_num_threads(threads);
  return threads;
}

}  // namespace commpress::linalg::detail
