#include "linalg/layout/blacs.hpp"

#include <algorithm>

namespace commpress::linalg::detail {

BlacsContext::BlacsContext(const Grid& grid) {
  // BLACS builds its grid from every rank of the system handle's communicator, so hand it the
  // layer-0 communicator (its ranks are the grid's row-major order already).
  if (grid.layer() != 0) return;
  system_ = Csys2blacs_handle(grid.layer_comm());
  context_ = system_;
  Cblacs_gridinit(&context_, "Row", grid.rows(), grid.cols());
}

BlacsContext::~BlacsContext() {
  if (context_ >= 0) Cblacs_gridexit(context_);
  if (system_ >= 0) Cfree_blacs_system_handle(system_);
}

}  // namespace commpress::linalg::detail

namespace commpress::linalg {

template <class T>
Descriptor descriptor_of(const DistMatrix<T>& m, const Grid& grid, int context) {
  const int rows = int(m.rows), cols = int(m.cols);
  const int mb = int(std::max<int64_t>(1, m.row_split(grid).block()));
  const int nb = int(std::max<int64_t>(1, m.col_split(grid).block()));
  // descinit_ rejects LLD below the local rows, which the gemm checks already rule out; build
  // the descriptor directly so an empty rank's LLD of 1 is accepted too.
  return {1, context, rows, cols, mb, nb, 0, 0, int(std::max<int64_t>(1, m.ld))};
}

template Descriptor descriptor_of<float>(const DistMatrix<float>&, const Grid&, int);
template Descriptor descriptor_of<double>(const DistMatrix<double>&, const Grid&, int);

}  // namespace commpress::linalg
