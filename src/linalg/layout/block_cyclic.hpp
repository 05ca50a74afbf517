// A rank's piece of a matrix in a 2D block-cyclic layout (ScaLAPACK's, blocks mb x nb, block
// row 0 on process row rsrc, block column 0 on process column csrc), and the process grid's
// line communicators, as the triangular solve and Cholesky use them. `transposed()` views the
// transpose of the matrix on the transposed grid without moving data between ranks: each rank
// transposes its local array (Block::transpose_local) and rows and columns swap roles, which
// turns an upper-triangle algorithm into the lower-triangle one and a right solve into a left.
#pragma once

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <vector>

namespace commpress::linalg::detail {

struct LineGrid {
  int row = 0, col = 0, rows = 1, cols = 1;
  MPI_Comm row_comm = MPI_COMM_NULL;  // same process row, ranked by column
  MPI_Comm col_comm = MPI_COMM_NULL;  // same process column, ranked by row

  LineGrid transposed() const { return {col, row, cols, rows, col_comm, row_comm}; }
};

// One dimension of the layout: n items in blocks of nb, block 0 on process src of procs.
struct CyclicAxis {
  int64_t n = 0;
  int64_t nb = 1;
  int src = 0, procs = 1;

  int64_t blocks() const { return (n + nb - 1) / nb; }
  int64_t block_size(int64_t b) const { return std::min(nb, n - b * nb); }
  int owner(int64_t b) const { return int((b + src) % procs); }
  // Local index of block b's first item on its owner.
  int64_t local_start(int64_t b) const { return (b / procs) * nb; }
  // The global index of process p's local item l (ScaLAPACK's INDXL2G).
  int64_t global_of(int64_t l, int p) const {
    return ((l / nb) * procs + (p - src + procs) % procs) * nb + l % nb;
  }
  // Items process p holds (ScaLAPACK's NUMROC).
  int64_t local_size(int p) const {
    int64_t count = 0;
    for (int64_t b = (p - src + procs) % procs; b < blocks(); b += procs) count += block_size(b);
    return count;
  }
  // Items of blocks [0, b) that process p holds: where block b (or the next one p holds) starts.
  int64_t local_before(int64_t b, int p) const {
    const int64_t first = (p - src + procs) % procs;
    if (b <= first) return 0;
    const int64_t owned = (b - first + procs - 1) / procs;  // blocks first, first+procs, ... < b
    return std::min(owned * nb, local_size(p));
  }
};

template <class T>
struct BlockCyclic {
  T* data = nullptr;
  int64_t lld = 1;
  CyclicAxis rows, cols;

  T* at(int64_t local_row, int64_t local_col) const { return data + local_row + local_col * lld; }
  BlockCyclic transposed_view(T* buffer, int64_t buffer_ld) const {
    return {buffer, buffer_ld, cols, rows};
  }
};

// dst (local cols x local rows, leading dimension ldd) = the transpose of src's local array.
template <class T>
void transpose_local(const T* src, int64_t lds, int64_t local_rows, int64_t local_cols, T* dst,
                     int64_t ldd) {
  for (int64_t j = 0; j < local_cols; ++j)
    for (int64_t i = 0; i < local_rows; ++i) dst[j + i * ldd] = src[i + j * lds];
}

// The transpose of m's local array in a buffer of its own, written back by restore().
template <class T>
class LocalTranspose {
 public:
  LocalTranspose(const BlockCyclic<T>& m, const LineGrid& g)
      : original_(m),
        lr_(m.rows.local_size(g.row)),
        lc_(m.cols.local_size(g.col)),
        buffer_(size_t(std::max<int64_t>(1, lc_) * std::max<int64_t>(1, lr_))) {
    transpose_local(m.data, m.lld, lr_, lc_, buffer_.data(), std::max<int64_t>(1, lc_));
  }
  BlockCyclic<T> view() {
    return original_.transposed_view(buffer_.data(), std::max<int64_t>(1, lc_));
  }
  void restore() {
    transpose_local(buffer_.data(), std::max<int64_t>(1, lc_), lc_, lr_, original_.data,
                    original_.lld);
  }

 private:
  BlockCyclic<T> original_;
  int64_t lr_, lc_;
  std::vector<T> buffer_;
};

}  // namespace commpress::linalg::detail
