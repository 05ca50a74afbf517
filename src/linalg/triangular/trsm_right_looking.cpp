// The blocked triangular solve over the grid: step k solves block row k of X on the process
// row that holds it (the diagonal block comes with A's panel k), broadcasts it down the
// process columns, and every rank subtracts op(A)(i, k) X_k from its block rows i still to
// solve. The block rows go in steps of TriangularWire::update_width rows: within a step each
// solved row updates the step's later block rows (the next first, which is then solved and
// sent); the step's panels and solved rows together then update the rest, one gemm with the
// step's height as its inner dimension. Look-ahead: A's panels do not depend on the solve, so
// the next one is on its way before the current row's update; the next step's rows are
// updated first, and the rest of the update fills this rank's waits in the next step. A right
// solve is the left solve of the transposes.
#include <mpi.h>

#include <algorithm>
#include <map>
#include <memory>
#include <vector>

#include "comm/session/comm_dup.hpp"
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

// B's local rows [r0(), r1()) (those of its block rows [lo, hi) on this rank) -=
// op(A)(those rows, K) X_K for a set K of solved block rows: their panels' rows side by side
// and their solved rows stacked, so that the update is one gemm with K's height as its inner
// dimension (split by rows only), which the BLAS runs far nearer its peak than one per block.
template <class T>
class SolveUpdate {
 public:
  SolveUpdate(const BlockCyclic<T>& b, const LineGrid& g, int64_t lo, int64_t hi,
              const std::vector<const WholePanel<T>*>& panels,
              const std::vector<const SolvedRow<T>*>& xs, int64_t nq)
      : b_(b), nq_(nq) {
    r0_ = b.rows.local_before(lo, g.row);
    r1_ = b.rows.local_before(hi, g.row);
    for (const SolvedRow<T>* x : xs) k_ += x->rows;
    const int64_t rows = r1_ - r0_;
    if (rows <= 0 || nq == 0 || k_ == 0) return;
    p_.resize(size_t(rows * k_));
    for (int64_t i = lo; i < hi; ++i) {
      if (b.rows.owner(i) != g.row) continue;
      pack_side_by_side(panels, i, b.rows.block_size(i),
                        p_.data() + (b.rows.local_start(i) - r0_), rows);
    }
    x_.resize(size_t(k_ * nq));
    int64_t q0 = 0;
    for (const SolvedRow<T>* x : xs) {
      for (int64_t j = 0; j < nq; ++j)
        std::copy(&x->data[size_t(j * x->rows)], &x->data[size_t(j * x->rows)] + x->rows,
                  &x_[size_t(q0 + j * k_)]);
      q0 += x->rows;
    }
  }
  int64_t r0() const { return r0_; }
  int64_t r1() const { return r1_; }
  // Local rows [from, to) of [r0(), r1()).
  void apply(int64_t from, int64_t to) {
    if (to <= from || p_.empty()) return;
    local_gemm<T>(Trans::N, Trans::N, to - from, nq_, k_, T(-1), p_.data() + (from - r0_),
                  r1_ - r0_, x_.data(), k_, T(1), b_.at(from, 0), b_.lld);
  }

