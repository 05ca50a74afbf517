// Keeping only the mantissa bits a bound needs. With 2^-n <= E < 2^(-n+1) and a value
// 1.f x 2^m, b = m + n leading mantissa bits are kept (clamped to [0, mantissa width]).
// Kept bits are a grid of spacing 2^(m-b) = 2^-n; the value is rounded to the nearest grid
// point, so it moves by at most 2^(-n-1) <= E/2. Half the bound goes to truncation, the
// other half absorbs the rounding of the difference preprocessing (and the encoder checks
// the final value anyway). When b is clamped to 0 the value is below 2^-n and its grid is
// finer; at the full width nothing is dropped.
//
// Rounding to nearest (rather than keeping the leading bits and filling the dropped ones
// with their midpoint, 1000...) has the same worst case, but a value already on the grid
// (zero, integers at coarse bounds) comes back exactly, so exact data keeps the predictor
// history exact instead of seeding it with an error of E/2.
//
// b depends only on the exponent field and n, so the decoder derives it from the stream.
#pragma once

#include <algorithm>
#include <cmath>

#include "codec/lossy/predictive/float_layout.hpp"

namespace commpress::codec::predictive {

inline constexpr int kMinBoundExponent = -1023;
inline constexpr int kMaxBoundExponent = 1074;

// The n with 2^-n <= e < 2^(-n+1), for a positive finite e: within [-1023, 1074]. A bound of
// 0 keeps every mantissa bit (the largest n).
inline int bound_exponent(double e) {
  if (!(e > 0)) return kMaxBoundExponent;
  int ex = 0;
  std::frexp(e, &ex);  // e = f * 2^ex with f in [0.5, 1)
  return 1 - ex;
}


template <class T>
class MantissaTruncation {
  using L = FloatLayout<T>;
  using Bits = typename L::Bits;

 public:
  explicit MantissaTruncation(int bound_exponent) : n_(bound_exponent) {}

  static constexpr Bits kExponentMask = (Bits(1) << L::kExponentBits) - 1;
  static constexpr Bits kMantissaMask = (Bits(1) << L::kMantissaBits) - 1;

  // Mantissa bits kept for a value with this biased exponent field. Subnormals (field 0)
  // share the spacing of the smallest normal exponent.
  int kept_bits(Bits exponent_field) const {
    const int m = std::max<int>(int(exponent_field), 1) - L::kBias;
    return std::clamp(m + n_, 0, L::kMantissaBits);
  }

  struct Truncated {
    bool ok;  // false: rounding overflowed to infinity
    Bits exponent_field;
    Bits kept;  // the top `bits` mantissa bits of the rounded value
    int bits;   // kept_bits(exponent_field)
  };

  // d must be finite with a clear sign bit. For such values the bit pattern grows linearly
  // with the value inside a binade and continues into the next one, so adding half a grid
  // step to the integer rounds to nearest, carrying into the exponent when needed.
  Truncated truncate(T d) const {
    Bits u = to_bits(d);
    const int dropped = L::kMantissaBits - kept_bits((u >> L::kMantissaBits) & kExponentMask);
    if (dropped > 0) {
      const Bits grid = Bits(1) << dropped;
      u = (u + (grid >> 1)) & ~(grid - 1);
    }
    const Bits exp = (u >> L::kMantissaBits) & kExponentMask;
    if (exp == kExponentMask) return {false, 0, 0, 0};
    // A carry into the exponent can only widen the grid's bit count, and the dropped bits
    // are zero, so re-deriving b from the new exponent loses nothing.
    const int b = kept_bits(exp);
    return {true, exp, (u & kMantissaMask) >> (L::kMantissaBits - b), b};
  }

  static T rebuild(Bits exponent_field, Bits kept, int bits) {
    return from_bits<T>((exponent_field << L::kMantissaBits) | (kept << (L::kMantissaBits - bits)));
  }

 private:
  int n_;
};

}  // namespace commpress::codec::predictive
