#include "linalg/triangular/cholesky25d.hpp"

#include <mpi.h>

#include <algorithm>
#include <vector>

#include "linalg/triangular/cholesky_steps.hpp"
#include "linalg/triangular/layers.hpp"

namespace commpress::linalg::detail {

namespace {

// The local rows from block row `first_block` down of the local block columns [k0, k1): packed
// for a reduction or broadcast over the fiber, and back.
template <class T>
struct FatColumns {
  const BlockCyclic<T>& a;
  int64_t r0, rows, c0, cols;
  FatColumns(const BlockCyclic<T>& m, const LineGrid& g, int64_t k0, int64_t k1)
      : a(m),
        r0(m.rows.local_before(k0, g.row)),
        rows(m.rows.local_size(g.row) - m.rows.local_before(k0, g.row)),
        c0(m.cols.local_before(k0, g.col)),
        cols(m.cols.local_before(k1, g.col) - m.cols.local_before(k0, g.col)) {}
  void pack(std::vector<T>& out) const {
    out.resize(size_t(std::max<int64_t>(1, rows * cols)));
    for (int64_t j = 0; j < cols; ++j)
      std::copy(a.at(r0, c0 + j), a.at(r0, c0 + j) + rows, &out[size_t(j * rows)]);
  }
  void unpack(const std::vector<T>& in) const {
    for (int64_t j = 0; j < cols; ++j)
      std::copy(&in[size_t(j * rows)], &in[size_t(j * rows)] + rows, a.at(r0, c0 + j));
  }
};

template <class T>
int factor_layered(const BlockCyclic<T>& a, const LineGrid& g, const Layers& lay,
                   TriangularWire& wire) {
  const int c = lay.count(), me = lay.mine();
  const int64_t blocks = a.rows.blocks();
  std::vector<T> buffer;
  auto wait_panel = [&](WholePanel<T>& p) {
    wire.note(p.wait());
    wire.bytes += p.bytes();
  };
  int info = 0;
  for (int64_t k0 = 0; k0 < blocks && info == 0; k0 += c) {
    const int64_t k1 = std::min<int64_t>(blocks, k0 + c);
    const FatColumns<T> fat(a, g, k0, k1);
    // The fat panel's columns, summed over the layers onto layer 0.
    fat.pack(buffer);
    const int count = int(fat.rows * fat.cols);
    MPI_Reduce(me == 0 ? MPI_IN_PLACE : buffer.data(), buffer.data(), count, mpi_type_of<T>(),
               MPI_SUM, 0, lay.fiber());
    if (me == 0) {
      fat.unpack(buffer);
      for (int64_t k = k0; k < k1; ++k) {
        WholePanel<T> p;
        factor_panel(a, g, k, p, wire.frames);
        wait_panel(p);
        if (p.status() != 0) {
          info = int(k * a.rows.nb) + p.status();
          break;
        }
        TrailingUpdate<T> update(a, g, p, k);
        for (int64_t j = k + 1; j < k1; ++j) update.apply(j);
      }
      fat.pack(buffer);
    }
    MPI_Bcast(&info, 1, MPI_INT, 0, lay.fiber());
    if (info != 0) break;
    // The factored fat panel to every layer; layer l applies block column k0 + l's update.
    MPI_Bcast(buffer.data(), count, mpi_type_of<T>(), 0, lay.fiber());
    if (me != 0) fat.unpack(buffer);
    const int64_t k = k0 + me;
    if (k < k1 && k1 < blocks) {
      WholePanel<T> p;
      p.start(a, g, PanelKind::Column, k, k, blocks, wire.frames);
      wait_panel(p);
      TrailingUpdate<T> update(a, g, p, k);
      for (int64_t j = k1; j < blocks; ++j) update.apply(j);
    }
  }
  if (info == 0 && me == 0) cholesky_residual_bound(a, g, wire);
  return info;
}

}  // namespace

template <class T>
Result<int> cholesky_25d(Uplo uplo, int n, T* a, int ia, int ja, const Descriptor& desca,
                         int layers, TriangularWire& wire) {
  auto made = Layers::create(desca[1], layers);
  if (!made.ok()) return made.status();
  const Layers& lay = **made;
  const LineGrid& g = lay.grid();
  const int nb = desca[5], zero = 0, qr = lay.rows(), qc = lay.cols();
  const int ar = numroc_(&n, &nb, &g.row, &zero, &qr), ac = numroc_(&n, &nb, &g.col, &zero, &qc);
  std::vector<T> local(size_t(std::max(1, ar) * std::max(1, ac)), T(0));
  const Descriptor dl{1, lay.context(), n, n, nb, nb, 0, 0, std::max(1, ar)};
  // Layer 0 holds the matrix; the others start from zeros and gather their updates.
  to_layer(lay, 0, n, n, a, ia, ja, desca, local.data(), dl);
  const BlockCyclic<T> view{local.data(), std::max(1, ar), {n, nb, 0, qr}, {n, nb, 0, qc}};
  int info = 0;
  if (uplo == Uplo::Lower) {
    info = factor_layered(view, g, lay, wire);
  } else {
    // The upper factor is the lower one of the transpose (each rank transposes its array).
    LocalTranspose<T> t(view, g);
    info = factor_layered(t.view(), g.transposed(), lay, wire);
    t.restore();
  }
  from_layer(lay, 0, n, n, local.data(), dl, a, ia, ja, desca);
  return info;
}

template Result<int> cholesky_25d<float>(Uplo, int, float*, int, int, const Descriptor&, int,
                                         TriangularWire&);
template Result<int> cholesky_25d<double>(Uplo, int, double*, int, int, const Descriptor&, int,
                                          TriangularWire&);

}  // namespace commpress::linalg::detail
