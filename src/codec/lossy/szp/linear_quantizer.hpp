// Maps a value to an integer multiple of the step 2*eb and back. Only reconstruct() is part
// of the format (the decoder evaluates exactly that expression); quantize() is the encoder's
// choice, and it checks its own work: a value is accepted only when the reconstruction is
// provably within eb, so float rounding, NaN, Inf and overflow all fall back to raw blocks.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "codec/lossy/szp/block_header.hpp"
#include "core/host_device.hpp"

namespace commpress::codec::szp {

template <class T>
class LinearQuantizer {
 public:
  using Int = typename BlockTraits<T>::Int;
  // |q| < kLimit, so a Lorenzo residual q[i] - q[i-1] never overflows Int.
  static constexpr Int kLimit = Int(1) << (BlockTraits<T>::kBits - 2);

  // abs_bound >= 0 (the frame header guarantees it); 0 asks for exact values. half_step
  // halves the step (szp-e's hysteresis chunks: two codes lie within eb of every value).
  explicit LinearQuantizer(double abs_bound, bool half_step = false) {
    // The step is computed in T so the decoder's reconstruction is one multiply in T.
    // Clamp before narrowing: an out-of-range double -> float conversion is undefined.
    constexpr double kMax = double(std::numeric_limits<T>::max());
    double step = std::min(2.0 * abs_bound, kMax);
    step_ = half_step ? T(step) / T(2) : T(step);
    // A step of 0 (a bound of 0, or one that underflowed in T) quantizes every value to 0, so
    // only values within accept() of zero, zeros at least, pass the check below; the rest
    // travel raw. (An infinite inverse would make 0 x inf = NaN and send even zeros raw.)
    inv_step_ = step_ > 0 ? T(1) / step_ : T(0);
    // Accept |x - x'| as computed in T only when the exact difference is surely <= eb: the
    // subtraction rounds by at most one half-ulp (relative 2^-mantissa), and a subnormal
    // difference is exact. The factor (1 - epsilon = 1 - 2^-(digits-1)) covers that half-ulp with margin.
    constexpr double kShrink = 1.0 - double(std::numeric_limits<T>::epsilon());
    double accept = std::min(abs_bound * kShrink, kMax);
    T a = T(accept);
    if (double(a) > accept) a = std::nextafter(a, T(0));
    accept_ = a;
  }

  COMMPRESS_HD T step() const { return step_; }
  COMMPRESS_HD T inv_step() const { return inv_step_; }
  COMMPRESS_HD T accept() const { return accept_; }

  // The reconstruction every decoder computes: T(q) * step, in T arithmetic.
  COMMPRESS_HD T reconstruct(Int q) const { return T(q) * step_; }

  // Branch-free: returns false (and q = 0) when x cannot be carried within the bound.
  COMMPRESS_HD bool quantize(T x, Int& q) const {
    T y = x * inv_step_;
    bool in_range = std::fabs(y) < T(kLimit);  // false for NaN
    q = in_range ? Int(std::nearbyint(y)) : Int(0);
    T err = std::fabs(x - reconstruct(q));
    return in_range && err <= accept_;
  }

 private:
  T step_ = 0;
  T inv_step_ = 0;
  T accept_ = 0;
};

}  // namespace commpress::codec::szp