 private:
  const BlockCyclic<T>& b_;
  int64_t nq_ = 0, r0_ = 0, r1_ = 0, k_ = 0;
  std::vector<T> p_, x_;
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
  // Block rows solved per step: their panels and solved rows update the rest at once.
  const int64_t width = std::max<int64_t>(1, wire.update_width / a.rows.nb);
  // The solved rows travel on a communicator of their own: a compressed broadcast's receivers
  // post its second part late, and no other collective (A's panels) may come between.
  MPI_Comm x_comm = MPI_COMM_NULL;
  comm::detail::comm_dup(g.col_comm, &x_comm);
  auto step_block = [&](int64_t s) { return forward ? s : blocks - 1 - s; };
  // The block rows of steps [s0, s1), in step order, are those of [lo, hi).
  auto lo_of = [&](int64_t s0, int64_t s1) { return forward ? s0 : blocks - s1; };
  auto hi_of = [&](int64_t s0, int64_t s1) { return forward ? s1 : blocks - s0; };
  // Each rank reads A's panel in its own block rows only. A column panel's are on the rank of
  // its process row that holds block column k, so one broadcast along each row brings them; a
  // row panel's (op(A) = A^T) are spread over the owning process row, and the whole panel
  // travels.
  std::map<int64_t, std::unique_ptr<WholePanel<T>>> panels;  // by step, while still read
  std::map<int64_t, std::unique_ptr<SolvedRow<T>>> solved;
  auto start_panel = [&](int64_t s) {
    const int64_t k = step_block(s);
    const int64_t lo = forward ? k : 0, hi = forward ? blocks : k + 1;
    panels[s] = std::make_unique<WholePanel<T>>();
    if (kind == PanelKind::Column)
      panels[s]->start_own_rows(a, g, kind, k, lo, hi, wire.frames);
    else
      panels[s]->start(a, g, kind, k, lo, hi, wire.frames);
  };
  auto solve_and_send = [&](int64_t s) {
    const int64_t k = step_block(s);
    const WholePanel<T>& p = *panels[s];
    SolvedRow<T>& x = *(solved[s] = std::make_unique<SolvedRow<T>>());
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
  // The last step's update of the block rows past the current step, local rows [later_from,
  // later_to): a few block rows at a time while this rank waits, the rest at the step's end.
  std::unique_ptr<SolveUpdate<T>> later;
  int64_t later_from = 0, later_to = 0;
  auto work_until = [&](auto&& arrived) {
    while (!arrived() && later_from < later_to) {
      const int64_t to = std::min(later_to, later_from + b.rows.nb);
      later->apply(later_from, to);
      later_from = to;
    }
  };
  auto await_panel = [&](int64_t s) {
    WholePanel<T>& p = *panels[s];
    work_until([&] { return p.test(); });
    wire.note(p.wait());
    wire.bytes += p.bytes();
  };
  auto await_solved = [&](int64_t s) {
    BlockBcast<T>& x = solved[s]->bcast;
    work_until([&] { return x.test(); });
    wire.note(x.wait());
    wire.bytes += x.bytes();
  };

  start_panel(0);
  await_panel(0);
  solve_and_send(0);
  for (int64_t s0 = 0, s1 = 0; s0 < blocks; s0 = s1) {
    s1 = std::min(blocks, s0 + width);
    for (int64_t s = s0; s < s1; ++s) {
      if (s + 1 < blocks) start_panel(s + 1);
      await_solved(s);
      if (s + 1 == s1) break;
      // Within the step, each solved row updates the step's later block rows at once, the
      // next first, so that it is solved and on its way while the others are updated.
      SolveUpdate<T> update(b, g, lo_of(s + 1, s1), hi_of(s + 1, s1), {panels[s].get()},
                            {solved[s].get()}, nq);
      const int64_t n0 = b.rows.local_before(lo_of(s + 1, s + 2), g.row);
      const int64_t n1 = b.rows.local_before(hi_of(s + 1, s + 2), g.row);
      update.apply(n0, n1);
      await_panel(s + 1);
      solve_and_send(s + 1);
      update.apply(update.r0(), n0);
      update.apply(n1, update.r1());
    }
    // Rows a few blocks per gemm, MPI progressing the next panel in between.
    while (later_from < later_to) {
      const int64_t to = std::min(later_to, later_from + 8 * b.rows.nb);
      later->apply(later_from, to);
      later_from = to;
      if (s1 < blocks) panels[s1]->test();
    }
    later.reset();
    panels.erase(panels.begin(), panels.lower_bound(s0));
    solved.erase(solved.begin(), solved.lower_bound(s0));
    if (s1 == blocks) break;
    // Look-ahead: the next step's block rows get this step's update first, its first row is
    // solved and sent, and the rest of the update waits for the gaps of the next step.
    std::vector<const WholePanel<T>*> step_panels;
    std::vector<const SolvedRow<T>*> step_rows;
    for (int64_t s = s0; s < s1; ++s) {
      step_panels.push_back(panels[s].get());
      step_rows.push_back(solved[s].get());
    }
    later = std::make_unique<SolveUpdate<T>>(b, g, lo_of(s1, blocks), hi_of(s1, blocks),
                                             step_panels, step_rows, nq);
    const int64_t s2 = std::min(blocks, s1 + width);
    const int64_t n0 = b.rows.local_before(lo_of(s1, s2), g.row);
    const int64_t n1 = b.rows.local_before(hi_of(s1, s2), g.row);
    later->apply(n0, n1);
    // What is left is at one end of the range (after the next step's rows when forward).
    later_from = forward ? n1 : later->r0();
    later_to = forward ? later->r1() : n0;
    await_panel(s1);
    solve_and_send(s1);
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
