// Submatrices of any ScaLAPACK block-cyclic layout seen as a BlockCyclic whose blocks start at
// the submatrix's first row and column and whose block sizes (and, where asked, source
// processes) are the ones an algorithm needs: in place when the caller's layout already is
// that (the submatrix starts on a block boundary), else through a private copy made and
// written back by ScaLAPACK's p?gemr2d_ (as BlockOperand does for the multiply's layout).
#pragma once

#include <cstdint>
#include <vector>

#include "commpress/status.hpp"
#include "linalg/layout/blacs.hpp"
#include "linalg/layout/block_cyclic.hpp"
#include "linalg/layout/redistribute.hpp"

namespace commpress::linalg::detail {

// What an algorithm needs of one axis: block size nb, and the process holding block 0
// (src < 0: any).
struct AxisNeed {
  int64_t nb = 1;
  int src = -1;
};

// The source process of the block holding item `first` (0-based) of an axis whose block 0 sits
// on src: where a submatrix starting there begins.
int cyclic_source_at(int64_t first, int64_t nb, int src, int procs);

template <class T>
class CyclicOperand {
 public:
  // Local only: the in-place view when sub(X) starts on a block boundary and its blocks are
  // `rows` x `cols` (with those sources), else a zeroed private copy laid out as asked (source 0
  // where any will do). Fails only for memory.
  Status prepare(const SubMatrix<T>& sub, const LineGrid& g, int context, AxisNeed rows,
                 AxisNeed cols);
  // Collective over the context (every process calls, in place or not).
  void copy_in();
  void copy_out();
  bool in_place() const { return in_place_; }
  const BlockCyclic<T>& view() const { return view_; }

 private:
  SubMatrixCopy<T> copy_;
  BlockCyclic<T> view_;
  bool in_place_ = false;
};

extern template class CyclicOperand<float>;
extern template class CyclicOperand<double>;

}  // namespace commpress::linalg::detail
