// Placeholder until the algorithm lands: refuses to run (every rank alike).
#include "linalg/gemm/gemm_call.hpp"

namespace commpress::linalg::detail {

template <class T>
Status run_summa(const GemmCall<T>&, GemmReport&) {
  return {ErrorCode::unsupported, "gemm algorithm summa is not built yet"};
}

template Status run_summa<float>(const GemmCall<float>&, GemmReport&);
template Status run_summa<double>(const GemmCall<double>&, GemmReport&);

}  // namespace commpress::linalg::detail
