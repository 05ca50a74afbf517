// Multilevel interpolation prediction over a box (szp-e's shaped payloads,
// docs/format/szp-e.md), as in SZ3: the point (0,0,0) first, then for strides s = S/2, S/4,
// ..., 1 (S the smallest power of two >= every dimension) and each axis d in the order z, y,
// x, every point whose coordinate along d is an odd multiple of s, whose coordinates along
// the axes before d are multiples of s and along the axes after d multiples of 2s. Such a
// point is predicted from the points s and 3s away along d, all decoded before it: cubic
// (-a3 + 9 a1 + 9 b1 - b3) / 16 where all four lie in the box, the mean of a1 and b1 where
// both do, else a1. Interpolation averages its neighbours' errors, which is what keeps codes
// at 0 at loose bounds on smooth data (SZ3's Lorenzo alternative, which extrapolates, adds its neighbours' errors up). A
// neighbour that is not finite (a raw NaN or Inf) is read as 0.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>


namespace commpress::codec::szp {

// A box of nz x ny x nx values in C order (a 2-D array is nz x 1 x nx), cut into slabs of
// `slab` planes along z that are predicted independently.
struct Box {
  size_t nz = 1, ny = 1, nx = 1;
  size_t slab = 1;
  size_t plane() const { return ny * nx; }
  size_t count() const { return nz * ny * nx; }
  size_t slabs() const { return (nz + slab - 1) / slab; }
};

namespace detail {

// A neighbour as predictions read it: a raw NaN or Inf is read as 0, so it does not spread.
template <class T>
inline T finite_or_zero(T v) {
  return std::isfinite(v) ? v : T(0);
}

}  // namespace detail

// Calls f(j, predict, s) for every value of a slab box in the order above (j its index in the
// slab, s its stride: S for the first value), predict(v) giving its prediction from the slab's
// values v.
template <class T, class F>
void interpolation_visit(const Box& b, F f) {
  const size_t dim[3] = {b.nz, b.ny, b.nx};
  const size_t stride[3] = {b.ny * b.nx, b.nx, 1};
  size_t top = 1;
  while (top < std::max({dim[0], dim[1], dim[2]})) top <<= 1;
  f(size_t(0), [](const T*) { return T(0); }, top);
  for (size_t s = top / 2; s >= 1; s /= 2) {
    for (int d = 0; d < 3; ++d) {
      size_t beg[3], step[3];
      for (int e = 0; e < 3; ++e) {
        beg[e] = e == d ? s : 0;
        step[e] = e < d ? s : 2 * s;
      }
      const size_t sd = stride[d] * s, n_d = dim[d];
      for (size_t z = beg[0]; z < dim[0]; z += step[0])
        for (size_t y = beg[1]; y < dim[1]; y += step[1])
          for (size_t x = beg[2]; x < dim[2]; x += step[2]) {
            const size_t j = (z * dim[1] + y) * dim[2] + x;
            const size_t c = d == 0 ? z : d == 1 ? y : x;
            const bool right = c + s < n_d, cubic = right && c >= 3 * s && c + 3 * s < n_d;
            f(j, [=](const T* v) {
              const T a1 = detail::finite_or_zero(v[j - sd]);
              if (!right) return a1;
              const T b1 = detail::finite_or_zero(v[j + sd]);
              if (!cubic) return (a1 + b1) * T(0.5);
              const T a3 = detail::finite_or_zero(v[j - 3 * sd]);
              const T b3 = detail::finite_or_zero(v[j + 3 * sd]);
              return (T(9) * (a1 + b1) - (a3 + b3)) * T(0.0625);
            }, s);
          }
    }
    if (s == 1) break;
  }
}

}  // namespace commpress::codec::szp
