// Placeholder until the algorithm lands: refuses to run (every rank alike).
#include "linalg/gemm/gemm_call.hpp"

namespace commpress::linalg::detail {

template <class T>
Status run_cannon25d(const GemmCall<T>&, GemmReport&) {
  return {ErrorCode::unsupported, "gemm algorithm cannon25d is not built yet"};
}

template Status run_cannon25d<float>(const GemmCall<float>&, GemmReport&);
template Status run_cannon25d<double>(const GemmCall<double>&, GemmReport&);

}  // namespace commpress::linalg::detail
