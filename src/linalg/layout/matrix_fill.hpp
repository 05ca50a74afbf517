// Deterministic test and benchmark matrices: element (i, j) is a function of (seed, i, j)
// alone, so every rank fills its own block (of any layout) without the global matrix, and a
// reference can regenerate any part of it.
#pragma once

#include <cstdint>

#include "commpress/linalg.hpp"

namespace commpress::linalg::detail {

// Uniform in [-1, 1), or exactly 0 with probability zero_fraction.
double matrix_value(uint64_t seed, int64_t i, int64_t j, double zero_fraction = 0);

// Fills this rank's block of the global rows x cols matrix m (block layout over grid).
template <class T>
void fill_block(DistMatrix<T>& m, const Grid& grid, uint64_t seed, double zero_fraction = 0);

// Fills a rows x cols column-major array with the global matrix's rows [r0, r0+rows) and
// columns [c0, c0+cols).
template <class T>
void fill_window(T* out, int64_t ld, int64_t r0, int64_t c0, int64_t rows, int64_t cols,
                 uint64_t seed, double zero_fraction = 0);

}  // namespace commpress::linalg::detail
