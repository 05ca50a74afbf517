#include "linalg/layout/redistribute.hpp"

#include <algorithm>
#include <new>
#include <string>

namespace commpress::linalg::detail {

bool is_block_layout(const Descriptor& desc, int i, int j, int64_t rows, int64_t cols,
                     const Grid& grid) {
  const BlockSplit r{rows, grid.rows()}, c{cols, grid.cols()};
  return i == 1 && j == 1 && desc[2] == rows && desc[3] == cols &&
         desc[4] == std::max<int64_t>(1, r.block()) && desc[5] == std::max<int64_t>(1, c.block()) &&
         desc[6] == 0 && desc[7] == 0;
}

template <class T>
Status BlockOperand<T>::prepare(const SubMatrix<T>& sub, const Grid& grid, int context) {
  sub_ = sub;
  context_ = context;
  view_.rows = sub.rows;
  view_.cols = sub.cols;
  const int64_t lr = view_.local_rows(grid), lc = view_.local_cols(grid);
  in_place_ = is_block_layout(*sub.desc, sub.i, sub.j, sub.rows, sub.cols, grid);
  if (in_place_) {
    view_.data = sub.data;
    // A process without columns may pass any LLD >= 1 (ScaLAPACK's rule); DistMatrix wants
    // one that covers its rows, and with no columns nothing is addressed through it.
    view_.ld = lc > 0 ? (*sub.desc)[8] : std::max<int64_t>(1, lr);
    return {};
  }
  view_.ld = std::max<int64_t>(1, lr);
  try {
    storage_.assign(size_t(view_.ld * std::max<int64_t>(1, lc)), T(0));
  } catch (const std::bad_alloc&) {
    return {ErrorCode::capacity, "no memory for a " + std::to_string(lr) + "x" +
                                     std::to_string(lc) + " block of sub(" +
                                     std::to_string(sub.rows) + "x" + std::to_string(sub.cols) +
                                     ")"};
  }
  view_.data = storage_.data();
  desc_ = descriptor_of(view_, grid, context);
  return {};
}

template <class T>
void BlockOperand<T>::copy_in() {
  if (in_place_ || sub_.rows == 0 || sub_.cols == 0) return;
  gemr2d(int(sub_.rows), int(sub_.cols), sub_.data, sub_.i, sub_.j, sub_.desc->data(),
         view_.data, 1, 1, desc_.data(), context_);
}

template <class T>
void BlockOperand<T>::copy_out() {
  if (in_place_ || sub_.rows == 0 || sub_.cols == 0) return;
  gemr2d(int(sub_.rows), int(sub_.cols), view_.data, 1, 1, desc_.data(), sub_.data, sub_.i,
         sub_.j, sub_.desc->data(), context_);
}

template class BlockOperand<float>;
template class BlockOperand<double>;

}  // namespace commpress::linalg::detail
