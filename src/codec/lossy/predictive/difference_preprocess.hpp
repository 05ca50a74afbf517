// Difference preprocessing: every value is shifted by one offset (the smallest finite value)
// so the sequence the predictors see is non-negative. The sign bit of a shifted value is then
// always 0, which the bit-wise format reuses as an escape flag, and mantissa truncation works
// on magnitudes measured from the data's floor rather than from zero.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>

namespace commpress::codec::predictive {

// The smallest finite element, or 0 when there is none. NaN and Inf are skipped: they travel
// verbatim and must not drag the offset to infinity.
template <class T>
T difference_offset(const T* x, size_t n) {
  T lo = std::numeric_limits<T>::infinity();
  for (size_t i = 0; i < n; ++i)
    if (std::isfinite(x[i]) && x[i] < lo) lo = x[i];
  if (!std::isfinite(lo)) return T(0);
  // A zero offset is taken as -0: then x - offset is x + 0, which is never -0, so no shifted
  // value carries a sign bit (x - (+0) would turn an input -0 into -0).
  if (lo == T(0)) return -T(0);
  return lo;
}

// Encoder and decoder must use these two expressions, in T, and nothing else: the decoder
// rebuilds exactly what the encoder verified.
template <class T>
inline T to_difference(T x, T offset) {
  return x - offset;
}

template <class T>
inline T from_difference(T d, T offset) {
  return d + offset;
}

}  // namespace commpress::codec::predictive
