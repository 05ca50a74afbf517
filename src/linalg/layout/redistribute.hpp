// Submatrices of any ScaLAPACK block-cyclic layout seen in DistMatrix's block layout: in
// place when the layout already is the block layout, else through a private copy.
//
// The copies go through ScaLAPACK's own p?gemr2d_: it moves a submatrix between any two
// block-cyclic distributions on a context (any MB/NB, source process, offset), so the result
// is correct for every layout a caller can describe, with no second implementation of the
// block-cyclic index arithmetic to get wrong.
#pragma once

#include <cstdint>
#include <vector>

#include "commpress/linalg.hpp"
#include "commpress/status.hpp"
#include "linalg/layout/blacs.hpp"

namespace commpress::linalg::detail {

// sub(X): rows x cols at the 1-based (i, j) of the matrix desc describes; data is the
// caller's local array (written only by BlockOperand::copy_out).
template <class T>
struct SubMatrix {
  T* data = nullptr;
  const Descriptor* desc = nullptr;
  int i = 1, j = 1;
  int64_t rows = 0, cols = 0;
};

// A private, zeroed copy of sub(X) in another layout (desc, whose LLD the copy sets) and the
// p?gemr2d_ moves between it and the caller's array.
template <class T>
class SubMatrixCopy {
 public:
  // Local: room for local_rows x local_cols (capacity when there is none).
  Status allocate(const SubMatrix<T>& sub, int64_t local_rows, int64_t local_cols,
                  const Descriptor& desc);
  // Collective over desc's context.
  void copy_in();
  void copy_out();
  T* data() { return storage_.data(); }
  int64_t ld() const { return desc_[8]; }
  const Descriptor& descriptor() const { return desc_; }

 private:
  SubMatrix<T> sub_;
  Descriptor desc_{};
  std::vector<T> storage_;
};

extern template class SubMatrixCopy<float>;
extern template class SubMatrixCopy<double>;

// True when sub(X) is the whole matrix and desc is the block layout over grid (MB, NB as
// DistMatrix's, source process (0, 0)), so the caller's array can be used as it is.
bool is_block_layout(const Descriptor& desc, int i, int j, int64_t rows, int64_t cols,
                     const Grid& grid);

template <class T>
class BlockOperand {
 public:
  // Local only: the in-place view, or a zeroed block-layout buffer (capacity on failure).
  Status prepare(const SubMatrix<T>& sub, const Grid& grid, int context);
  // Collective over the context (every process calls, in place or not).
  void copy_in();
  void copy_out();
  bool in_place() const { return in_place_; }
  DistMatrix<T>& view() { return view_; }

 private:
  SubMatrixCopy<T> copy_;
  DistMatrix<T> view_;
  bool in_place_ = false;
};

extern template class BlockOperand<float>;
extern template class BlockOperand<double>;

}  // namespace commpress::linalg::detail
