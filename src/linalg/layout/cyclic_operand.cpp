#include "linalg/layout/cyclic_operand.hpp"

#include <algorithm>

namespace commpress::linalg::detail {

int cyclic_source_at(int64_t first, int64_t nb, int src, int procs) {
  return int((first / nb + src) % procs);
}

namespace {

// The caller's axis seen from item `first` on, when first is a block boundary and the axis
// has the needed block size and source; nothing otherwise.
bool fits(int64_t first, int64_t nb, int src, int procs, AxisNeed need) {
  if (nb != need.nb || first % nb != 0) return false;
  return need.src < 0 || cyclic_source_at(first, nb, src, procs) == need.src;
}

}  // namespace

template <class T>
Status CyclicOperand<T>::prepare(const SubMatrix<T>& sub, const LineGrid& g, int context,
                                 AxisNeed rows, AxisNeed cols) {
  const Descriptor& d = *sub.desc;
  const int64_t i0 = sub.i - 1, j0 = sub.j - 1;
  in_place_ = fits(i0, d[4], d[6], g.rows, rows) && fits(j0, d[5], d[7], g.cols, cols);
  if (in_place_) {
    view_.rows = {sub.rows, d[4], cyclic_source_at(i0, d[4], d[6], g.rows), g.rows};
    view_.cols = {sub.cols, d[5], cyclic_source_at(j0, d[5], d[7], g.cols), g.cols};
    // The rows and columns before the submatrix that this process holds: whole blocks.
    const int64_t before_r = CyclicAxis{i0, d[4], d[6], g.rows}.local_size(g.row);
    const int64_t before_c = CyclicAxis{j0, d[5], d[7], g.cols}.local_size(g.col);
    view_.lld = d[8];
    view_.data = sub.data + before_r + before_c * d[8];
    return {};
  }
  view_.rows = {sub.rows, rows.nb, std::max(0, rows.src), g.rows};
  view_.cols = {sub.cols, cols.nb, std::max(0, cols.src), g.cols};
  const int64_t lr = view_.rows.local_size(g.row), lc = view_.cols.local_size(g.col);
  const Descriptor desc{1, context, int(sub.rows), int(sub.cols), int(rows.nb), int(cols.nb),
                        view_.rows.src, view_.cols.src, 1};
  COMMPRESS_RETURN_IF_ERROR(copy_.allocate(sub, lr, lc, desc));
  view_.data = copy_.data();
  view_.lld = copy_.ld();
  return {};
}

template <class T>
void CyclicOperand<T>::copy_in() {
  if (!in_place_) copy_.copy_in();
}

template <class T>
void CyclicOperand<T>::copy_out() {
  if (!in_place_) copy_.copy_out();
}

template class CyclicOperand<float>;
template class CyclicOperand<double>;

}  // namespace commpress::linalg::detail
