// commpress_pdgemm / commpress_psgemm: ScaLAPACK's p?gemm argument list in front of
// linalg::gemm. The arguments are checked as PBLAS checks them and agreed on by the whole
// grid; operands not already in the block layout are redistributed into it and C back.
#include "commpress/scalapack.h"

#include <bit>
#include <exception>
#include <string>

#include "commpress/linalg.hpp"
#include "linalg/gemm/scalapack_agreement.hpp"
#include "linalg/gemm/scalapack_check.hpp"
#include "linalg/gemm/scalapack_grid.hpp"
#include "linalg/gemm/scalapack_options.hpp"
#include "linalg/layout/redistribute.hpp"

namespace commpress::linalg::detail {

namespace {

int64_t bits_of(double v) { return std::bit_cast<int64_t>(v); }

void add_option_fields(std::vector<comm::detail::Field>& f, const Result<GemmOptions>& o) {
  f.push_back({"algorithm option", o.ok() ? int64_t(o->algorithm) : -1});
  f.push_back({"codec option", o.ok() ? comm::detail::fingerprint(o->codec) : -1});
  f.push_back({"bound option", o.ok() ? bits_of(o->bound.value) : -1});
}

template <class T>
Status pgemm(const char* transa, const char* transb, const int* m, const int* n, const int* k,
             const T* alpha, const T* a, const int* ia, const int* ja, const int* desca,
             const T* b, const int* ib, const int* jb, const int* descb, const T* beta, T* c,
             const int* ic, const int* jc, const int* descc) {
  // Without DESCA's context there is no grid to agree with: this process fails alone (as it
  // would in ScaLAPACK, which cannot reach the others either).
  if (desca == nullptr) return null_parameter(10, "DESCA");
  auto grid = grid_of_context(desca[1]);
  if (!grid.ok())
    return {grid.status().code(), "parameter 10 (DESCA): " + grid.status().message()};

  PgemmArgs args;
  Status local = read_pgemm_args(transa, transb, m, n, k, ia, ja, desca, ib, jb, descb, ic, jc,
                                 descc, args);
  if (local.ok() && alpha == nullptr) local = null_parameter(6, "ALPHA");
  if (local.ok() && beta == nullptr) local = null_parameter(15, "BETA");
  if (local.ok()) {
    args.alpha_bits = bits_of(double(*alpha));
    args.beta_bits = bits_of(double(*beta));
    local = check_pgemm_args(args, *grid);
  }
  auto opts = scalapack_gemm_options();
  if (local.ok() && !opts.ok()) local = opts.status();
  std::vector<comm::detail::Field> fields = pgemm_fields(args);
  add_option_fields(fields, opts);
  COMMPRESS_RETURN_IF_ERROR(agree_identically(grid->comm(), fields, local));
  if (args.m == 0 || args.n == 0) return {};

  const int context = desca[1];
  BlockOperand<T> oa, ob, oc;
  Status prepared =
      oa.prepare({const_cast<T*>(a), &args.da, args.ia, args.ja, args.a_rows(), args.a_cols()},
                 *grid, context);
  if (prepared.ok())
    prepared = ob.prepare(
        {const_cast<T*>(b), &args.db, args.ib, args.jb, args.b_rows(), args.b_cols()}, *grid,
        context);
  if (prepared.ok())
    prepared = oc.prepare({c, &args.dc, args.ic, args.jc, args.m, args.n}, *grid, context);
  COMMPRESS_RETURN_IF_ERROR(agree_identically(grid->comm(), {}, prepared));

  // As in BLAS, alpha == 0 leaves A and B unread and beta == 0 leaves C's input unread (they
  // may hold NaN), so those need not travel: the zeroed copies stand in.
  if (*alpha != T(0)) {
    oa.copy_in();
    ob.copy_in();
  }
  if (*beta != T(0)) oc.copy_in();
  auto report = gemm<T>(args.ta(), args.tb(), *alpha, oa.view(), ob.view(), *beta, oc.view(),
                        *grid, *opts);
  // gemm succeeds or fails on every process alike; only a failure's message may differ.
  if (!report.ok()) return agree_identically(grid->comm(), {}, report.status());
  oc.copy_out();
  return {};
}

template <class T>
void entry(const char* routine, const char* transa, const char* transb, const int* m,
           const int* n, const int* k, const T* alpha, const T* a, const int* ia, const int* ja,
           const int* desca, const T* b, const int* ib, const int* jb, const int* descb,
           const T* beta, T* c, const int* ic, const int* jc, const int* descc) {
  run_entry(routine, [&] {
    return pgemm(transa, transb, m, n, k, alpha, a, ia, ja, desca, b, ib, jb, descb, beta, c,
                 ic, jc, descc);
  });
}

}  // namespace

}  // namespace commpress::linalg::detail

extern "C" {

void commpress_pdgemm(const char* transa, const char* transb, const int* m, const int* n,
                      const int* k, const double* alpha, const double* a, const int* ia,
                      const int* ja, const int* desca, const double* b, const int* ib,
                      const int* jb, const int* descb, const double* beta, double* c,
                      const int* ic, const int* jc, const int* descc) {
  commpress::linalg::detail::entry("commpress_pdgemm", transa, transb, m, n, k, alpha, a, ia,
                                   ja, desca, b, ib, jb, descb, beta, c, ic, jc, descc);
}

void commpress_psgemm(const char* transa, const char* transb, const int* m, const int* n,
                      const int* k, const float* alpha, const float* a, const int* ia,
                      const int* ja, const int* desca, const float* b, const int* ib,
                      const int* jb, const int* descb, const float* beta, float* c,
                      const int* ic, const int* jc, const int* descc) {
  commpress::linalg::detail::entry("commpress_psgemm", transa, transb, m, n, k, alpha, a, ia,
                                   ja, desca, b, ib, jb, descb, beta, c, ic, jc, descc);
}

int commpress_gemm_set_options(const char* algorithm, const char* codec, double rel_bound) {
  const commpress::Status st =
      commpress::linalg::detail::set_scalapack_gemm_options(algorithm, codec, rel_bound);
  commpress::linalg::detail::record_last_error(st);
  return int(st.code());
}

int commpress_gemm_last_error(char* message, int capacity) {
  return commpress::linalg::detail::last_error(message, capacity);
}

}  // extern "C"
