// Keeping only the mantissa bits a bound needs. With 2^-n <= E < 2^(-n+1) and a value
// 1.f x 2^m, the value's b = m + n leading mantissa bits are kept (clamped to [0, mantissa
// width]); the dropped tail is rebuilt as its midpoint (a 1 followed by zeros). The dropped
// tail spans 2^(m-b) = 2^-n, so the midpoint is within 2^(-n-1) <= E/2 of the value: half
// the bound goes to truncation, the other half absorbs the rounding of the difference
// preprocessing (and the encoder checks the final value anyway). When b is clamped to 0 the
// value is below 2^-n and the error is smaller still; at the full width nothing is dropped.
// b depends only on the exponent field and n, so the decoder derives it from the stream.
#pragma once

#include <algorithm>
#include <cmath>

#include "codec/lossy/predictive/float_layout.hpp"

namespace commpress::codec::predictive {

// The n with 2^-n <= e < 2^(-n+1), for a positive finite e: within [-1023, 1074].
inline int bound_exponent(double e) {
  int ex = 0;
  std::frexp(e, &ex);  // e = f * 2^ex with f in [0.5, 1)
  return 1 - ex;
}

inline constexpr int kMinBoundExponent = -1023;
inline constexpr int kMaxBoundExponent = 1074;

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
    Bits exponent_field;
    Bits kept;  // the top kept_bits mantissa bits
    int bits;   // kept_bits(exponent_field)
  };

  // d must be finite with a clear sign bit.
  Truncated truncate(T d) const {
    const Bits u = to_bits(d);
    const Bits exp = (u >> L::kMantissaBits) & kExponentMask;
    const int b = kept_bits(exp);
    return {exp, (u & kMantissaMask) >> (L::kMantissaBits - b), b};
  }

  // Inverse of truncate up to the dropped tail, which is rebuilt as its midpoint.
  static T rebuild(Bits exponent_field, Bits kept, int bits) {
    const int dropped = L::kMantissaBits - bits;
    Bits u = (exponent_field << L::kMantissaBits) | (kept << dropped);
    if (dropped > 0) u |= Bits(1) << (dropped - 1);
    return from_bits<T>(u);
  }

 private:
  int n_;
};

}  // namespace commpress::codec::predictive
