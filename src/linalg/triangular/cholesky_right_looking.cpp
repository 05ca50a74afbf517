// Right-looking blocked Cholesky over the grid (lower: A = L L^T). Block column k: the process
// column holding it factors its diagonal block (?potrf on the diagonal's owner, sent down the
// column with its info), solves the blocks below it (?trsm), and the panel L(k:, k) is brought
// to every rank as the rows its update reads (WholePanel::start_needed: its block rows along
// its process row, its block columns within its process column) for the trailing update
// A(i, j) -= L(i,k) L(j,k)^T.
// The block columns go in steps of TriangularWire::update_width columns: within a step each
// panel updates the step's later block columns; the step's panels together then update the
// rest, one gemm with the step's width as its inner dimension. Look-ahead: the next step's
// columns are updated first and its first panel factored and sent; the rest of the update
// runs in pieces between tests of the panels on their way. The waits sleep between tests
// (sleeping_waits). The upper factorization is the lower one of the transpose.
#include <mpi.h>

#include <algorithm>
#include <map>
#include <memory>
#include <vector>

#include "comm/session/environment.hpp"
#include "comm/session/yielding_wait.hpp"
#include "linalg/gemm/local_blas.hpp"
#include "linalg/triangular/cholesky_steps.hpp"
#include "linalg/triangular/step_trace.hpp"
#include "linalg/triangular/triangular_norms.hpp"

