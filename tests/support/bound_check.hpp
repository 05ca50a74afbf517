// Element-wise verification of a codec's promise.
#pragma once

#include <cmath>
#include <cstring>
#include <span>
#include <string>

namespace commpress::testing {

// Empty string when every finite x[i] has |x[i] - y[i]| <= bound and every non-finite x[i]
// comes back bit-identical; otherwise a description of the first violation.
template <class T>
std::string check_bound(std::span<const T> x, std::span<const T> y, double bound) {
  if (x.size() != y.size()) return "size mismatch";
  for (size_t i = 0; i < x.size(); ++i) {
    if (std::isfinite(x[i])) {
      double err = std::fabs(double(x[i]) - double(y[i]));
      if (!(err <= bound))
        return "element " + std::to_string(i) + ": |" + std::to_string(double(x[i])) + " - " +
               std::to_string(double(y[i])) + "| = " + std::to_string(err) + " > bound " +
               std::to_string(bound);
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
