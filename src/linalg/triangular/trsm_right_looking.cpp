// The blocked triangular solve over the grid: step k solves block row k of X on the process
// row that holds it (the diagonal block comes with A's panel k), broadcasts it down the
// process columns, and every rank subtracts op(A)(i, k) X_k from its block rows i still to
// solve. Look-ahead: the next block row is updated first, solved and sent while the rest of
// step k's update runs; A's panels do not depend on the solve, so the next one is on its way
// before step k's update starts. A right solve is the left solve of the transposes.
#include <mpi.h>

#include <algorithm>
#include <vector>

#include "linalg/gemm/local_blas.hpp"
#include "linalg/triangular/panel_broadcast.hpp"
#include "linalg/triangular/triangular.hpp"
#include "linalg/triangular/triangular_norms.hpp"

namespace commpress::linalg::detail {

namespace {

// Block row k of X, on every rank of the process columns (bk x local columns of B).
template <class T>
struct SolvedRow {
  std::vector<T> data;
  int64_t rows = 0;
  BlockBcast<T> bcast;
};

template <class T>
void trsm_left(Uplo uplo, bool trans, Diag diag, const BlockCyclic<T>& a, const BlockCyclic<T>& b,
               const LineGrid& g, TriangularWire& wire) {
  const int64_t blocks = a.rows.blocks();
  if (blocks == 0) return;
  // op(A) is lower triangular exactly when the solve runs forward (top block row first).
  const bool forward = (uplo == Uplo::Lower) != trans;
  const Uplo diag_uplo = forward ? Uplo::Lower : Uplo::Upper;  // of op(A)(k, k) in the panel
  const PanelKind kind = trans ? PanelKind::Row : PanelKind::Column;
  const int64_t nq = b.cols.local_size(g.col);
  // The solved rows travel on a communicator of their own: a compressed broadcast's receivers
  // post its second part late, and no other collective (A's panels) may come between.
  MPI_Comm x_comm = MPI_COMM_NULL;
  MPI_Comm_dup(g.col_comm, &x_comm);
  auto step_block = [&](int64_t s) { return forward ? s : blocks - 1 - s; };
  // Each rank reads A's panel in its own block rows only. A column panel's are on the rank of
  // its process row that holds block column k, so one broadcast along each row brings them; a
  // row panel's (op(A) = A^T) are spread over the owning process row, and the whole panel
  // travels.
  auto start_panel = [&](WholePanel<T>& p, int64_t k) {
    const int64_t lo = forward ? k : 0, hi = forward ? blocks : k + 1;
    if (kind == PanelKind::Column)
      p.start_own_rows(a, g, kind, k, lo, hi, wire.frames);
    else
      p.start(a, g, kind, k, lo, hi, wire.frames);
  };
  auto wait_panel = [&](WholePanel<T>& p) {
    wire.note(p.wait());
    wire.bytes += p.bytes();
  };
  auto solve_and_send = [&](int64_t k, const WholePanel<T>& p, SolvedRow<T>& x) {
    const int64_t bk = b.rows.block_size(k);
    const int owner = b.rows.owner(k);
    x.rows = bk;
    x.data.assign(size_t(std::max<int64_t>(1, bk * nq)), T(0));
    if (g.row == owner) {
      T* row = b.at(b.rows.local_start(k), 0);
      local_trsm(Side::Left, diag_uplo, false, diag, bk, nq, p.block(k), p.rows(), row, b.lld);
      for (int64_t j = 0; j < nq; ++j) std::copy(row + j * b.lld, row + j * b.lld + bk, &x.data[size_t(j * bk)]);
    }
    x.bcast.start(x.data.data(), bk * nq, 0, owner, x_comm, wire.frames);
  };
  auto update = [&](int64_t i, const WholePanel<T>& p, const SolvedRow<T>& x) {
    if (b.rows.owner(i) != g.row) return;
    local_gemm<T>(Trans::N, Trans::N, b.rows.block_size(i), nq, x.rows, T(-1), p.block(i),
                  p.rows(), x.data.data(), x.rows, T(1), b.at(b.rows.local_start(i), 0), b.lld);
  };
  // The same for every block row of [lo, hi) this rank holds but `skip` (which, when held,
  // sits at one end of them): their local rows are contiguous, so their panel rows are packed
  // and the update is a few tall gemms (one per block row of nb x nq runs far below the BLAS
  // rate), with MPI given a chance to progress `pending` between them.
  std::vector<T> packed;
  auto update_rows = [&](int64_t lo, int64_t hi, int64_t skip, const WholePanel<T>& p,
                         const SolvedRow<T>& x, BlockBcast<T>* pending) {
    int64_t r0 = b.rows.local_before(lo, g.row), r1 = b.rows.local_before(hi, g.row);
    if (skip >= lo && skip < hi && b.rows.owner(skip) == g.row) {
      const int64_t s0 = b.rows.local_start(skip), s1 = s0 + b.rows.block_size(skip);
      if (s0 == r0) r0 = s1;
      else r1 = s0;
    }
    const int64_t rows = r1 - r0;
    if (rows <= 0 || nq == 0) return;
    packed.resize(size_t(rows * x.rows));
    for (int64_t i = lo; i < hi; ++i) {
      if (i == skip || b.rows.owner(i) != g.row) continue;
      const int64_t at = b.rows.local_start(i) - r0, bi = b.rows.block_size(i);
      for (int64_t q = 0; q < x.rows; ++q)
        std::copy(p.block(i) + q * p.rows(), p.block(i) + q * p.rows() + bi,
                  &packed[size_t(at + q * rows)]);
    }
    const int64_t chunk = 8 * b.rows.nb;
    for (int64_t c0 = 0; c0 < rows; c0 += chunk) {
      local_gemm<T>(Trans::N, Trans::N, std::min(chunk, rows - c0), nq, x.rows, T(-1),
                    packed.data() + c0, rows, x.data.data(), x.rows, T(1), b.at(r0 + c0, 0),
                    b.lld);
      if (pending != nullptr) pending->test();
    }
  };

  WholePanel<T> panels[2];
  SolvedRow<T> solved[2];
  start_panel(panels[0], step_block(0));
  wait_panel(panels[0]);
  solve_and_send(step_block(0), panels[0], solved[0]);
  for (int64_t s = 0; s < blocks; ++s) {
    const int64_t k = step_block(s);
    WholePanel<T>& panel = panels[s % 2];
    SolvedRow<T>& x = solved[s % 2];
    const bool last = s + 1 == blocks;
    const int64_t next = last ? -1 : step_block(s + 1);
    if (!last) start_panel(panels[(s + 1) % 2], next);
    wire.note(x.bcast.wait());
    wire.bytes += x.bcast.bytes();
    if (!last) {
      update(next, panel, x);
      wait_panel(panels[(s + 1) % 2]);
      solve_and_send(next, panels[(s + 1) % 2], solved[(s + 1) % 2]);
    }
    const int64_t lo = forward ? k + 1 : 0, hi = forward ? blocks : k;
    update_rows(lo, hi, next, panel, x, last ? nullptr : &solved[(s + 1) % 2].bcast);
  }
  MPI_Comm_free(&x_comm);
  if (wire.abs_bound > 0) {
    const double e = wire.abs_bound;
    const double norm_a = max_abs_line_sum(a, g, !trans, uplo == Uplo::Lower ? Part::Lower : Part::Upper);
    const double norm_x = max_abs_line_sum(b, g, false, Part::All);
    wire.result_bound = e * (norm_a + norm_x + double(a.rows.n) * e);
  }
}

}  // namespace

template <class T>
void trsm_right_looking(Side side, Uplo uplo, bool trans, Diag diag, T alpha,
                        const BlockCyclic<T>& a, const BlockCyclic<T>& b, const LineGrid& g,
                        TriangularWire& wire) {
  const int64_t mp = b.rows.local_size(g.row), nq = b.cols.local_size(g.col);
  if (alpha != T(1)) scale_block<T>(mp, nq, alpha, b.data, b.lld);
  if (alpha == T(0)) return;  // B = 0 and A unread, as in BLAS
  if (side == Side::Left) return trsm_left(uplo, trans, diag, a, b, g, wire);
  // X op(A) = B  <=>  op(A)^T X^T = B^T, and op(A)^T is A^T (or its transpose) of the other
  // triangle.
  LocalTranspose<T> at(a, g), bt(b, g);
  const Uplo flipped = uplo == Uplo::Lower ? Uplo::Upper : Uplo::Lower;
  trsm_left(flipped, trans, diag, at.view(), bt.view(), g.transposed(), wire);
  bt.restore();
}

template void trsm_right_looking<float>(Side, Uplo, bool, Diag, float, const BlockCyclic<float>&,
                                        const BlockCyclic<float>&, const LineGrid&,
                                        TriangularWire&);
template void trsm_right_looking<double>(Side, Uplo, bool, Diag, double,
                                         const BlockCyclic<double>&, const BlockCyclic<double>&,
                                         const LineGrid&, TriangularWire&);

}  // namespace commpress::linalg::detail
