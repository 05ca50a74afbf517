// GemmAlgorithm::ScaLapack: ScaLAPACK's own pdgemm_/psgemm_ on the same block-distributed
// data, so benchmarks and tests compare against it in the same run.
#include "linalg/gemm/gemm_call.hpp"
#include "linalg/layout/blacs.hpp"

namespace commpress::linalg::detail {

namespace {

void pgemm(const char* ta, const char* tb, const int* m, const int* n, const int* k,
           const double* alpha, const double* a, const int* desca, const double* b,
           const int* descb, const double* beta, double* c, const int* descc) {
  const int one = 1;
  pdgemm_(ta, tb, m, n, k, alpha, a, &one, &one, desca, b, &one, &one, descb, beta, c, &one,
          &one, descc);
}

void pgemm(const char* ta, const char* tb, const int* m, const int* n, const int* k,
           const float* alpha, const float* a, const int* desca, const float* b,
           const int* descb, const float* beta, float* c, const int* descc) {
  const int one = 1;
  psgemm_(ta, tb, m, n, k, alpha, a, &one, &one, desca, b, &one, &one, descb, beta, c, &one,
          &one, descc);
}

}  // namespace

template <class T>
Status run_scalapack(const GemmCall<T>& call, GemmReport& report) {
  const Grid& g = *call.grid;
  BlacsContext ctx(g);
  if (!ctx.valid()) return {};
  const Descriptor da = descriptor_of(*call.a, g, ctx.context());
  const Descriptor db = descriptor_of(*call.b, g, ctx.context());
  const Descriptor dc = descriptor_of(*call.c, g, ctx.context());
  const char ta = call.transa == Trans::N ? 'N' : 'T', tb = call.transb == Trans::N ? 'N' : 'T';
  const int m = int(call.m), n = int(call.n), k = int(call.k);
  if (m > 0 && n > 0)
    pgemm(&ta, &tb, &m, &n, &k, &call.alpha, call.a->data, da.data(), call.b->data, db.data(),
          &call.beta, call.c->data, dc.data());
  return {};
}

template Status run_scalapack<float>(const GemmCall<float>&, GemmReport&);
template Status run_scalapack<double>(const GemmCall<double>&, GemmReport&);

}  // namespace commpress::linalg::detail
