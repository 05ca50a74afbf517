// Element-wise verification of a codec's promise.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <span>
#include <string>

#include "commpress/codec.hpp"

namespace commpress::testing {

// The bound a request promises for x, computed here independently of the library, in long
// double: an ABS value as given; REL as rel x (max - min) of the finite values (0 for a
// constant array or one without finite values); 0 for lossless.
template <class T>
long double promised_bound(std::span<const T> x, const codec::ErrorBound& b) {
  if (b.mode == codec::BoundMode::abs) return b.value;
  if (b.mode != codec::BoundMode::rel) return 0;
  long double lo = std::numeric_limits<long double>::infinity(), hi = -lo;
  for (T v : x)
    if (std::isfinite(v)) lo = std::min<long double>(lo, v), hi = std::max<long double>(hi, v);
  return hi > lo ? (long double)b.value * (hi - lo) : 0.0L;
}

// Empty string when every finite x[i] has |x[i] - y[i]| <= bound (the difference taken in long
// double, so it neither overflows nor rounds below the bound) and every non-finite x[i] comes
// back bit-identical; otherwise a description of the first violation.
template <class T>
std::string check_bound(std::span<const T> x, std::span<const T> y, long double bound) {
  if (x.size() != y.size()) return "size mismatch";
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isfinite(x[i])) {
      const long double err = std::fabs((long double)x[i] - (long double)y[i]);
      if (!(err <= bound)) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "element %zu: |%.17Lg - %.17Lg| = %.6Lg > bound %.6Lg", i,
                      (long double)x[i], (long double)y[i], err, bound);
        return buf;
      }
    } else if (std::memcmp(&x[i], &y[i], sizeof(T)) != 0) {
      return "element " + std::to_string(i) + ": non-finite value not carried exactly";
    }
  }
  return {};
}

template <class T>
bool bit_equal(std::span<const T> x, std::span<const T> y) {
  return x.size() == y.size() && (x.empty() || std::memcmp(x.data(), y.data(), x.size_bytes()) == 0);
}

}  // namespace commpress::testing
