#include "linalg/triangular/trsm25d.hpp"

#include <algorithm>
#include <vector>

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
int layer_context(int context, int nprow, int npcol, int layer, int rows, int cols) {
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

// Where slice l of `total` items over `parts` slices starts.
int slice_start(int total, int parts, int l) {
  return int(int64_t(total) * l / parts);
}

}  // namespace

template <class T>
Status trsm_25d(const TrsmCall<T>& call, int layers, TriangularWire& wire) {
  const int context = (*call.desca)[1];
  int nprow = 0, npcol = 0, myrow = -1, mycol = -1;
  Cblacs_gridinfo(context, &nprow, &npcol, &myrow, &mycol);
  const int p = nprow * npcol, q = p / layers;
  int qr = 1, qc = 1;
  layer_shape(q, qr, qc);
  const int me = (myrow * npcol + mycol) / q;
  int mine = -1;
  for (int l = 0; l < layers; ++l) {
    const int ctx = layer_context(context, nprow, npcol, l, qr, qc);
    if (l == me) mine = ctx;
  }
  auto grid = Grid::from_blacs(mine);
  if (!grid.ok()) {
    Cblacs_gridexit(mine);
    return grid.status();
  }
  const LineGrid g = line_grid_of(*grid);
  const bool left = call.side == Side::Left;
  const int k = left ? call.m : call.n;
  const int nb = (*call.desca)[5];
  const int zero = 0;
  // The independent dimension of B (columns for a left solve) is cut into `layers` slices.
  const int split = left ? call.n : call.m;
  const int w0 = slice_start(split, layers, me), w = slice_start(split, layers, me + 1) - w0;
  const int brows = left ? call.m : w, bcols = left ? w : call.n;
  const int ar = numroc_(&k, &nb, &g.row, &zero, &qr), ac = numroc_(&k, &nb, &g.col, &zero, &qc);
  const int br = numroc_(&brows, &nb, &g.row, &zero, &qr), bc = numroc_(&bcols, &nb, &g.col, &zero, &qc);
  std::vector<T> a_local(size_t(std::max(1, ar) * std::max(1, ac)));
  std::vector<T> b_local(size_t(std::max(1, br) * std::max(1, bc)));
  const Descriptor da{1, mine, k, k, nb, nb, 0, 0, std::max(1, ar)};
  const Descriptor db{1, mine, brows, bcols, nb, nb, 0, 0, std::max(1, br)};
  // Every process takes part in every layer's copy; outside that layer its end is a
  // descriptor whose context is -1 (p?gemr2d_'s convention).
  for (int l = 0; l < layers; ++l) {
    Descriptor dl = da;
    if (l != me) dl[1] = -1;
    gemr2d(k, k, call.a, call.ia, call.ja, call.desca->data(), a_local.data(), 1, 1, dl.data(),
           context);
  }
  auto move_slices = [&](bool out) {
    for (int l = 0; l < layers; ++l) {
      const int s0 = slice_start(split, layers, l), sw = slice_start(split, layers, l + 1) - s0;
      if (sw == 0) continue;
      const int rows = left ? call.m : sw, cols = left ? sw : call.n;
      Descriptor dl = db;
      dl[2] = rows;
      dl[3] = cols;
      if (l != me) dl[1] = -1;
      const int bi = call.ib + (left ? 0 : s0), bj = call.jb + (left ? s0 : 0);
      if (out)
        gemr2d(rows, cols, call.b, bi, bj, call.descb->data(), b_local.data(), 1, 1, dl.data(),
               context);
      else
        gemr2d(rows, cols, b_local.data(), 1, 1, dl.data(), call.b, bi, bj, call.descb->data(),
               context);
    }
  };
  move_slices(true);
  if (w > 0) {
    const BlockCyclic<T> va{a_local.data(), std::max(1, ar), {k, nb, 0, qr}, {k, nb, 0, qc}};
    const BlockCyclic<T> vb{b_local.data(), std::max(1, br), {brows, nb, 0, qr}, {bcols, nb, 0, qc}};
    trsm_right_looking(call.side, call.uplo, call.trans, call.diag, call.alpha, va, vb, g, wire);
  }
  move_slices(false);
  Cblacs_gridexit(mine);
  return {};
}

template Status trsm_25d<float>(const TrsmCall<float>&, int, TriangularWire&);
template Status trsm_25d<double>(const TrsmCall<double>&, int, TriangularWire&);

}  // namespace commpress::linalg::detail
