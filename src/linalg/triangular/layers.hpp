// The layers of the 2.5D algorithms over a BLACS grid: its p processes, in row-major order,
// cut into c layers of p / c, each a BLACS grid of its own (Cblacs_gridmap; p?gemr2d_ moves
// matrices between the caller's context and a layer's) with commpress's Grid over it, and the
// fibers: the processes at the same place of every layer.
#pragma once

#include <mpi.h>

#include <memory>

#include "commpress/linalg.hpp"
#include "commpress/status.hpp"
#include "linalg/layout/blacs.hpp"
#include "linalg/layout/block_cyclic.hpp"

namespace commpress::linalg::detail {

// The layer grid's shape for p / c processes: rows <= columns, as square as it divides.
void layer_shape(int per_layer, int& rows, int& cols);

class Layers {
 public:
  // Collective over the context's processes; layers divides their count.
  static Result<std::unique_ptr<Layers>> create(int context, int layers);
  ~Layers();
  Layers(const Layers&) = delete;
  Layers& operator=(const Layers&) = delete;

  int count() const { return count_; }
  int mine() const { return me_; }               // this process's layer
  int context() const { return context_; }       // its BLACS context
  const LineGrid& grid() const { return line_; } // its row and column communicators
  int rows() const { return rows_; }
  int cols() const { return cols_; }
  MPI_Comm fiber() const { return fiber_; }      // same place in every layer, ranked by layer
  // Where layer l's process at (row, col) sits on the caller's grid (row-major order).
  void caller_place(int l, int row, int col, int& caller_row, int& caller_col) const {
    const int t = l * rows_ * cols_ + row * cols_ + col;
    caller_row = t / caller_cols_;
    caller_col = t % caller_cols_;
  }
  // Elements of a to_layer (into) or from_layer copy of rows x cols between sub(src) at (i, j)
  // of the caller's desc and layer l's matrix (blocks nb from process (0, 0)) that arrive at
  // this process from another one: what p?gemr2d_ moves to it.
  int64_t copy_arrivals(int l, bool into, int rows, int cols, int i, int j,
                        const Descriptor& desc, int nb) const;

 private:
  Layers() = default;
  int count_ = 1, me_ = 0, rows_ = 1, cols_ = 1, context_ = -1;
  int caller_rows_ = 1, caller_cols_ = 1, caller_row_ = 0, caller_col_ = 0;
  Grid grid_;
  LineGrid line_;
  MPI_Comm fiber_ = MPI_COMM_NULL;
};

// sub(src) (rows x cols at the 1-based i, j of src_desc's matrix, on the caller's context)
// into layer l's matrix at (1, 1), or back (from_layer); dst_desc describes it on this
// process's layer. Collective over the caller's context: every process calls for every l
// (outside layer l its end is a descriptor with context -1, p?gemr2d_'s convention).
template <class T>
void to_layer(const Layers& layers, int l, int rows, int cols, const T* src, int i, int j,
              const Descriptor& src_desc, T* dst, Descriptor dst_desc) {
  if (l != layers.mine()) dst_desc[1] = -1;
  gemr2d(rows, cols, src, i, j, src_desc.data(), dst, 1, 1, dst_desc.data(), src_desc[1]);
}
template <class T>
void from_layer(const Layers& layers, int l, int rows, int cols, const T* src,
                Descriptor src_desc, T* dst, int i, int j, const Descriptor& dst_desc) {
  if (l != layers.mine()) src_desc[1] = -1;
  gemr2d(rows, cols, src, 1, 1, src_desc.data(), dst, i, j, dst_desc.data(), dst_desc[1]);
}

}  // namespace commpress::linalg::detail
