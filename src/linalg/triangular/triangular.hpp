// The distributed triangular solve and Cholesky factorization on a 2D block-cyclic layout
// (ScaLAPACK's), right-looking with a look-ahead of one panel: the next panel is factored (or
// solved) and its broadcast started before the rest of the trailing update runs.
//
// Preconditions (the ScaLAPACK entry points establish them, redistributing when needed): A is
// square with square blocks (rows.nb == cols.nb); for a left solve B's rows are laid out as
// A's (same nb and source process row), for a right solve B's columns as A's columns. Every
// rank of the grid calls, with the same arguments but its own local arrays.
#pragma once

#include <cstdint>

#include "comm/transport/wire.hpp"
#include "commpress/status.hpp"
#include "linalg/layout/block_cyclic.hpp"
#include "linalg/triangular/triangular_blas.hpp"

namespace commpress::linalg::detail {

using comm::detail::Wire;

// How one call's panels and solved blocks travel, and what came of it on this rank.
struct TriangularWire {
  const Wire* frames = nullptr;  // null or uncompressed: raw blocks
  double abs_bound = 0;         // a lossy codec's bound on every element that travels (else 0)
  // Bytes that arrived at this rank in the call's transfers (a reduction's contributions
  // counted where they leave): summed over the grid, what the call moved between processes.
  int64_t bytes = 0;
  Status error;                 // the first local failure (a frame that did not decode)
  // With abs_bound > 0: the bound, derived after the run, on every element of the residual
  // the compression can add (see each algorithm); 0 otherwise.
  double result_bound = 0;
  // The inner dimension the trailing updates aim for: the panels of that many columns (whole
  // blocks, at least one) update the rest at once, as one gemm.
  int64_t update_width = 256;
  void note(const Status& st) {
    if (error.ok() && !st.ok()) error = st;
  }
};

// B = alpha * op(A)^-1 B (Left) or alpha * B op(A)^-1 (Right); A is read in its `uplo`
// triangle only (and not at all when alpha == 0), its diagonal taken as ones for Diag::Unit.
// A's panels and the solved block rows of X travel through wire.frames. With a lossy codec
// (bound e) the solution X satisfies op(A) X = alpha B + R with
//   max |R| <= e (||op(A)||_inf + ||X||_1 + k e)      (k: the order of A),
// on top of the rounding an uncompressed solve has: the ranks owning a block keep its exact
// value, the others use it within e (result_bound).
template <class T>
void trsm_right_looking(Side side, Uplo uplo, bool trans, Diag diag, T alpha,
                        const BlockCyclic<T>& a, const BlockCyclic<T>& b, const LineGrid& g,
                        TriangularWire& wire);

// A = L L^T (Lower, L in the lower triangle) or U^T U (Upper, U in the upper triangle); the
// other triangle is neither read nor written. Returns 0, or LAPACK's info on every rank: the
// 1-based column j whose leading minor is not positive definite (the factorization stops
// there, as LAPACK's does). The panels travel through wire.frames; with a lossy codec (bound e)
// the factor satisfies L L^T = A + E with
//   max |E| <= 2 e ||L||_inf + n e^2
// on top of rounding (each trailing update may use the panel within e; its owners factor
// with exact values) (result_bound, computed when the factorization completed).
template <class T>
int cholesky_right_looking(Uplo uplo, const BlockCyclic<T>& a, const LineGrid& g,
                           TriangularWire& wire);

}  // namespace commpress::linalg::detail
