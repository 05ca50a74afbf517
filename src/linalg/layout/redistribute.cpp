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
Status SubMatrixCopy<T>::allocate(const SubMatrix<T>& sub, int64_t local_rows,
                                  int64_t local_cols, const Descriptor& desc) {
  sub_ = sub;
  desc_ = desc;
  desc_[8] = int(std::max<int64_t>(1, local_rows));
  try {
    storage_.assign(size_t(desc_[8] * std::max<int64_t>(1, local_cols)), T(0));
  } catch (const std::bad_alloc&) {
    return {ErrorCode::capacity, "no memory for a " + std::to_string(local_rows) + "x" +
                                     std::to_string(local_cols) + " copy of sub(" +
                                     std::to_string(sub.rows) + "x" + std::to_string(sub.cols) +
                                     ")"};
  }
  return {};
}

template <class T>
void SubMatrixCopy<T>::copy_in() {
  if (sub_.rows == 0 || sub_.cols == 0) return;
  gemr2d(int(sub_.rows), int(sub_.cols), sub_.data, sub_.i, sub_.j, sub_.desc->data(),
         storage_.data(), 1, 1, desc_.data(), desc_[1]);
}

template <class T>
void SubMatrixCopy<T>::copy_out() {
  if (sub_.rows == 0 || sub_.cols == 0) return;
  gemr2d(int(sub_.rows), int(sub_.cols), storage_.data(), 1, 1, desc_.data(), sub_.data, sub_.i,
         sub_.j, sub_.desc->data(), desc_[1]);
}

template class SubMatrixCopy<float>;
template class SubMatrixCopy<double>;

template <class T>
Status BlockOperand<T>::prepare(const SubMatrix<T>& sub, const Grid& grid, int context) {
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
  DistMatrix<T> shape = view_;
  shape.data = nullptr;
  COMMPRESS_RETURN_IF_ERROR(copy_.allocate(sub, lr, lc, descriptor_of(shape, grid, context)));
  view_.data = copy_.data();
  return {};
}

template <class T>
void BlockOperand<T>::copy_in() {
  if (!in_place_) copy_.copy_in();
}

template <class T>
void BlockOperand<T>::copy_out() {
  if (!in_place_) copy_.copy_out();
}

template class BlockOperand<float>;
template class BlockOperand<double>;

}  // namespace commpress::linalg::detail
