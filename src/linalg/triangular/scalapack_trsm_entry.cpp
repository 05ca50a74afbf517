// commpress_pdtrsm / commpress_pstrsm: ScaLAPACK's p?trsm argument list in front of the
// right-looking triangular solve. The arguments are checked as PBLAS checks them and agreed on
// by the whole grid; A is used in place when sub(A) starts on a block boundary with square
// blocks, B when its blocks line up with A's along the solved dimension; otherwise they are
// solved in copies laid out so and B is written back.
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
#include "linalg/triangular/triangular.hpp"
#include "linalg/triangular/trsm25d.hpp"

namespace commpress::linalg::detail {

namespace {

struct Letters {
  char side = '?', uplo = '?', trans = '?', diag = '?';
};

Status check_letters(const char* side, const char* uplo, const char* transa, const char* diag,
                     Letters& l) {
  if (side == nullptr) return null_parameter(1, "SIDE");
  if (uplo == nullptr) return null_parameter(2, "UPLO");
  if (transa == nullptr) return null_parameter(3, "TRANSA");
  if (diag == nullptr) return null_parameter(4, "DIAG");
  l = {upper_letter(side), upper_letter(uplo), upper_letter(transa), upper_letter(diag)};
  auto bad = [](int pos, const char* name, char c, const char* allowed) {
    return Status{ErrorCode::invalid_argument, "parameter " + std::to_string(pos) + " (" + name +
                                                   "): '" + std::string(1, c) + "' is not " +
                                                   allowed};
  };
  if (l.side != 'L' && l.side != 'R') return bad(1, "SIDE", *side, "L or R");
  if (l.uplo != 'L' && l.uplo != 'U') return bad(2, "UPLO", *uplo, "U or L");
  if (l.trans != 'N' && l.trans != 'T' && l.trans != 'C')
    return bad(3, "TRANSA", *transa, "N, T or C");
  if (l.diag != 'U' && l.diag != 'N') return bad(4, "DIAG", *diag, "U or N");
  return {};
}

template <class T>
Status ptrsm(const char* side, const char* uplo, const char* transa, const char* diag,
             const int* m, const int* n, const T* alpha, const T* a, const int* ia,
             const int* ja, const int* desca, T* b, const int* ib, const int* jb,
             const int* descb) {
  if (desca == nullptr) return null_parameter(11, "DESCA");
  auto grid = grid_of_context(desca[1]);
  if (!grid.ok())
    return {grid.status().code(), "parameter 11 (DESCA): " + grid.status().message()};
  Descriptor da{}, db{};
  std::copy(desca, desca + 9, da.begin());
  Letters l;
  Status local = check_letters(side, uplo, transa, diag, l);
  const std::array<std::pair<const void*, const char*>, 7> pointers{
      {{m, "M"}, {n, "N"}, {alpha, "ALPHA"}, {ia, "IA"}, {ja, "JA"}, {ib, "IB"}, {jb, "JB"}}};
  const std::array<int, 7> positions{5, 6, 7, 9, 10, 13, 14};
  for (size_t p = 0; p < pointers.size() && local.ok(); ++p)
    if (pointers[p].first == nullptr) local = null_parameter(positions[p], pointers[p].second);
  if (local.ok() && descb == nullptr) local = null_parameter(15, "DESCB");
  if (descb != nullptr) std::copy(descb, descb + 9, db.begin());
  if (local.ok() && *m < 0)
    local = {ErrorCode::invalid_argument, "parameter 5 (M): M = " + std::to_string(*m) +
                                              " must be at least 0"};
  if (local.ok() && *n < 0)
    local = {ErrorCode::invalid_argument, "parameter 6 (N): N = " + std::to_string(*n) +
                                              " must be at least 0"};
  const bool left = l.side == 'L';
  if (local.ok()) {
    const int k = left ? *m : *n;
    local = check_submatrix("A", k, k, *ia, *ja, da, 11, da[1], *grid);
    if (local.ok()) local = check_submatrix("B", *m, *n, *ib, *jb, db, 15, da[1], *grid);
  }
  CallWire call;
  if (local.ok()) local = call.prepare(codec::dtype_of<T>());
  CallFields f;
  f.add("SIDE", l.side, 1);
  f.add("UPLO", l.uplo, 2);
  f.add("TRANSA", l.trans == 'C' ? 'T' : l.trans, 3);
  f.add("DIAG", l.diag, 4);
  f.add("M", m ? *m : 0, 5);
  f.add("N", n ? *n : 0, 6);
  f.add("ALPHA (bits)", alpha ? value_bits(double(*alpha)) : 0, 7);
  f.add("IA", ia ? *ia : 0, 9);
  f.add("JA", ja ? *ja : 0, 10);
  f.add("IB", ib ? *ib : 0, 13);
  f.add("JB", jb ? *jb : 0, 14);
  std::vector<comm::detail::Field> d;
  append_descriptor_fields(d, da, 'A');
  f.add_all(d, 11);
  d.clear();
  append_descriptor_fields(d, db, 'B');
  f.add_all(d, 15);
  call.add_fields(f, 0);
  COMMPRESS_RETURN_IF_ERROR(agree_identically(grid->comm(), f.fields, local));
  if (*m == 0 || *n == 0) return {};

  const Uplo u = l.uplo == 'L' ? Uplo::Lower : Uplo::Upper;
  const Diag dg = l.diag == 'U' ? Diag::Unit : Diag::NonUnit;
  const Side sd = left ? Side::Left : Side::Right;
  auto run_layers =
      call.run_layers(false, left ? *m : *n, left ? *n : *m, da[5], int(sizeof(T)), *grid);
  if (!run_layers.ok()) return run_layers.status();
  const int layers = *run_layers;
  if (layers > 1) {
    set_blas_threads_for(grid->comm());
    const TrsmCall<T> tc{sd, u, l.trans != 'N', dg, *alpha, *m, *n, a, *ia, *ja, &da, b, *ib,
                         *jb, &db};
    COMMPRESS_RETURN_IF_ERROR(
        agree_identically(grid->comm(), {}, trsm_25d(tc, layers, call.wire())));
    return call.finish(grid->comm(), true);
  }
  const LineGrid g = line_grid_of(*grid);
  const int k = left ? *m : *n;
  CyclicOperand<T> oa, ob;
  Status prepared = oa.prepare({const_cast<T*>(a), &da, *ia, *ja, k, k}, g, da[1],
                               {da[5], -1}, {da[5], -1});
  if (prepared.ok()) {
    const BlockCyclic<T>& va = oa.view();
    const AxisNeed rows = left ? AxisNeed{va.rows.nb, va.rows.src} : AxisNeed{db[4], -1};
    const AxisNeed cols = left ? AxisNeed{db[5], -1} : AxisNeed{va.cols.nb, va.cols.src};
    prepared = ob.prepare({b, &db, *ib, *jb, *m, *n}, g, da[1], rows, cols);
  }
  COMMPRESS_RETURN_IF_ERROR(agree_identically(grid->comm(), {}, prepared));
  set_blas_threads_for(grid->comm());
  if (*alpha != T(0)) {
    oa.copy_in();
    ob.copy_in();
  }
  trsm_right_looking(sd, u, l.trans != 'N', dg, *alpha, oa.view(), ob.view(), g, call.wire());
  ob.copy_out();
  return call.finish(grid->comm(), true);
}

template <class T>
void entry(const char* routine, const char* side, const char* uplo, const char* transa,
           const char* diag, const int* m, const int* n, const T* alpha, const T* a,
           const int* ia, const int* ja, const int* desca, T* b, const int* ib, const int* jb,
           const int* descb) {
  run_entry(routine, [&] {
    return ptrsm(side, uplo, transa, diag, m, n, alpha, a, ia, ja, desca, b, ib, jb, descb);
  });
}

}  // namespace

}  // namespace commpress::linalg::detail

