// SUMMA on a pr x pc x c grid (c == 1 is plain SUMMA): operands brought to the block layout on
// layer 0, panels dealt round robin to the layers, each layer's panel loop, and the partial
// blocks of C summed onto layer 0. run_summa and run_summa25d both run this.
#pragma once

#include "linalg/gemm/gemm_call.hpp"

namespace commpress::linalg::detail {

template <class T>
Status summa_on_grid(const GemmCall<T>& call, GemmReport& report);

}  // namespace commpress::linalg::detail
