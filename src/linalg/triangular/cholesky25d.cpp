#include "linalg/triangular/cholesky25d.hpp"

#include <mpi.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "linalg/triangular/cholesky_steps.hpp"

namespace commpress::linalg::detail {

namespace {

// This rank's layer: the caller's process columns [layer * q, (layer + 1) * q), its own grid
// of rows x q, and the fiber (the ranks at the same place of every layer, ranked by layer).
class ColumnLayers {
 public:
  ColumnLayers(const LineGrid& g, int count) : count_(count), q_(g.cols / count) {
    mine_ = g.col / q_;
    grid_ = {g.row, g.col % q_, g.rows, q_, MPI_COMM_NULL, g.col_comm};
    MPI_Comm_split(g.row_comm, mine_, g.col, &grid_.row_comm);
    MPI_Comm_split(g.row_comm, g.col % q_, mine_, &fiber_);
  }
  ~ColumnLayers() {
    MPI_Comm_free(&grid_.row_comm);
    MPI_Comm_free(&fiber_);
  }
  ColumnLayers(const ColumnLayers&) = delete;
  ColumnLayers& operator=(const ColumnLayers&) = delete;

  int count() const { return count_; }
  int per_layer() const { return q_; }
  int mine() const { return mine_; }
  int of_column(int caller_col) const { return caller_col / q_; }
  const LineGrid& grid() const { return grid_; }
  MPI_Comm fiber() const { return fiber_; }

