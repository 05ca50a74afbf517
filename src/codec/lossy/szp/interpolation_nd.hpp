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

}  // namespace commpress::codec::szp
