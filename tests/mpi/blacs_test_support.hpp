// BLACS grids and block-cyclic ScaLAPACK matrices for the tests of the ScaLAPACK-facing API:
// each process's piece of an M x N matrix whose element (i, j) is matrix_value(seed, i, j).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "linalg/layout/blacs.hpp"
#include "linalg/layout/matrix_fill.hpp"
#include "mpi_harness.hpp"

extern "C" void Cblacs_pinfo(int* rank, int* size);

namespace commpress::testing {

using linalg::detail::Descriptor;

// A BLACS grid from the world's first rows*cols processes; the others hold no position.
struct BlacsGrid {
  int context = -1, nprow = -1, npcol = -1, myrow = -1, mycol = -1;
  BlacsGrid(int rows, int cols, const char* order = "Row") {
    int rank = 0, size = 0;
    Cblacs_pinfo(&rank, &size);
    Cblacs_get(-1, 0, &context);
    Cblacs_gridinit(&context, order, rows, cols);
    Cblacs_gridinfo(context, &nprow, &npcol, &myrow, &mycol);
  }
  BlacsGrid(const BlacsGrid&) = delete;
  BlacsGrid& operator=(const BlacsGrid&) = delete;
  ~BlacsGrid() {
    if (member()) Cblacs_gridexit(context);
  }
  bool member() const { return myrow >= 0 && mycol >= 0; }
};

// 0-based global index of local index l (ScaLAPACK's INDXL2G).
inline int local_to_global(int l, int nb, int me, int src, int procs) {
  return ((l / nb) * procs + (me - src + procs) % procs) * nb + l % nb;
}

// This process's piece of an M x N block-cyclic matrix, element (i, j) from matrix_value.
template <class T>
struct ScaMatrix {
  Descriptor desc{};
  std::vector<T> local;
  int np = 0, nq = 0;
  ScaMatrix(int m, int n, int mb, int nb, int rsrc, int csrc, const BlacsGrid& g, uint64_t seed,
            int pad = 0) {
    np = ::numroc_(&m, &mb, &g.myrow, &rsrc, &g.nprow);
    nq = ::numroc_(&n, &nb, &g.mycol, &csrc, &g.npcol);
    desc = {1, g.context, m, n, mb, nb, rsrc, csrc, std::max(1, np + pad)};
    local.assign(size_t(desc[8]) * size_t(std::max(1, nq)), T(0));
    for (int lj = 0; lj < nq; ++lj)
      for (int li = 0; li < np; ++li)
        local[size_t(li + lj * desc[8])] =
            T(linalg::detail::matrix_value(seed, global_row(li, g), global_col(lj, g)));
  }
  int global_row(int li, const BlacsGrid& g) const {
    return local_to_global(li, desc[4], g.myrow, desc[6], g.nprow);
  }
  int global_col(int lj, const BlacsGrid& g) const {
    return local_to_global(lj, desc[5], g.mycol, desc[7], g.npcol);
  }
};

// MB or NB of the block layout: n items over `parts` processes.
inline int blocks_of(int n, int parts) {
  return std::max(1, (n + parts - 1) / parts);
}

// The grid covering the whole world (so MPI_COMM_WORLD can compare the processes' views).
inline BlacsGrid world_grid() {
  const int p = mpi::size();
  int rows = 1;
  for (int r = 1; r * r <= p; ++r)
    if (p % r == 0) rows = r;
  return BlacsGrid(rows, p / rows);
}

}  // namespace commpress::testing
