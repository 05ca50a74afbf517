// Right-looking blocked Cholesky over the grid (lower: A = L L^T). Step k: the process column
// holding block column k factors its diagonal block (?potrf on the diagonal's owner, sent down
// the column with its info), solves the blocks below it (?trsm), and the panel L(k:, k) is
// made whole on every rank (panel_broadcast) for the trailing update A(i, j) -= L(i,k) L(j,k)^T.
// Look-ahead of one: block column k+1 is updated first, then factored and its broadcast
// started, and only then the rest of the trailing update runs, so panel k+1's communication
// overlaps step k's flops. The upper factorization is the lower one of the transpose.
#include <mpi.h>

#include <algorithm>
#include <vector>

#include "linalg/gemm/local_blas.hpp"
#include "linalg/triangular/panel_broadcast.hpp"
#include "linalg/triangular/triangular.hpp"
#include "linalg/triangular/triangular_norms.hpp"

namespace commpress::linalg::detail {

namespace {

// Factors block column k on its process column and starts the panel's broadcast (collective
// over the grid: the other ranks only take part in the broadcast).
template <class T>
void factor_panel(const BlockCyclic<T>& a, const LineGrid& g, int64_t k, Panel<T>& panel,
                  BlockCodec* codec) {
  int status = 0;
  const int64_t blocks = a.rows.blocks();
  if (g.col == a.cols.owner(k)) {
    const int64_t bk = a.rows.block_size(k), lc = a.cols.local_start(k);
    const int diag_row = a.rows.owner(k);
    std::vector<T> diag(size_t(bk * bk + 1), T(0));
    if (g.row == diag_row) {
      T* d = a.at(a.rows.local_start(k), lc);
      diag[size_t(bk * bk)] = T(local_potrf_lower(bk, d, a.lld));
      for (int64_t j = 0; j < bk; ++j)
        std::copy(d + j * a.lld, d + j * a.lld + bk, &diag[size_t(j * bk)]);
    }
    MPI_Bcast(diag.data(), int(bk * bk + 1), mpi_type_of<T>(), diag_row, g.col_comm);
    status = int(diag.back());
    if (status == 0)
      for (int64_t i = k + 1; i < blocks; ++i)
        if (a.rows.owner(i) == g.row)
          local_trsm(Side::Right, Uplo::Lower, true, Diag::NonUnit, a.rows.block_size(i), bk,
                     diag.data(), bk, a.at(a.rows.local_start(i), lc), a.lld);
  }
  panel.start(a, g, PanelKind::Column, k, k, blocks, codec, status);
}

template <class T>
int cholesky_lower(const BlockCyclic<T>& a, const LineGrid& g, TriangularWire& wire) {
  const int64_t blocks = a.rows.blocks();
  if (blocks == 0) return 0;
  const int64_t mp = a.rows.local_size(g.row);
  Panel<T> panels[2];
  std::vector<T> mine;  // panel k's rows for this rank's block rows below k, in local order
  auto wait_panel = [&](Panel<T>& p) {
    wire.note(p.wait());
    wire.bytes += p.bytes();
  };
  factor_panel(a, g, 0, panels[0], wire.codec);
  wait_panel(panels[0]);
  for (int64_t k = 0; k < blocks; ++k) {
    Panel<T>& p = panels[k % 2];
    if (p.status() != 0) return int(k * a.rows.nb) + p.status();
    const int64_t bk = p.width();
    const int64_t base = a.rows.local_before(k + 1, g.row), ld = std::max<int64_t>(1, mp - base);
    mine.assign(size_t(ld * std::max<int64_t>(1, bk)), T(0));
    for (int64_t i = k + 1; i < blocks; ++i) {
      if (a.rows.owner(i) != g.row) continue;
      const int64_t r0 = a.rows.local_start(i) - base;
      for (int64_t q = 0; q < bk; ++q)
        std::copy(p.block(i) + q * p.rows(), p.block(i) + q * p.rows() + a.rows.block_size(i),
                  &mine[size_t(r0 + q * ld)]);
    }
    // Block column j's lower part: the diagonal block through syrk (its upper triangle is
    // not the caller's to write), the blocks below it through one gemm.
    auto update = [&](int64_t j) {
      if (a.cols.owner(j) != g.col) return;
      const int64_t bj = a.cols.block_size(j), lc = a.cols.local_start(j);
      int64_t first = a.rows.local_before(j, g.row);
      if (a.rows.owner(j) == g.row) {
        local_syrk_minus(bj, bk, mine.data() + (first - base), ld, a.at(first, lc), a.lld);
        first += bj;
      }
      local_gemm<T>(Trans::N, Trans::T, mp - first, bj, bk, T(-1), mine.data() + (first - base),
                    ld, p.block(j), p.rows(), T(1), a.at(first, lc), a.lld);
    };
    const bool last = k + 1 == blocks;
    Panel<T>& next = panels[(k + 1) % 2];
    if (!last) {
      update(k + 1);
      factor_panel(a, g, k + 1, next, wire.codec);
    }
    for (int64_t j = k + 2; j < blocks; ++j) {
      update(j);
      next.test();
    }
    if (!last) wait_panel(next);
  }
  if (wire.abs_bound > 0) {
    const double e = wire.abs_bound;
    wire.result_bound = 2 * e * max_abs_line_sum(a, g, true, Part::Lower) + double(a.rows.n) * e * e;
  }
  return 0;
}

}  // namespace

template <class T>
int cholesky_right_looking(Uplo uplo, const BlockCyclic<T>& a, const LineGrid& g,
                           TriangularWire& wire) {
  if (uplo == Uplo::Lower) return cholesky_lower(a, g, wire);
  LocalTranspose<T> at(a, g);
  const int info = cholesky_lower(at.view(), g.transposed(), wire);
  at.restore();
  return info;
}

template int cholesky_right_looking<float>(Uplo, const BlockCyclic<float>&, const LineGrid&,
                                          TriangularWire&);
template int cholesky_right_looking<double>(Uplo, const BlockCyclic<double>&, const LineGrid&,
                                           TriangularWire&);

}  // namespace commpress::linalg::detail
