// GemmAlgorithm::Cannon on a square q x q grid: skew, then q multiply-and-shift steps, the
// blocks travelling encoded once (see cannon_steps.hpp). It is the one-layer case of 2.5D
// Cannon, which runs all q steps on layer 0 and has nothing to replicate or reduce.
#include "linalg/gemm/gemm_call.hpp"

namespace commpress::linalg::detail {

// Both operands are encoded once before the skew, even on one rank.
void plan_cannon(GemmPlan& plan) {
  plan.compress_a = plan.compress_b = true;
  plan.panel = 0;
}

template <class T>
Status run_cannon(const GemmCall<T>& call, GemmReport& report) {
  if (call.grid->layers() != 1 || call.grid->rows() != call.grid->cols())
    return {ErrorCode::invalid_argument, "cannon needs a square 2-D grid"};
  return run_cannon25d(call, report);
}

template Status run_cannon<float>(const GemmCall<float>&, GemmReport&);
template Status run_cannon<double>(const GemmCall<double>&, GemmReport&);

}  // namespace commpress::linalg::detail