 private:
  int count_, q_, mine_ = 0;
  LineGrid grid_;
  MPI_Comm fiber_ = MPI_COMM_NULL;
};

// The local rows from block row `first_block` down of the local block columns [k0, k1): packed
// for a reduction over the fiber, and back.
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

// The blocks i >= k of panel k a rank at (row, col) of a layer reads in its trailing update:
// its block rows (the update's rows) and its block columns (their transposes).
template <class T>
bool read_by(const BlockCyclic<T>& a, int64_t i, int row, int col) {
  return a.rows.owner(i) == row || a.cols.owner(i) == col;
}

// The rows of panel p from block `first` down that a layer rank at (row, col) reads, into
// `out` and back.
template <class T>
void pack_rows(const BlockCyclic<T>& a, const WholePanel<T>& p, int64_t first, int row, int col,
               std::vector<T>& out) {
  out.clear();
  for (int64_t i = first; i < a.rows.blocks(); ++i) {
    if (!read_by(a, i, row, col)) continue;
    for (int64_t q = 0; q < p.width(); ++q)
      out.insert(out.end(), p.block(i) + q * p.rows(), p.block(i) + q * p.rows() + a.rows.block_size(i));
  }
}
template <class T>
int64_t unpack_rows(const BlockCyclic<T>& a, WholePanel<T>& p, int64_t first, int row, int col,
                    const std::vector<T>& in) {
  int64_t at = 0;
  for (int64_t i = first; i < a.rows.blocks(); ++i) {
    if (!read_by(a, i, row, col)) continue;
    T* block = p.data() + (p.block(i) - p.data());
    for (int64_t q = 0; q < p.width(); ++q, at += a.rows.block_size(i))
      std::copy(&in[size_t(at)], &in[size_t(at)] + a.rows.block_size(i), block + q * p.rows());
  }
  return at;
}

// INFO from the ranks that know it (the others pass 0) to every rank of the caller's grid.
int agree_info(int info, const LineGrid& g) {
  MPI_Allreduce(MPI_IN_PLACE, &info, 1, MPI_INT, MPI_MAX, g.col_comm);
  MPI_Allreduce(MPI_IN_PLACE, &info, 1, MPI_INT, MPI_MAX, g.row_comm);
  return info;
}

// The lower factorization of `a` on the caller's grid g, in place, on the layers.
template <class T>
int factor_layered(const BlockCyclic<T>& a, const LineGrid& g, const ColumnLayers& lay,
                   TriangularWire& wire) {
  const int q = lay.per_layer(), c = lay.count(), me = lay.mine();
  const LineGrid& lg = lay.grid();
  const int64_t blocks = a.rows.blocks(), mp = a.rows.local_size(g.row);
  const int64_t ld = std::max<int64_t>(1, mp);
  // The layer's copy: block column j sits on layer column (j + src) mod q, so the caller's
  // blocks keep their place and the rest starts at zero.
  const CyclicAxis cols{a.cols.n, a.cols.nb, a.cols.src % q, q};
  std::vector<T> copy(size_t(ld * std::max<int64_t>(1, cols.local_size(lg.col))), T(0));
  const BlockCyclic<T> v{copy.data(), ld, a.rows, cols};
  auto own = [&](int64_t j) { return a.cols.owner(j) == g.col; };
  auto move_own = [&](bool in) {
    for (int64_t j = 0; j < blocks; ++j) {
      if (!own(j)) continue;
      T* mine = a.at(0, a.cols.local_start(j));
      T* layer = v.at(0, cols.local_start(j));
      for (int64_t col = 0; col < a.cols.block_size(j); ++col) {
        T* from = in ? mine + col * a.lld : layer + col * ld;
        T* to = in ? layer + col * ld : mine + col * a.lld;
        std::copy(from, from + mp, to);
      }
    }
  };
  move_own(true);

  std::vector<T> buffer, packed;
  int info = 0;
  for (int64_t k0 = 0; k0 < blocks && info == 0;) {
    const int owner = lay.of_column(a.cols.owner(k0));
    int64_t k1 = k0 + 1;
    while (k1 < blocks && lay.of_column(a.cols.owner(k1)) == owner) ++k1;
    // The fat panel's columns summed onto its layer (the first has no updates elsewhere yet).
    if (k0 > 0) {
      const FatColumns<T> fat(v, lg, k0, k1);
      fat.pack(buffer);
      const int count = int(fat.rows * fat.cols);
      MPI_Reduce(me == owner ? MPI_IN_PLACE : buffer.data(), buffer.data(), count,
                 mpi_type_of<T>(), MPI_SUM, owner, lay.fiber());
      if (me == owner) fat.unpack(buffer);
      else wire.bytes += int64_t(count) * int64_t(sizeof(T));
    }
    // Block column k0 + t updates the trailing matrix on layer (owner + t) mod c.
    auto user = [&](int64_t k) { return int((owner + (k - k0)) % c); };
    std::vector<std::unique_ptr<WholePanel<T>>> panels;
    for (int64_t k = k0; k < k1; ++k) panels.push_back(std::make_unique<WholePanel<T>>());
    int failed = 0;
    // A column spreads over the owning layer where it updates the fat panel's later columns
    // or the layer's trailing matrix; the last one, when another layer applies it, stays in
    // its process column (see below).
    auto spread_here = [&](int64_t k) { return k + 1 < k1 || user(k) == owner; };
    if (me == owner) {
      for (int64_t k = k0; k < k1; ++k) {
        WholePanel<T>& p = *panels[size_t(k - k0)];
        int status = factor_panel(v, lg, k, p, wire, spread_here(k));
        if (spread_here(k)) {
          wire.note(p.wait());
          wire.bytes += p.bytes();
          status = p.status();
        }
        if (status != 0) {
          failed = int(k * a.rows.nb) + status;
          break;
        }
        if (!spread_here(k)) continue;
        TrailingUpdate<T> update(v, lg, p, k);
        for (int64_t j = k + 1; j < k1; ++j) update.apply(j);
      }
    }
    info = agree_info(failed, g);
    if (info != 0) break;
    // The columns other layers apply. One spread over the owning layer: each rank sends its
    // counterpart on the applying layer the rows it holds (what that rank reads). One that
    // stayed in its process column: that column's ranks send their blocks of it to their
    // counterparts, and the applying layer spreads it as the owner would have.
    std::vector<MPI_Request> sends;
    std::vector<std::vector<T>> outgoing;
    for (int64_t k = k0; k < k1; ++k) {
      const int u = user(k);
      if (u == owner) continue;
      WholePanel<T>& p = *panels[size_t(k - k0)];
      const int64_t r0 = v.rows.local_before(k + 1, lg.row), own = mp - r0;
      const int64_t bk = v.cols.block_size(k);
      const bool in_column = lg.col == cols.owner(k);
      if (me == owner && (spread_here(k) || in_column)) {
        outgoing.emplace_back();
        if (spread_here(k)) {
          pack_rows(v, p, k + 1, lg.row, lg.col, outgoing.back());
        } else {
          outgoing.back().resize(size_t(std::max<int64_t>(1, own * bk)));
          for (int64_t q2 = 0; q2 < bk; ++q2)
            std::copy(v.at(r0, cols.local_start(k) + q2), v.at(r0, cols.local_start(k) + q2) + own,
                      &outgoing.back()[size_t(q2 * own)]);
        }
        sends.emplace_back();
        const int count = spread_here(k) ? int(outgoing.back().size()) : int(own * bk);
        MPI_Isend(outgoing.back().data(), count, mpi_type_of<T>(), u * q + lg.col,
                  int(k % 32768), g.row_comm, &sends.back());
      } else if (me == u && spread_here(k)) {
        p.prepare(v, PanelKind::Column, k, k, blocks);
        int64_t need = 0;
        for (int64_t i = k + 1; i < blocks; ++i)
          if (read_by(v, i, lg.row, lg.col)) need += v.rows.block_size(i) * p.width();
        packed.resize(size_t(std::max<int64_t>(1, need)));
        MPI_Recv(packed.data(), int(need), mpi_type_of<T>(), owner * q + lg.col, int(k % 32768),
                 g.row_comm, MPI_STATUS_IGNORE);
        unpack_rows(v, p, k + 1, lg.row, lg.col, packed);
        wire.bytes += need * int64_t(sizeof(T));
      } else if (me == u) {
        if (in_column) {
          packed.resize(size_t(std::max<int64_t>(1, own * bk)));
          MPI_Recv(packed.data(), int(own * bk), mpi_type_of<T>(), owner * q + lg.col,
                   int(k % 32768), g.row_comm, MPI_STATUS_IGNORE);
          for (int64_t q2 = 0; q2 < bk; ++q2)
            std::copy(&packed[size_t(q2 * own)], &packed[size_t(q2 * own)] + own,
                      v.at(r0, cols.local_start(k) + q2));
          wire.bytes += own * bk * int64_t(sizeof(T));
        }
        // This layer's copy of block column k now holds the factor below the diagonal.
        p.start_needed(v, lg, k, k, blocks, wire.frames, 0);
        wire.note(p.wait());
        wire.bytes += p.bytes();
      }
    }
    // Each layer's share of the trailing update, from its own copy's point of view.
    for (int64_t k = k0; k < k1 && k1 < blocks; ++k) {
      if (user(k) != me) continue;
      TrailingUpdate<T> update(v, lg, *panels[size_t(k - k0)], k);
      update.apply_range(k1, blocks);
    }
    MPI_Waitall(int(sends.size()), sends.data(), MPI_STATUSES_IGNORE);
    k0 = k1;
  }
  move_own(false);
  return info;
}

}  // namespace

bool cholesky_25d_fits(Uplo uplo, int pr, int pc, int layers) {
  const int split = uplo == Uplo::Lower ? pc : pr;
  return layers >= 1 && split % layers == 0;
}

template <class T>
int cholesky_25d(Uplo uplo, const BlockCyclic<T>& a, const LineGrid& g, int layers,
                 TriangularWire& wire) {
  int info = 0;
  if (uplo == Uplo::Lower) {
    const ColumnLayers lay(g, layers);
    info = factor_layered(a, g, lay, wire);
    if (info == 0) cholesky_residual_bound(a, g, wire);
    return info;
  }
  // The upper factor is the lower one of the transpose (each rank transposes its array).
  LocalTranspose<T> t(a, g);
  const LineGrid gt = g.transposed();
  const ColumnLayers lay(gt, layers);
  info = factor_layered(t.view(), gt, lay, wire);
  if (info == 0) cholesky_residual_bound(t.view(), gt, wire);
  t.restore();
  return info;
}

template int cholesky_25d<float>(Uplo, const BlockCyclic<float>&, const LineGrid&, int,
                                 TriangularWire&);
template int cholesky_25d<double>(Uplo, const BlockCyclic<double>&, const LineGrid&, int,
                                  TriangularWire&);

}  // namespace commpress::linalg::detail
