#include "linalg/triangular/trsm25d.hpp"

#include <algorithm>
#include <vector>

#include "linalg/triangular/layers.hpp"

namespace commpress::linalg::detail {

namespace {

// Where slice l of `total` items over `parts` slices starts.
int slice_start(int total, int parts, int l) {
  return int(int64_t(total) * l / parts);
}

}  // namespace

template <class T>
Status trsm_25d(const TrsmCall<T>& call, int layers, TriangularWire& wire) {
  const int context = (*call.desca)[1];
  auto made = Layers::create(context, layers);
  if (!made.ok()) return made.status();
  const Layers& lay = **made;
  const int me = lay.mine(), mine = lay.context(), qr = lay.rows(), qc = lay.cols();
  const LineGrid& g = lay.grid();
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
  const int64_t elem = int64_t(sizeof(T));
  for (int l = 0; l < layers; ++l) {
    to_layer(lay, l, k, k, call.a, call.ia, call.ja, *call.desca, a_local.data(), da);
    wire.bytes += elem * lay.copy_arrivals(l, true, k, k, call.ia, call.ja, *call.desca, nb);
  }
  auto move_slices = [&](bool out) {
    for (int l = 0; l < layers; ++l) {
      const int s0 = slice_start(split, layers, l), sw = slice_start(split, layers, l + 1) - s0;
      if (sw == 0) continue;
      const int rows = left ? call.m : sw, cols = left ? sw : call.n;
      Descriptor dl = db;
      dl[2] = rows;
      dl[3] = cols;
      const int bi = call.ib + (left ? 0 : s0), bj = call.jb + (left ? s0 : 0);
      if (out)
        to_layer(lay, l, rows, cols, call.b, bi, bj, *call.descb, b_local.data(), dl);
      else
        from_layer(lay, l, rows, cols, b_local.data(), dl, call.b, bi, bj, *call.descb);
      wire.bytes += elem * lay.copy_arrivals(l, out, rows, cols, bi, bj, *call.descb, nb);
    }
  };
  move_slices(true);
  if (w > 0) {
    const BlockCyclic<T> va{a_local.data(), std::max(1, ar), {k, nb, 0, qr}, {k, nb, 0, qc}};
    const BlockCyclic<T> vb{b_local.data(), std::max(1, br), {brows, nb, 0, qr}, {bcols, nb, 0, qc}};
    trsm_right_looking(call.side, call.uplo, call.trans, call.diag, call.alpha, va, vb, g, wire);
  }
  move_slices(false);
  return {};
}

template Status trsm_25d<float>(const TrsmCall<float>&, int, TriangularWire&);
template Status trsm_25d<double>(const TrsmCall<double>&, int, TriangularWire&);

}  // namespace commpress::linalg::detail
