// 2.5D Cholesky in the form of the seed paper's section VII: the p processes form c layers
// (layers.hpp), each with a copy of A (layer 0 the matrix, the others zeros: their copies
// accumulate their share of the updates). The matrix is factored in fat panels of c block
// columns: the fat panel's columns are summed over the layers onto layer 0, layer 0 factors
// them with the 2D steps, sends them to every layer, and each layer applies the trailing update
// of one block column of the fat panel to its own copy. Each layer's panel broadcasts span p/c
// processes and each carries 1/c of the updates; the sums happen once per fat panel.
#pragma once

#include "linalg/layout/blacs.hpp"
#include "linalg/triangular/triangular.hpp"

namespace commpress::linalg::detail {

// sub(A) (n x n at ia, ja of desca's matrix): as cholesky_right_looking, on `layers` layers of
// desca's context (layers divides its process count), blocks of DESCA's NB. Returns INFO.
// Collective over the context.
template <class T>
Result<int> cholesky_25d(Uplo uplo, int n, T* a, int ia, int ja, const Descriptor& desca,
                         int layers, TriangularWire& wire);

}  // namespace commpress::linalg::detail
