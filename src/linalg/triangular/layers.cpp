#include "linalg/triangular/layers.hpp"

#include <vector>

#include "comm/session/private_comm.hpp"

#include "linalg/layout/blacs.hpp"
#include "linalg/triangular/scalapack_call.hpp"

namespace commpress::linalg::detail {

void layer_shape(int per_layer, int& rows, int& cols) {
  rows = 1;
  for (int r = 1; r * r <= per_layer; ++r)
    if (per_layer % r == 0) rows = r;
  cols = per_layer / rows;
}

namespace {

// One layer's BLACS grid over the caller's processes [layer * q, (layer + 1) * q) in the
// caller's row-major order. Every process of the caller's context builds every layer's
// (BLACS makes grids collectively); each keeps only its own.
int layer_context(int context, int npcol, int layer, int rows, int cols) {
  std::vector<int> map(size_t(rows * cols));
  for (int i = 0; i < rows * cols; ++i) {
    const int t = layer * rows * cols + i;  // position in the caller's grid, row-major
    const int r = i / cols, c = i % cols;    // position in the layer's grid
    map[size_t(r + c * rows)] = Cblacs_pnum(context, t / npcol, t % npcol);
  }
  int handle = -1;
  Cblacs_get(context, 10, &handle);
  Cblacs_gridmap(&handle, map.data(), rows, rows, cols);
  return handle;
}

}  // namespace

Result<std::unique_ptr<Layers>> Layers::create(int context, int layers) {
  int nprow = 0, npcol = 0, myrow = -1, mycol = -1;
  Cblacs_gridinfo(context, &nprow, &npcol, &myrow, &mycol);
  std::unique_ptr<Layers> out(new Layers());
  out->count_ = layers;
  const int q = nprow * npcol / layers;
  layer_shape(q, out->rows_, out->cols_);
  const int t = myrow * npcol + mycol;
  out->me_ = t / q;
  for (int l = 0; l < layers; ++l) {
    const int ctx = layer_context(context, npcol, l, out->rows_, out->cols_);
    if (l == out->me_) out->context_ = ctx;
  }
  auto grid = Grid::from_blacs(out->context_);
  if (!grid.ok()) return grid.status();
  out->grid_ = *grid;
  out->line_ = line_grid_of(out->grid_);
  int handle = -1;
  Cblacs_get(context, 10, &handle);
  MPI_Comm system = Cblacs2sys_handle(handle);
  Cfree_blacs_system_handle(handle);
  COMMPRESS_MPI(MPI_Comm_split(system, t % q, out->me_, &out->fiber_));
  return out;
}

Layers::~Layers() {
  if (fiber_ != MPI_COMM_NULL) MPI_Comm_free(&fiber_);
  if (context_ >= 0) Cblacs_gridexit(context_);
}

}  // namespace commpress::linalg::detail