namespace commpress::linalg::detail {

bool sleeping_waits() {
  return comm::detail::environment().progress != comm::detail::ProgressMode::spin;
}

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
    // Nonblocking with sleeps between tests, unless COMMPRESS_PROGRESS=spin: the column's
    // other ranks wait here while the diagonal's owner factors (see await below).
    MPI_Request req = MPI_REQUEST_NULL;
    MPI_Ibcast(diag.data(), int(bk * bk + 1), mpi_type_of<T>(), diag_row, g.col_comm, &req);
    if (sleeping_waits()) comm::detail::waitall_sleeping(1, &req, MPI_STATUS_IGNORE);
    else MPI_Wait(&req, MPI_STATUS_IGNORE);
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
                                  std::vector<const WholePanel<T>*> panels, int64_t k)
    : a_(a), g_(g), panels_(std::move(panels)) {
  const int64_t blocks = a.rows.blocks();
  mp_ = a.rows.local_size(g.row);
  for (const WholePanel<T>* p : panels_) bk_ += p->width();
  base_ = a.rows.local_before(k + 1, g.row);
  ld_ = std::max<int64_t>(1, mp_ - base_);
  mine_.assign(size_t(ld_ * std::max<int64_t>(1, bk_)), T(0));
  for (int64_t i = k + 1; i < blocks; ++i) {
    if (a.rows.owner(i) != g.row) continue;
    pack_side_by_side(panels_, i, a.rows.block_size(i),
                      mine_.data() + (a.rows.local_start(i) - base_), ld_);
  }
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
  if (first < 0 || bk_ == 0) return;
  // The panels' rows of these block columns, side by side: width x bk_.
  columns_.resize(size_t(width * bk_));
  int64_t at = 0;
  for (int64_t j = first; j <= last; ++j) {
    if (a_.cols.owner(j) != g_.col) continue;
    pack_side_by_side(panels_, j, a_.cols.block_size(j), columns_.data() + at, width);
    at += a_.cols.block_size(j);
  }
  // Each block column's rows down to the last diagonal block: its diagonal block through syrk
  // (the upper triangle is not the caller's to write), the rows below it through gemm.
  const int64_t split = a_.rows.local_before(last + 1, g_.row);
  at = 0;
  for (int64_t j = first; j <= last; ++j) {
    if (a_.cols.owner(j) != g_.col) continue;
    const int64_t bj = a_.cols.block_size(j), lc = a_.cols.local_start(j);
    int64_t r = a_.rows.local_before(j, g_.row);
    if (a_.rows.owner(j) == g_.row) {
      local_syrk_minus(bj, bk_, mine_.data() + (r - base_), ld_, a_.at(r, lc), a_.lld);
      r += bj;
    }
    if (split > r)
      local_gemm<T>(Trans::N, Trans::T, split - r, bj, bk_, T(-1), mine_.data() + (r - base_),
                    ld_, columns_.data() + at, width, T(1), a_.at(r, lc), a_.lld);
    at += bj;
  }
  if (split < mp_)
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
  // Block columns per step: their panels update the trailing matrix together.
  const int64_t width = std::max<int64_t>(1, wire.update_width / a.rows.nb);
  std::map<int64_t, std::unique_ptr<WholePanel<T>>> panels;  // those an update still reads
  StepTrace trace(g);
  auto factor = [&](int64_t k) {
    trace.mark("factor", k);
    panels[k] = std::make_unique<WholePanel<T>>();
    factor_panel(a, g, k, *panels[k], wire);
    trace.mark("posted", k);
  };
  // The last step's update of the block columns past the current step, a piece at a time
  // (a block column per process column: one local block column on each rank) between tests
  // of a panel on its way. Open MPI moves a nonblocking transfer over TCP only inside an MPI
  // call on both of its ends (a large one in fragments, each answered), so a rank that
  // computes without one holds up every panel it sends, receives or gathers.
  std::unique_ptr<TrailingUpdate<T>> later;
  int64_t later_from = blocks;
  auto piece = [&] {
    if (!later || later_from >= blocks) return false;
    later->apply_range(later_from, std::min(blocks, later_from + g.cols));
    later_from += g.cols;
    trace.mark("piece", later_from);
    return true;
  };
  const bool sleep = sleeping_waits();
  auto await = [&](WholePanel<T>& p, int64_t k) {
    trace.mark("await", k);
    while (!p.test() && piece()) {
    }
    trace.mark("wait", k);
    if (sleep) comm::detail::sleep_until([&] { return p.test(); });
    wire.note(p.wait());
    wire.bytes += p.bytes();
    trace.mark("arrived", k);
  };
  factor(0);
  for (int64_t k0 = 0, k1 = 0; k0 < blocks; k0 = k1) {
    k1 = std::min(blocks, k0 + width);
    for (int64_t k = k0; k < k1; ++k) {
      WholePanel<T>& p = *panels[k];
      await(p, k);
      if (p.status() != 0) return int(k * a.rows.nb) + p.status();
      if (k + 1 == k1) break;
      // Within the step, each panel updates the step's next block columns at once, the next
      // first, so that it is factored and on its way while the others are updated.
      trace.mark("inner", k);
      TrailingUpdate<T> update(a, g, p, k);
      update.apply(k + 1);
      factor(k + 1);
      update.apply_range(k + 2, k1);
      trace.mark("inner_end", k);
    }
    if (k1 == blocks) break;  // nothing is left of the last step's update past the matrix
    // Look-ahead: the next step's block columns get the last step's update, then this step's,
    // and the next step's first panel is factored and sent; every rank has then posted its
    // part of that panel's transfers, and the rest of the last step's update runs in pieces,
    // each followed by a test of the panel, until it has arrived (then a few block columns per
    // gemm). Each element still gets the steps' updates in order.
    const int64_t next_from = std::min(blocks, k1 + width);
    trace.mark("ahead", k1);
    if (later && later_from < next_from) {
      later->apply_range(later_from, next_from);
      later_from = next_from;
    }
    std::vector<const WholePanel<T>*> step;
    for (int64_t k = k0; k < k1; ++k) step.push_back(panels[k].get());
    auto next = std::make_unique<TrailingUpdate<T>>(a, g, std::move(step), k1 - 1);
    next->apply_range(k1, next_from);
    factor(k1);
    WholePanel<T>& p = *panels[k1];
    trace.mark("rest", later ? later_from : blocks);
    while (!p.test() && piece()) {
    }
    const int64_t group = 4 * int64_t(g.cols);
    for (; later && later_from < blocks; later_from += group)
      later->apply_range(later_from, std::min(blocks, later_from + group));
    trace.mark("rest_end", k0);
    later = std::move(next);
    later_from = next_from;
    panels.erase(panels.begin(), panels.lower_bound(k0));
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
