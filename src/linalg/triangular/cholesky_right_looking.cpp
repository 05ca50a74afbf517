// Right-looking blocked Cholesky over the grid (lower: A = L L^T). Step k: the process column
// holding block column k factors its diagonal block (?potrf on the diagonal's owner, sent down
// the column with its info), solves the blocks below it (?trsm), and the panel L(k:, k) is
// brought to every rank as the rows its update reads (WholePanel::start_needed: its block rows
// along its process row, its block columns within its process column) for the trailing update
// A(i, j) -= L(i,k) L(j,k)^T.
// Look-ahead of one: block column k+1 is updated first, then factored and its broadcast
// started, and only then the rest of the trailing update runs, so panel k+1's communication
// overlaps step k's flops. The upper factorization is the lower one of the transpose.
#include <mpi.h>

#include <algorithm>
#include <vector>

#include "linalg/gemm/local_blas.hpp"
#include "linalg/triangular/cholesky_steps.hpp"
#include "linalg/triangular/triangular_norms.hpp"

namespace commpress::linalg::detail {

template <class T>
int factor_panel(const BlockCyclic<T>& a, const LineGrid& g, int64_t k, WholePanel<T>& panel,
                 TriangularWire& wire, bool spread) {
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
    if (g.row != diag_row) wire.bytes += (bk * bk + 1) * int64_t(sizeof(T));
    status = int(diag.back());
    if (status == 0)
      for (int64_t i = k + 1; i < blocks; ++i)
        if (a.rows.owner(i) == g.row)
          local_trsm(Side::Right, Uplo::Lower, true, Diag::NonUnit, a.rows.block_size(i), bk,
                     diag.data(), bk, a.at(a.rows.local_start(i), lc), a.lld);
  }
  if (spread) panel.start_needed(a, g, k, k, blocks, wire.frames, status);
  else panel.prepare(a, PanelKind::Column, k, k, blocks);
  return status;
}

template <class T>
TrailingUpdate<T>::TrailingUpdate(const BlockCyclic<T>& a, const LineGrid& g,
                                  const WholePanel<T>& p, int64_t k)
    : a_(a), g_(g), p_(p) {
  const int64_t blocks = a.rows.blocks();
  mp_ = a.rows.local_size(g.row);
  bk_ = p.width();
  base_ = a.rows.local_before(k + 1, g.row);
  ld_ = std::max<int64_t>(1, mp_ - base_);
  mine_.assign(size_t(ld_ * std::max<int64_t>(1, bk_)), T(0));
  for (int64_t i = k + 1; i < blocks; ++i) {
    if (a.rows.owner(i) != g.row) continue;
    const int64_t r0 = a.rows.local_start(i) - base_;
    for (int64_t q = 0; q < bk_; ++q)
      std::copy(p.block(i) + q * p.rows(), p.block(i) + q * p.rows() + a.rows.block_size(i),
                &mine_[size_t(r0 + q * ld_)]);
  }
}

template <class T>
void TrailingUpdate<T>::apply_rows(int64_t j, int64_t row_end) {
  // The diagonal block through syrk (its upper triangle is not the caller's to write), the
  // blocks below it through one gemm.
  if (a_.cols.owner(j) != g_.col) return;
  const int64_t bj = a_.cols.block_size(j), lc = a_.cols.local_start(j);
  int64_t first = a_.rows.local_before(j, g_.row);
  if (a_.rows.owner(j) == g_.row) {
    local_syrk_minus(bj, bk_, mine_.data() + (first - base_), ld_, a_.at(first, lc), a_.lld);
    first += bj;
  }
  if (row_end > first)
    local_gemm<T>(Trans::N, Trans::T, row_end - first, bj, bk_, T(-1),
                  mine_.data() + (first - base_), ld_, p_.block(j), p_.rows(), T(1),
                  a_.at(first, lc), a_.lld);
}

