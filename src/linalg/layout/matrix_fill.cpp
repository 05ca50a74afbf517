#include "linalg/layout/matrix_fill.hpp"

namespace commpress::linalg::detail {

namespace {

uint64_t mix(uint64_t x) {  // splitmix64's finalizer: a good 64-bit hash
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

double matrix_value(uint64_t seed, int64_t i, int64_t j, double zero_fraction) {
  const uint64_t h = mix(mix(mix(seed) ^ uint64_t(i)) ^ uint64_t(j));
  const double u = double(h >> 11) * 0x1.0p-53;  // [0, 1)
  if (zero_fraction > 0) {
    const double z = double(mix(h) >> 11) * 0x1.0p-53;
    if (z < zero_fraction) return 0;
  }
  return 2 * u - 1;
}

template <class T>
void fill_window(T* out, int64_t ld, int64_t r0, int64_t c0, int64_t rows, int64_t cols,
                 uint64_t seed, double zero_fraction) {
  for (int64_t j = 0; j < cols; ++j)
    for (int64_t i = 0; i < rows; ++i)
      out[i + j * ld] = T(matrix_value(seed, r0 + i, c0 + j, zero_fraction));
}

template <class T>
void fill_block(DistMatrix<T>& m, const Grid& grid, uint64_t seed, double zero_fraction) {
  const int64_t rows = m.local_rows(grid), cols = m.local_cols(grid);
  if (rows == 0 || cols == 0) return;
  fill_window(m.data, m.ld, m.row_split(grid).offset(grid.row()),
              m.col_split(grid).offset(grid.col()), rows, cols, seed, zero_fraction);
}

template void fill_window<float>(float*, int64_t, int64_t, int64_t, int64_t, int64_t, uint64_t,
                                 double);
template void fill_window<double>(double*, int64_t, int64_t, int64_t, int64_t, int64_t,
                                  uint64_t, double);
template void fill_block<float>(DistMatrix<float>&, const Grid&, uint64_t, double);
template void fill_block<double>(DistMatrix<double>&, const Grid&, uint64_t, double);

}  // namespace commpress::linalg::detail
