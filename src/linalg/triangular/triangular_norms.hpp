// The norms the a-posteriori bounds of the compressed triangular routines need, over the grid.
#pragma once

#include "linalg/layout/block_cyclic.hpp"

namespace commpress::linalg::detail {

enum class Part : uint8_t { All, Lower, Upper };

// max over rows (by_rows) or columns of the sum of |a(i, j)| over the elements in `part`
// (Lower: i >= j). Collective over the grid; every rank returns the same value.
template <class T>
double max_abs_line_sum(const BlockCyclic<T>& a, const LineGrid& g, bool by_rows, Part part);

}  // namespace commpress::linalg::detail
