// 2.5D triangular solve in the form of the seed paper's section VI: the p processes of a
// BLACS grid form c layers of p/c, each layer holds a replica of A and solves an independent
// slice of B (columns for a left solve, rows for a right one) with the 2D algorithm on its own
// grid, so each broadcast spans fewer processes; one copy out and one copy back per slice
// replace the c reductions of the original 2.5D TRSM. The copies go through p?gemr2d_ between
// the caller's context and the layers' contexts.
#pragma once

#include "linalg/layout/blacs.hpp"
#include "linalg/triangular/triangular.hpp"

namespace commpress::linalg::detail {

template <class T>
struct TrsmCall {
  Side side;
  Uplo uplo;
  bool trans;
  Diag diag;
  T alpha;
  int m, n;
  const T* a;
  int ia, ja;
  const Descriptor* desca;
  T* b;
  int ib, jb;
  const Descriptor* descb;
};

// Collective over DESCA's context (every process calls with the same arguments); layers
// divides the context's process count. Blocks of DESCA's NB on the layers.
template <class T>
Status trsm_25d(const TrsmCall<T>& call, int layers, TriangularWire& wire);

}  // namespace commpress::linalg::detail
