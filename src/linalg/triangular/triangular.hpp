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

#include "linalg/layout/block_cyclic.hpp"
#include "linalg/triangular/triangular_blas.hpp"

namespace commpress::linalg::detail {

// B = alpha * op(A)^-1 B (Left) or alpha * B op(A)^-1 (Right); A is read in its `uplo`
// triangle only (and not at all when alpha == 0), its diagonal taken as ones for Diag::Unit.
template <class T>
void trsm_right_looking(Side side, Uplo uplo, bool trans, Diag diag, T alpha,
                        const BlockCyclic<T>& a, const BlockCyclic<T>& b, const LineGrid& g);

// A = L L^T (Lower, L in the lower triangle) or U^T U (Upper, U in the upper triangle); the
// other triangle is neither read nor written. Returns 0, or LAPACK's info on every rank: the
// 1-based column j whose leading minor is not positive definite (the factorization stops
// there, as LAPACK's does).
template <class T>
int cholesky_right_looking(Uplo uplo, const BlockCyclic<T>& a, const LineGrid& g);

}  // namespace commpress::linalg::detail
