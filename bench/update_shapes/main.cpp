// The trailing updates' gemm shapes on one rank, in alternating rounds (best of 6), single
// BLAS thread: N = 4096 on 2 ranks (1 x 2), block 64.
//   solve:    one gemm per block row (64 x 2048 x 64, ld 4096), as the solve did, against one
//             per 8 block rows (512 x 2048 x 64), as it does now;
//   Cholesky: one gemm per block column (4096 x 64 x 64), as it did, against one per 4
//             (4096 x 256 x 64), as it does now.
//   OPENBLAS_NUM_THREADS=1 build/bench/bench_update_shapes
#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Best seconds of each of two ways over 6 alternating rounds.
template <class A, class B>
void race(const char* what, double flops, A&& before, B&& after) {
  double a = 1e9, b = 1e9;
  for (int round = 0; round < 6; ++round) {
    const double t0 = now();
    before();
    const double t1 = now();
    after();
    const double t2 = now();
    a = std::min(a, t1 - t0);
    b = std::min(b, t2 - t1);
  }
  std::printf("%s: before %.1f GFLOP/s, now %.1f GFLOP/s\n", what, flops / a / 1e9, flops / b / 1e9);
}

}  // namespace

int main() {
  const int n = 4096, nq = 2048, nb = 64, rows = n - nb;
  std::vector<double> b(size_t(n) * nq, 1.0), p(size_t(rows) * nb, 0.5), x(size_t(nb) * nq, 0.25);
  auto rows_of = [&](int step) {
    for (int i = 0; i < rows; i += step)
      cblas_dgemm(CblasColMajor, CblasNoTrans, CblasNoTrans, std::min(step, rows - i), nq, nb, -1,
                  p.data() + i, rows, x.data(), nb, 1, b.data() + nb + i, n);
  };
  race("solve update", 2.0 * rows * nq * nb, [&] { rows_of(nb); }, [&] { rows_of(8 * nb); });
  std::vector<double> l(size_t(n) * nb, 0.5), t(size_t(nq) * nb, 0.25);
  auto columns_of = [&](int step) {
    for (int j = 0; j < nq; j += step)
      cblas_dgemm(CblasColMajor, CblasNoTrans, CblasTrans, n, step, nb, -1, l.data(), n,
                  t.data() + j, nq, 1, b.data() + size_t(j) * n, n);
  };
  race("Cholesky update", 2.0 * n * nq * nb, [&] { columns_of(nb); }, [&] { columns_of(4 * nb); });
}
