// commpress_pdpotrf / commpress_pspotrf: ScaLAPACK's p?potrf argument list in front of the
// right-looking Cholesky. The arguments are checked as ScaLAPACK checks them and agreed on by
// the whole grid; sub(A) not starting on a block boundary (or with MB != NB) is factored in a
// copy laid out with square blocks and written back.
#include <algorithm>
#include <exception>
#include <string>

#include "commpress/scalapack.h"
#include "linalg/gemm/local_blas.hpp"
#include "linalg/gemm/scalapack_check.hpp"
#include "linalg/gemm/scalapack_grid.hpp"
#include "linalg/gemm/scalapack_options.hpp"
#include "linalg/layout/cyclic_operand.hpp"
#include "linalg/triangular/scalapack_call.hpp"
#include "linalg/triangular/cholesky25d.hpp"
#include "linalg/triangular/triangular.hpp"

namespace commpress::linalg::detail {

namespace {

template <class T>
Status ppotrf(const char* uplo, const int* n, T* a, const int* ia, const int* ja,
              const int* desca, int& info) {
  if (desca == nullptr) return null_parameter(6, "DESCA");
  auto grid = grid_of_context(desca[1]);
  if (!grid.ok())
    return {grid.status().code(), "parameter 6 (DESCA): " + grid.status().message()};
  Descriptor da{};
  std::copy(desca, desca + 9, da.begin());
  Status local;
  if (uplo == nullptr) local = null_parameter(1, "UPLO");
  else if (n == nullptr) local = null_parameter(2, "N");
  else if (ia == nullptr) local = null_parameter(4, "IA");
  else if (ja == nullptr) local = null_parameter(5, "JA");
  const char u = local.ok() ? upper_letter(uplo) : '?';
  if (local.ok() && u != 'L' && u != 'U')
    local = {ErrorCode::invalid_argument, std::string("parameter 1 (UPLO): '") + *uplo +
                                              "' is not U or L"};
  if (local.ok() && *n < 0)
    local = {ErrorCode::invalid_argument,
             "parameter 2 (N): N = " + std::to_string(*n) + " must be at least 0"};
  if (local.ok()) local = check_submatrix("A", *n, *n, *ia, *ja, da, 6, da[1], *grid);
  CallWire call;
  if (local.ok()) local = call.prepare(codec::dtype_of<T>());
  // Every rank agrees on the same list (a rank whose pointers are null has already failed,
  // and a failure outranks any disagreement).
  CallFields f;
  f.add("UPLO", u, 1);
  f.add("N", n ? *n : 0, 2);
  f.add("IA", ia ? *ia : 0, 4);
  f.add("JA", ja ? *ja : 0, 5);
  std::vector<comm::detail::Field> d;
  append_descriptor_fields(d, da, 'A');
  f.add_all(d, 6);
  call.add_fields(f, 0);
  Status agreed = agree_identically(grid->comm(), f.fields, local);
  if (!agreed.ok()) {
    const int position = std::max(parameter_position(agreed.message()),
                                  f.position_in(agreed.message()));
    info = -std::max(1, position);
    return agreed;
  }
  info = 0;
  if (*n == 0) return {};

  const Uplo which = u == 'L' ? Uplo::Lower : Uplo::Upper;
  auto run_layers = call.run_layers(true, *n, 0, da[5], int(sizeof(T)), *grid);
  if (!run_layers.ok()) return run_layers.status();
  int layers = *run_layers;
  // The layers are whole process columns of the lower factor's grid (rows for the upper one):
  // Auto falls back to 2D where they do not divide, an explicit count is an error.
  if (layers > 1 && !cholesky_25d_fits(which, grid->rows(), grid->cols(), layers)) {
    if (call.layers() != 0)
      return {ErrorCode::invalid_argument,
              std::to_string(layers) + " layers of 2.5D Cholesky must divide the grid's " +
                  std::string(which == Uplo::Lower ? "process columns (" : "process rows (") +
                  std::to_string(which == Uplo::Lower ? grid->cols() : grid->rows()) + ")"};
    layers = 1;
  }
  const LineGrid g = line_grid_of(*grid);
  const AxisNeed square{da[5], -1};
  CyclicOperand<T> oa;
  COMMPRESS_RETURN_IF_ERROR(agree_identically(
      grid->comm(), {}, oa.prepare({a, &da, *ia, *ja, *n, *n}, g, da[1], square, square)));
  set_blas_threads_for(grid->comm());
  oa.copy_in();
  info = layers > 1 ? cholesky_25d(which, oa.view(), g, layers, call.wire())
                    : cholesky_right_looking(which, oa.view(), g, call.wire());
  oa.copy_out();
  return call.finish(grid->comm(), info == 0);
}

template <class T>
void entry(const char* routine, const char* uplo, const int* n, T* a, const int* ia,
           const int* ja, const int* desca, int* info) {
  int result = -1;
  if (info != nullptr) *info = -1;  // what an exception leaves
  run_entry(routine, [&] {
    Status st = ppotrf(uplo, n, a, ia, ja, desca, result);
    if (!st.ok() && result == 0) result = -1;
    if (info != nullptr) *info = result;
    return st;
  });
}

}  // namespace

}  // namespace commpress::linalg::detail

extern "C" {

void commpress_pdpotrf(const char* uplo, const int* n, double* a, const int* ia, const int* ja,
                       const int* desca, int* info) {
  commpress::linalg::detail::entry("commpress_pdpotrf", uplo, n, a, ia, ja, desca, info);
}

void commpress_pspotrf(const char* uplo, const int* n, float* a, const int* ia, const int* ja,
                       const int* desca, int* info) {
  commpress::linalg::detail::entry("commpress_pspotrf", uplo, n, a, ia, ja, desca, info);
}

// Fortran's `call commpress_pdpotrf(...)` (the hidden length of UPLO is not read).
void commpress_pdpotrf_(const char* uplo, const int* n, double* a, const int* ia, const int* ja,
                        const int* desca, int* info) {
  commpress_pdpotrf(uplo, n, a, ia, ja, desca, info);
}

void commpress_pspotrf_(const char* uplo, const int* n, float* a, const int* ia, const int* ja,
                        const int* desca, int* info) {
  commpress_pspotrf(uplo, n, a, ia, ja, desca, info);
}

}  // extern "C"
