// 2.5D Cholesky (the seed paper's section VII, after Solomonik and Demmel): the caller's
// pr x pc grid is cut into c layers of whole process columns (pc / c each, consecutive), so a
// layer's ranks hold exactly the blocks they held on the caller's grid, block-cyclic over the
// layer's pr x (pc / c) grid: no copy in or out. Each layer keeps a copy of the matrix that
// starts with its own ranks' blocks (zeros elsewhere; the copies sum to A) and accumulates the
// trailing updates the layer applies. The matrix is factored in fat panels of the pc / c block
// columns that lie on one layer, which owns them: their columns are summed over the layers onto
// it, it factors them with the 2D steps (its panel broadcasts span p / c processes), and of the
// fat panel's block columns, the t-th updates the trailing matrix on layer (owner + t) mod c:
// the ones the owner needs spread over it as 2D panels (each rank gets the rows it reads), and
// a rank sends its counterpart on the applying layer what it received; the last one, applied
// elsewhere, goes from its process column to their counterparts and spreads there. The factor
// ends where the caller's blocks are.
#pragma once

#include "linalg/triangular/triangular.hpp"

namespace commpress::linalg::detail {

// As cholesky_right_looking on c layers of g's process columns (the lower factor's: g.cols,
// else g.rows, must be a multiple of `layers`). Collective over the grid; returns INFO.
template <class T>
int cholesky_25d(Uplo uplo, const BlockCyclic<T>& a, const LineGrid& g, int layers,
                 TriangularWire& wire);

// Whether cholesky_25d can run `layers` layers on a pr x pc grid for this triangle.
bool cholesky_25d_fits(Uplo uplo, int pr, int pc, int layers);

}  // namespace commpress::linalg::detail
