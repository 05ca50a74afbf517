// The codes of the Huffman-coded shaped payloads (shaped_huffman.hpp), portable: a value's
// code k (|k| < kRadius) against its interpolated prediction P at the level's step h is the
// symbol 1 + zigzag(k); symbol 0 is a value stored as it is (docs/format/szp-e.md). The
// AVX-512 kernels (interpolation_kernels_avx512.hpp) must give the same symbols and values.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace commpress::codec::szp {

inline constexpr int kRadius = 1 << 15;

// Rounds to the nearest integer, ties to even, as nearbyint does in the default rounding mode,
// for |y| < 2^(digits - 2); unlike nearbyint it vectorizes.
template <class T>
inline T round_small(T y) {
  constexpr T kMagic = T(1.5) * T(uint64_t{1} << (std::numeric_limits<T>::digits - 1));
  return (y + kMagic) - kMagic;
}

// The symbols of m values val against their predictions pred at level step h (inv = 1 / h):
// 1 + zigzag(k) where P + k h is within accept of the value, 0 (stored as it is) otherwise;
// out[t] is what later predictions read (the reconstruction or the stored value). Returns
// how many are stored.
template <class T>
size_t quantize_block(const T* val, const T* pred, size_t m, T h, T inv, T accept, uint16_t* sym,
                      T* out) {
  // Written without branches (selects and 0/1 masks) so that it vectorizes.
  uint32_t refused = 0;
  for (size_t t = 0; t < m; ++t) {
    const T v = val[t], y = (v - pred[t]) * inv;
    const bool in_range = std::fabs(y) < T(kRadius - 1);  // false for NaN
    const T q = round_small(in_range ? y : T(0));
    const T rc = pred[t] + q * h;
    const uint32_t ok = uint32_t(in_range) & uint32_t(std::fabs(v - rc) <= accept);
    const int32_t k = int32_t(q);
    sym[t] = uint16_t(ok * (((uint32_t(k) << 1) ^ uint32_t(k >> 31)) + 1));
    out[t] = ok ? rc : v;
    refused += 1 - ok;
  }
  return refused;
}

// The values P + k h of m symbols sym against their predictions pred (a stored value's
// symbol, 0, gives P: the caller puts the stored value there). Returns how many are stored.
template <class T>
size_t reconstruct_block(const T* pred, const uint16_t* sym, size_t m, T h, T* val) {
  size_t stored = 0;
  for (size_t t = 0; t < m; ++t) {
    const int32_t z = int32_t(sym[t]) - 1;
    const int32_t code = (z >> 1) ^ -(z & 1);
    val[t] = pred[t] + T(code) * h;
    stored += sym[t] == 0;
  }
  return stored;
}

}  // namespace commpress::codec::szp
