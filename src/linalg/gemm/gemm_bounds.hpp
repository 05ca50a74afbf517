// Error bounds of compressed multiplies: the absolute bound each input block is compressed
// with (the plan's bound for that operand, REL resolved against the input's global range), and what those imply for C:
// |dC_ij| <= |alpha| * sum_k (eA*|B_kj| + eB*|A_ik| + eA*eB), whose maximum over (i, j) is
// |alpha| * (eA * max_j colsum|op(B)| + eB * max_i rowsum|op(A)| + k*eA*eB).
#pragma once

#include "linalg/gemm/gemm_call.hpp"

namespace commpress::linalg::detail {

struct InputBounds {
  codec::ErrorBound a = codec::ErrorBound::lossless();
  codec::ErrorBound b = codec::ErrorBound::lossless();
};

// Collective over the grid (only a REL bound needs the data).
template <class T>
Result<InputBounds> resolve_input_bounds(const GemmCall<T>& call);

// Collective over the grid; 0 when both inputs travel exactly.
template <class T>
Result<double> bound_on_c(const GemmCall<T>& call);

}  // namespace commpress::linalg::detail
