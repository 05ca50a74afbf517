// The steps of the right-looking Cholesky, shared by the 2D factorization and the 2.5D one
// (which runs them on layers): factoring one block column into a panel, and the trailing
// update of chosen block columns with a panel.
#pragma once

#include <cstdint>
#include <vector>

#include "linalg/triangular/panel_broadcast.hpp"
#include "linalg/triangular/triangular.hpp"

namespace commpress::linalg::detail {

// Whether the Cholesky's waits for panels and diagonal blocks test and sleep between tests
// (comm::detail::sleep_until) instead of polling in MPI's waits: unless COMMPRESS_PROGRESS=spin.
// On a node with fewer cores than ranks a polling rank takes a core from one that factors,
// updates, or moves a panel's bytes (TCP's work is done on the sender's and receiver's cores).
bool sleeping_waits();

// Factors block column k on its process column (?potrf on the diagonal's owner, sent down
// the column with its info; ?trsm below) and, with `spread`, starts bringing the panel to
// every rank (WholePanel::start_needed, the info as its status; collective over the grid).
// Without, nothing else moves: the panel stays in the factoring column's blocks of `a` and
// `panel` is only sized. Returns the info as the factoring column knows it (0 elsewhere). The
// diagonal block's bytes are counted in wire.bytes (the panel's when the caller waits on it).
template <class T>
int factor_panel(const BlockCyclic<T>& a, const LineGrid& g, int64_t k, WholePanel<T>& panel,
                 TriangularWire& wire, bool spread = true);

// A(i, j) -= L(i, k) L(j, k)^T for the lower part of the block columns j > k this rank holds,
// with panel k (arrived; only the rows of this rank's block rows and block columns are read):
// apply(j) updates block column j. Local. Given the panels of consecutive block columns
// k0..k (all arrived), the same for all of them at once, A(i, j) -= L(i, k0:k) L(j, k0:k)^T
// for j > k: one gemm with their summed width as its inner dimension, which the BLAS runs
// far nearer its peak than one per panel of a small block.
template <class T>
class TrailingUpdate {
 public:
  TrailingUpdate(const BlockCyclic<T>& a, const LineGrid& g, const WholePanel<T>& p, int64_t k)
      : TrailingUpdate(a, g, std::vector<const WholePanel<T>*>{&p}, k) {}
  TrailingUpdate(const BlockCyclic<T>& a, const LineGrid& g,
                 std::vector<const WholePanel<T>*> panels, int64_t k);
  void apply(int64_t j) { apply_range(j, j + 1); }
  // The block columns of [j0, j1) this rank holds: each one's rows down to the last of their
  // diagonal blocks, then the rows below in one gemm over all of them (a gemm per block
  // column repacks the panel's rows each time).
  void apply_range(int64_t j0, int64_t j1);

 private:
  std::vector<T> columns_;  // the panels' rows of apply_range's block columns, packed
  const BlockCyclic<T>& a_;
  const LineGrid& g_;
  std::vector<const WholePanel<T>*> panels_;
  int64_t mp_ = 0, bk_ = 0, base_ = 0, ld_ = 1;
  std::vector<T> mine_;  // the panels' rows of this rank's block rows below k, local order
};

// With a lossy codec: the bound on max |A - L L^T| compression can add (triangular.hpp).
template <class T>
void cholesky_residual_bound(const BlockCyclic<T>& a, const LineGrid& g, TriangularWire& wire);

}  // namespace commpress::linalg::detail
