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
  out->caller_rows_ = nprow;
  out->caller_cols_ = npcol;
  out->caller_row_ = myrow;
  out->caller_col_ = mycol;
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

int64_t Layers::copy_arrivals(int l, bool into, int rows, int cols, int i, int j,
                              const Descriptor& desc, int nb) const {
  if (into && l != me_) return 0;
  // How many of the copy's rows sit on caller row a and layer row b (and columns alike): an
  // element moves exactly when its two places are different processes.
  std::vector<int64_t> on_rows(size_t(caller_rows_ * rows_), 0), on_cols(size_t(caller_cols_ * cols_), 0);
  for (int r = 0; r < rows; ++r)
    ++on_rows[size_t(((i - 1 + r) / desc[4] + desc[6]) % caller_rows_ * rows_ + (r / nb) % rows_)];
  for (int c = 0; c < cols; ++c)
    ++on_cols[size_t(((j - 1 + c) / desc[5] + desc[7]) % caller_cols_ * cols_ + (c / nb) % cols_)];
  int64_t arriving = 0;
  for (int a = 0; a < caller_rows_; ++a)
    for (int b = 0; b < rows_; ++b)
      for (int c = 0; c < caller_cols_; ++c)
        for (int d = 0; d < cols_; ++d) {
          int pr = 0, pc = 0;
          caller_place(l, b, d, pr, pc);
          if (pr == a && pc == c) continue;
          // into: arrives at the layer's process (b, d); back: at the caller's (a, c).
          const bool here = into ? (b == line_.row && d == line_.col)
                                 : (a == caller_row_ && c == caller_col_);
          if (here) arriving += on_rows[size_t(a * rows_ + b)] * on_cols[size_t(c * cols_ + d)];
        }
  return arriving;
}

Layers::~Layers() {
  if (fiber_ != MPI_COMM_NULL) MPI_Comm_free(&fiber_);
  if (context_ >= 0) Cblacs_gridexit(context_);
}

}  // namespace commpress::linalg::detail