extern "C" {

void commpress_pdtrsm(const char* side, const char* uplo, const char* transa, const char* diag,
                      const int* m, const int* n, const double* alpha, const double* a,
                      const int* ia, const int* ja, const int* desca, double* b, const int* ib,
                      const int* jb, const int* descb) {
  commpress::linalg::detail::entry("commpress_pdtrsm", side, uplo, transa, diag, m, n, alpha, a,
                                   ia, ja, desca, b, ib, jb, descb);
}

void commpress_pstrsm(const char* side, const char* uplo, const char* transa, const char* diag,
                      const int* m, const int* n, const float* alpha, const float* a,
                      const int* ia, const int* ja, const int* desca, float* b, const int* ib,
                      const int* jb, const int* descb) {
  commpress::linalg::detail::entry("commpress_pstrsm", side, uplo, transa, diag, m, n, alpha, a,
                                   ia, ja, desca, b, ib, jb, descb);
}

// Fortran's `call commpress_pdtrsm(...)` (the hidden lengths of the four letters are not read).
void commpress_pdtrsm_(const char* side, const char* uplo, const char* transa, const char* diag,
                       const int* m, const int* n, const double* alpha, const double* a,
                       const int* ia, const int* ja, const int* desca, double* b, const int* ib,
                       const int* jb, const int* descb) {
  commpress_pdtrsm(side, uplo, transa, diag, m, n, alpha, a, ia, ja, desca, b, ib, jb, descb);
}

void commpress_pstrsm_(const char* side, const char* uplo, const char* transa, const char* diag,
                       const int* m, const int* n, const float* alpha, const float* a,
                       const int* ia, const int* ja, const int* desca, float* b, const int* ib,
                       const int* jb, const int* descb) {
  commpress_pstrsm(side, uplo, transa, diag, m, n, alpha, a, ia, ja, desca, b, ib, jb, descb);
}

}  // extern "C"
