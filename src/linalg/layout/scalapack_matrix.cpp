// ScaLapackMatrix: a ScaLAPACK matrix seen in the block layout through BlockOperand (in place
// or a p?gemr2d_ copy), after the checks PBLAS makes, agreed on by every process.
#include "commpress/scalapack_matrix.hpp"

#include <utility>

#include "linalg/gemm/scalapack_agreement.hpp"
#include "linalg/gemm/scalapack_check.hpp"
#include "linalg/gemm/scalapack_grid.hpp"
#include "linalg/layout/redistribute.hpp"

namespace commpress::linalg {

template <class T>
struct ScaLapackMatrix<T>::State {
  Grid grid;
  Descriptor desc;  // the caller's, kept: the operand points at it
  detail::BlockOperand<T> operand;
};

template <class T>
Result<ScaLapackMatrix<T>> ScaLapackMatrix<T>::attach(T* data, const Descriptor& desc) {
  auto grid = detail::grid_of_context(desc[1]);
  if (!grid.ok())
    return Status{grid.status().code(), "parameter 2 (DESC): " + grid.status().message()};
  Status local = detail::check_descriptor(desc, *grid, 2);
  if (local.ok() && data == nullptr) {
    const DistMatrix<T> shape{desc[2], desc[3], nullptr, 1};
    if (shape.local_rows(*grid) > 0 && shape.local_cols(*grid) > 0)
      local = {ErrorCode::invalid_argument, "parameter 1 (data) is a null pointer"};
  }
  COMMPRESS_RETURN_IF_ERROR(
      detail::agree_identically(grid->comm(), detail::descriptor_fields(desc), local));
  auto state = std::make_unique<State>(State{*grid, desc, {}});
  const Status prepared =
      state->operand.prepare({data, &state->desc, 1, 1, desc[2], desc[3]}, state->grid, desc[1]);
  COMMPRESS_RETURN_IF_ERROR(detail::agree_identically(grid->comm(), {}, prepared));
  state->operand.copy_in();
  return ScaLapackMatrix(std::move(state));
}

template <class T>
ScaLapackMatrix<T>::ScaLapackMatrix(std::unique_ptr<State> state) : state_(std::move(state)) {}
template <class T>
ScaLapackMatrix<T>::ScaLapackMatrix(ScaLapackMatrix&&) noexcept = default;
template <class T>
ScaLapackMatrix<T>& ScaLapackMatrix<T>::operator=(ScaLapackMatrix&&) noexcept = default;
template <class T>
ScaLapackMatrix<T>::~ScaLapackMatrix() = default;

template <class T>
const Grid& ScaLapackMatrix<T>::grid() const {
  return state_->grid;
}
template <class T>
DistMatrix<T>& ScaLapackMatrix<T>::matrix() {
  return state_->operand.view();
}
template <class T>
bool ScaLapackMatrix<T>::in_place() const {
  return state_->operand.in_place();
}
template <class T>
void ScaLapackMatrix<T>::write_back() {
  state_->operand.copy_out();
}

template class ScaLapackMatrix<float>;
template class ScaLapackMatrix<double>;

}  // namespace commpress::linalg
