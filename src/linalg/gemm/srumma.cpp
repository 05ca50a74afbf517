// Placeholder until the algorithm lands: refuses to run (every rank alike).
#include "linalg/gemm/gemm_call.hpp"

namespace commpress::linalg::detail {

template <class T>
Status run_srumma(const GemmCall<T>&, GemmReport&) {
  return {ErrorCode::unsupported, "gemm algorithm srumma is not built yet"};
}

template Status run_srumma<float>(const GemmCall<float>&, GemmReport&);
template Status run_srumma<double>(const GemmCall<double>&, GemmReport&);

}  // namespace commpress::linalg::detail
