// Hysteresis quantization for szp-e's half-step chunks (docs/format/szp-e.md). With the step
// at eb instead of 2 eb, two integers reconstruct every value within the bound, so a value
// may keep its left neighbour's integer as long as that one still does; only when it no
// longer does is the value rounded to the nearest integer, which leaves it near the middle of
// its new window. Where the data move slowly against the bound (a random walk at a loose bound)
// the integers change far less often than plain rounding's, which flips back and forth
// whenever the data wander along a rounding boundary. The decoder cannot tell: it
// reconstructs T(q) * step as always, and every kept integer was checked in T like the
// rounded ones.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "codec/lossy/szp/linear_quantizer.hpp"

namespace commpress::codec::szp {

// Fills q[0..32) (padding repeats q[valid-1]) starting from the carried integer `carry`, which
// it leaves at q[valid-1]. Returns false when a value cannot be quantized (not finite, out
// of range, or its rounded integer fails the check): the block must then be stored raw and
// the caller must restore carry.
template <class T>
bool hysteresis_block(const T* x, size_t valid, const LinearQuantizer<T>& qz,
                      typename LinearQuantizer<T>::Int& carry,
                      typename LinearQuantizer<T>::Int* q) {
  using Int = typename LinearQuantizer<T>::Int;
  using U = std::make_unsigned_t<Int>;
  constexpr size_t kN = kBlockValues;
  Int lo[kN], rn[kN];
  uint8_t fits[kN];  // bit 0: lo reconstructs x within eb; bit 1: lo + 1 does
  bool ok = true;
  const T step = qz.step(), inv = qz.inv_step(), accept = qz.accept();
  // Off the dependency chain: every candidate's check, vectorizable.
  for (size_t i = 0; i < valid; ++i) {
    const T y = x[i] * inv;
    // One below the quantizer's limit, so lo + 1 stays inside it too.
    const bool in = std::fabs(y) < T(LinearQuantizer<T>::kLimit - 1);
    lo[i] = in ? Int(std::floor(y)) : Int(0);
    rn[i] = in ? Int(std::nearbyint(y)) : Int(0);
    const bool f0 = std::fabs(x[i] - T(lo[i]) * step) <= accept;
    const bool f1 = std::fabs(x[i] - T(lo[i] + 1) * step) <= accept;
    fits[i] = uint8_t(f0) | uint8_t(f1) << 1;
    ok &= in && std::fabs(x[i] - T(rn[i]) * step) <= accept;
  }
  if (!ok) return false;
  // Most blocks at loose bounds keep the carried integer throughout: one vector test.
  bool all = true;
  for (size_t i = 0; i < valid; ++i) {
    const U d = U(carry) - U(lo[i]);
    all &= d <= 1 && ((fits[i] >> (d & 1)) & 1);
  }
  if (all) {
    for (size_t i = 0; i < valid; ++i) q[i] = carry;
  } else {
    for (size_t i = 0; i < valid; ++i) {
      const U d = U(carry) - U(lo[i]);
      const bool keep = d <= 1 && ((fits[i] >> (d & 1)) & 1);
      carry = keep ? carry : rn[i];
      q[i] = carry;
    }
  }
  for (size_t i = valid; i < kN; ++i) q[i] = q[valid - 1];
  return true;
}

}  // namespace commpress::codec::szp
