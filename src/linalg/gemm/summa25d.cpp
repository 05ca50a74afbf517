// Placeholder until the algorithm lands: refuses to run (every rank alike).
#include "linalg/gemm/gemm_call.hpp"

namespace commpress::linalg::detail {

template <class T>
Status run_summa25d(const GemmCall<T>&, GemmReport&) {
  return {ErrorCode::unsupported, "gemm algorithm summa25d is not built yet"};
}

template Status run_summa25d<float>(const GemmCall<float>&, GemmReport&);
template Status run_summa25d<double>(const GemmCall<double>&, GemmReport&);

}  // namespace commpress::linalg::detail