template <class T>
void TrailingUpdate<T>::apply_range(int64_t j0, int64_t j1) {
  int64_t first = -1, last = -1, width = 0;
  for (int64_t j = j0; j < j1; ++j)
    if (a_.cols.owner(j) == g_.col) {
      if (first < 0) first = j;
      last = j;
      width += a_.cols.block_size(j);
    }
  if (first < 0) return;
  const int64_t split = a_.rows.local_before(last + 1, g_.row);
  for (int64_t j = first; j <= last; ++j) apply_rows(j, split);
  if (split >= mp_ || width == 0) return;
  columns_.resize(size_t(width * bk_));
  int64_t at = 0;
  for (int64_t j = first; j <= last; ++j) {
    if (a_.cols.owner(j) != g_.col) continue;
    const int64_t bj = a_.cols.block_size(j);
    for (int64_t q = 0; q < bk_; ++q)
      std::copy(p_.block(j) + q * p_.rows(), p_.block(j) + q * p_.rows() + bj,
                &columns_[size_t(at + q * width)]);
    at += bj;
  }
  local_gemm<T>(Trans::N, Trans::T, mp_ - split, width, bk_, T(-1),
                mine_.data() + (split - base_), ld_, columns_.data(), width, T(1),
                a_.at(split, a_.cols.local_start(first)), a_.lld);
}

template <class T>
void cholesky_residual_bound(const BlockCyclic<T>& a, const LineGrid& g, TriangularWire& wire) {
  if (wire.abs_bound <= 0) return;
  const double e = wire.abs_bound;
  wire.result_bound = 2 * e * max_abs_line_sum(a, g, true, Part::Lower) + double(a.rows.n) * e * e;
}

namespace {

template <class T>
int cholesky_lower(const BlockCyclic<T>& a, const LineGrid& g, TriangularWire& wire) {
  const int64_t blocks = a.rows.blocks();
  if (blocks == 0) return 0;
  WholePanel<T> panels[2];
  auto wait_panel = [&](WholePanel<T>& p) {
    wire.note(p.wait());
    wire.bytes += p.bytes();
  };
  factor_panel(a, g, 0, panels[0], wire);
  wait_panel(panels[0]);
  for (int64_t k = 0; k < blocks; ++k) {
    WholePanel<T>& p = panels[k % 2];
    if (p.status() != 0) return int(k * a.rows.nb) + p.status();
    TrailingUpdate<T> update(a, g, p, k);
    const bool last = k + 1 == blocks;
    WholePanel<T>& next = panels[(k + 1) % 2];
    if (!last) {
      update.apply(k + 1);
      factor_panel(a, g, k + 1, next, wire);
    }
    // A few block columns per gemm, MPI progressing the next panel in between.
    const int64_t group = 4 * int64_t(g.cols);
    for (int64_t j = k + 2; j < blocks; j += group) {
      update.apply_range(j, std::min(blocks, j + group));
      next.test();
    }
    if (!last) wait_panel(next);
  }
  cholesky_residual_bound(a, g, wire);
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

template int factor_panel<float>(const BlockCyclic<float>&, const LineGrid&, int64_t,
                                 WholePanel<float>&, TriangularWire&, bool);
template int factor_panel<double>(const BlockCyclic<double>&, const LineGrid&, int64_t,
                                  WholePanel<double>&, TriangularWire&, bool);
template class TrailingUpdate<float>;
template class TrailingUpdate<double>;
template void cholesky_residual_bound<float>(const BlockCyclic<float>&, const LineGrid&,
                                             TriangularWire&);
template void cholesky_residual_bound<double>(const BlockCyclic<double>&, const LineGrid&,
                                              TriangularWire&);
template int cholesky_right_looking<float>(Uplo, const BlockCyclic<float>&, const LineGrid&,
                                          TriangularWire&);
template int cholesky_right_looking<double>(Uplo, const BlockCyclic<double>&, const LineGrid&,
                                           TriangularWire&);

}  // namespace commpress::linalg::detail
